"""Benchmark: TopoGED's encoder, the degree-filtration descriptor Φ (10 levels) of a batch of snapshots, and the
memory module's sampling of old nodes without replacement.

    .venv/bin/python benchmarks/topoged.py
    .venv/bin/python benchmarks/topoged.py --graphs 64 --nodes 256

Implementations, timed interleaved (``core.bench.time_interleaved``, medians of wall time):

* JAX — ``filtration_descriptor`` jitted and vmapped over the padded batch (warm);
* the host form ``phi`` (NumPy ``bincount`` per snapshot), looped over the batch (goal: JAX faster);
* the plain loop of the definition (per level, the nodes with deg ≤ ε_i and the edges among them, Python) —
  timed on one snapshot and scaled by the batch size (goal: JAX ≥ 20×);
* Gumbel-top-k (``sample_old_nodes``: one sort) against n sequential weighted draws with renormalisation, the
  textbook sampler without replacement, on a window of ``--window`` candidates (goal: Gumbel-top-k faster).

All descriptor implementations return the same integers (checked before timing).
"""

from __future__ import annotations

import argparse

import jax
import numpy as np

import jaxpapers.topoged as p
from jaxpapers.core.bench import report_ratio, time_interleaved


def plain_phi(nodes, edges, thresholds):
    """Φ by the definition, in Python."""
    deg = dict.fromkeys(nodes, 0)
    for u, v in edges:
        deg[u] += 1
        deg[v] += 1
    out = []
    for eps in thresholds:
        level = {v for v in nodes if deg[v] <= eps}
        out += [len(level), sum(1 for u, v in edges if u in level and v in level)]
    return out


def sequential_draws(rng, logits, n):
    """n weighted draws without replacement, one at a time (renormalising after each)."""
    w = np.exp(logits - logits.max())
    chosen = []
    for _ in range(min(n, len(w))):
        i = int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))
        i = min(i, len(w) - 1)
        chosen.append(i)
        w[i] = 0.0
    return np.sort(chosen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", type=int, default=256)
    ap.add_argument("--nodes", type=int, default=1024)
    ap.add_argument("--avg-degree", type=float, default=3.0)
    ap.add_argument("--window", type=int, default=4096)
    ap.add_argument("--draws", type=int, default=512)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    graphs = []
    for _ in range(args.graphs):
        m = int(args.avg_degree * args.nodes / 2)
        graphs.append(p.Snapshot(*_edges(rng, args.nodes, m)))
    thr = p.degree_thresholds(graphs[: max(1, args.graphs // 2)])
    n_pad, e_pad = args.nodes, max(g.n_edges for g in graphs)
    pad = p.experiments.descriptor.pad_graphs(graphs, n_pad, e_pad)
    thr_j = jax.numpy.asarray(thr, jax.numpy.float32)  # ε_n = +∞ survives the cast
    batched = jax.jit(jax.vmap(p.filtration_descriptor, in_axes=(0, 0, 0, 0, None)))
    args_j = [jax.numpy.asarray(pad[k]) for k in ("senders", "receivers", "edge_mask", "node_mask")]

    ref = np.stack([p.phi(g, thr) for g in graphs])
    np.testing.assert_array_equal(np.asarray(batched(*args_j, thr_j)), ref)
    g0 = graphs[0]
    edges0 = list(zip(g0.senders.tolist(), g0.receivers.tolist(), strict=True))
    nodes0 = list(range(g0.n_nodes))
    assert plain_phi(nodes0, edges0, thr) == ref[0].tolist()
    print(f"Φ of {args.graphs} snapshots, {args.nodes} nodes, ~{int(args.avg_degree * args.nodes / 2)} edges each:"
          " JAX, NumPy and the plain loop agree")

    logits = rng.normal(size=args.window) * 3.0
    t = time_interleaved({
        "jax": lambda: batched(*args_j, thr_j),
        "numpy": lambda: [p.phi(g, thr) for g in graphs],
        "loop": lambda: plain_phi(nodes0, edges0, thr),
        "gumbel": lambda: p.sample_old_nodes(rng, logits, args.draws),
        "sequential": lambda: sequential_draws(rng, logits, args.draws),
    }, rounds=3)
    report_ratio("Φ batch vs plain loop", t["loop"] * args.graphs, t["jax"], baseline="python loop", goal=20)
    report_ratio("Φ batch vs NumPy per snapshot", t["numpy"], t["jax"], baseline="numpy loop", goal=1)
    report_ratio(f"old-node sampling ({args.draws} of {args.window})", t["sequential"], t["gumbel"],
                 baseline="sequential draws", candidate="gumbel-top-k", goal=1)


def _edges(rng, n, m):
    """A random simple graph on exactly n nodes (a path through all of them plus random chords)."""
    u = np.concatenate([np.arange(n - 1), rng.integers(0, n, size=max(m - (n - 1), 0))])
    v = np.concatenate([np.arange(1, n), rng.integers(0, n, size=max(m - (n - 1), 0))])
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    pairs = np.unique(np.stack([a, b], 1), axis=0)
    return np.arange(n, dtype=np.int64), pairs[:, 0].astype(np.int32), pairs[:, 1].astype(np.int32)


if __name__ == "__main__":
    main()
