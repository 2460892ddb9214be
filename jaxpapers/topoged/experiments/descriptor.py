"""T1 (Φ exact and well-formed) and T2 (Prop. 4.1 stability: per-level bound, equality on disjoint deletions,
near-tightness witness).

Both encode padded graphs with the jitted :func:`~jaxpapers.topoged.descriptor.filtration_descriptor`,
vmapped over graphs (one compiled program per shape). T1 also checks the jitted form against the host form
:func:`~jaxpapers.topoged.descriptor.phi` on every snapshot of a generated series.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.topoged.config import PaChurnConfig, StabilityConfig, WellFormedConfig
from jaxpapers.topoged.data.events import Snapshot, snapshot_from_edges, to_snapshots
from jaxpapers.topoged.data.synthetic import pa_churn
from jaxpapers.topoged.descriptor import degree_thresholds, filtration_descriptor, phi

_batched = jax.jit(jax.vmap(filtration_descriptor, in_axes=(None, None, 0, 0, 0)))
_batched_edges = jax.jit(jax.vmap(filtration_descriptor))


def _wellformed_violations(p: np.ndarray, n_nodes: np.ndarray, n_edges: np.ndarray) -> dict[str, int]:
    """Violation counts of x_n = |V|, y_n = |E|, monotone X and Y, and y_i ≤ C(x_i, 2) (rows of p: graphs)."""
    x, y = p[:, 0::2].astype(np.int64), p[:, 1::2].astype(np.int64)
    return {
        "terminal_nodes": int(np.sum(x[:, -1] != n_nodes)),
        "terminal_edges": int(np.sum(y[:, -1] != n_edges)),
        "monotone": int(np.sum(np.any(np.diff(x, axis=1) < 0, 1) | np.any(np.diff(y, axis=1) < 0, 1))),
        "edge_bound": int(np.sum(np.any(y > x * (x - 1) // 2, 1))),
    }


def random_graphs(rng: np.random.Generator, n_graphs: int, n_max: int) -> list[Snapshot]:
    """Random simple graphs with 2..n_max nodes and mean degree up to ~10 (isolated nodes kept)."""
    out = []
    for _ in range(n_graphs):
        n = int(rng.integers(2, n_max + 1))
        m = int(rng.integers(0, 5 * n + 1))
        u, v = rng.integers(n, size=(2, m))
        out.append(snapshot_from_edges(u, v, nodes=np.arange(n)))
    return out


def pad_graphs(graphs: list[Snapshot], n_pad: int, e_pad: int) -> dict[str, np.ndarray]:
    """Stacked padded arrays (each undirected edge once) for :func:`filtration_descriptor`."""
    b = len(graphs)
    out = dict(senders=np.zeros((b, e_pad), np.int32), receivers=np.zeros((b, e_pad), np.int32),
               edge_mask=np.zeros((b, e_pad), bool), node_mask=np.zeros((b, n_pad), bool))
    for i, g in enumerate(graphs):
        out["senders"][i, : g.n_edges], out["receivers"][i, : g.n_edges] = g.senders, g.receivers
        out["edge_mask"][i, : g.n_edges] = True
        out["node_mask"][i, : g.n_nodes] = True
    return out


def measure_wellformed(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T1: violations of the by-construction properties of Φ, and jitted-vs-host mismatches."""
    del key
    wf = to_dataclass(WellFormedConfig, cfg.wellformed)
    rng = np.random.default_rng(cfg.seed)
    graphs = random_graphs(rng, wf.n_graphs, wf.n_max)
    series = to_snapshots(pa_churn(to_dataclass(PaChurnConfig, cfg.data), cfg.seed), "1D")
    thr = degree_thresholds(series[: max(1, int(0.7 * len(series)))], wf.n_levels)
    allg = graphs + series
    n_pad = max(g.n_nodes for g in allg)
    e_pad = max(max(g.n_edges for g in allg), 1)
    pad = pad_graphs(allg, n_pad, e_pad)
    # random graphs: random sorted thresholds with ε_n = +∞; series: the training thresholds
    rt = np.sort(rng.integers(0, 12, size=(wf.n_graphs, wf.n_levels)).astype(np.float64), axis=1)
    rt[:, -1] = np.inf
    thrs = np.concatenate([rt, np.broadcast_to(thr, (len(series), wf.n_levels))])
    p = np.asarray(_batched_edges(pad["senders"], pad["receivers"], pad["edge_mask"], pad["node_mask"],
                                  jnp.asarray(thrs, jnp.float32)))
    host = np.array([phi(g, t) for g, t in zip(allg, thrs, strict=True)])
    nn_ = np.array([g.n_nodes for g in allg])
    ne = np.array([g.n_edges for g in allg])
    viol = _wellformed_violations(p, nn_, ne)
    viol["jit_vs_host"] = int(np.sum(np.any(p != host, 1)))
    return Measurement(
        measured=viol,
        predicted=dict.fromkeys(viol, 0),
        n=len(allg),
        details={"random_graphs": wf.n_graphs, "series_snapshots": len(series), "thresholds_series": thr.tolist(),
                 "example_phi": host[wf.n_graphs].tolist()},
    )


# ---------------------------------------------------------------------------------------------- T2


def stability_trials(sc: StabilityConfig, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Random graphs G (n ≤ n_max nodes, edge probability ``edge_prob``) and G′ = G with a δ-edit, as edge
    masks over the fixed all-pairs list of n_max nodes. One trial in three, when G has δ disjoint edges,
    deletes a matching of δ edges (the equality case); otherwise δ distinct pairs are toggled."""
    n_max = sc.n_max
    iu, ju = np.triu_indices(n_max, 1)
    n_pairs = len(iu)
    before = np.zeros((sc.trials, n_pairs), bool)
    after = np.zeros_like(before)
    node_mask = np.zeros((sc.trials, n_max), bool)
    delta = np.zeros(sc.trials, np.int64)
    disjoint = np.zeros(sc.trials, bool)
    for k in range(sc.trials):
        n = int(rng.integers(4, n_max + 1))
        valid = (iu < n) & (ju < n)
        a = valid & (rng.random(n_pairs) < sc.edge_prob)
        d = int(rng.integers(1, sc.delta_max + 1))
        b = a.copy()
        if rng.random() < 1 / 3:
            used: set[int] = set()
            picked = []
            for e in rng.permutation(np.nonzero(a)[0]):
                if iu[e] not in used and ju[e] not in used:
                    picked.append(e)
                    used.update((int(iu[e]), int(ju[e])))
                    if len(picked) == d:
                        break
            if len(picked) == d:
                b[picked] = False
                disjoint[k] = True
        if not disjoint[k]:
            flip = rng.choice(np.nonzero(valid)[0], size=min(d, int(valid.sum())), replace=False)
            b[flip] = ~b[flip]
            d = len(flip)
        before[k], after[k], node_mask[k, :n], delta[k] = a, b, True, d
    return dict(before=before, after=after, node_mask=node_mask, delta=delta, disjoint=disjoint,
                senders=iu.astype(np.int32), receivers=ju.astype(np.int32))


def witness(eps: int) -> tuple[Snapshot, Snapshot]:
    """Two non-adjacent nodes of degree ε, each with ε leaf neighbours, before and after joining them."""
    u, v = 0, 1
    leaves_u = np.arange(2, 2 + eps)
    leaves_v = np.arange(2 + eps, 2 + 2 * eps)
    src = np.concatenate([np.full(eps, u), np.full(eps, v)])
    dst = np.concatenate([leaves_u, leaves_v])
    g = snapshot_from_edges(src, dst)
    g2 = snapshot_from_edges(np.r_[src, u], np.r_[dst, v])
    return g, g2


def measure_stability(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T2: violations of ‖ΔX‖₁ ≤ 2δ and of the per-level |Δy_i| ≤ δ(1 + 2ε_i) (hence the summed form), failures
    of ‖ΔX‖₁ = 2δ on disjoint deletions, and the witness ratio |Δy_i| / bound (δ = 1)."""
    del key
    sc = to_dataclass(StabilityConfig, cfg.stability)
    rng = np.random.default_rng(cfg.seed)
    tr = stability_trials(sc, rng)
    eps = np.arange(sc.max_threshold + 1, dtype=np.float32)
    thr = jnp.asarray(np.broadcast_to(eps, (sc.trials, len(eps))))
    s, r = jnp.asarray(tr["senders"]), jnp.asarray(tr["receivers"])
    p0 = np.asarray(_batched(s, r, jnp.asarray(tr["before"]), jnp.asarray(tr["node_mask"]), thr)).astype(np.int64)
    p1 = np.asarray(_batched(s, r, jnp.asarray(tr["after"]), jnp.asarray(tr["node_mask"]), thr)).astype(np.int64)
    dx = np.abs(p0[:, 0::2] - p1[:, 0::2])
    dy = np.abs(p0[:, 1::2] - p1[:, 1::2])
    d = tr["delta"][:, None].astype(np.float64)
    level_bound = d * (1 + 2 * eps[None, :].astype(np.float64))
    x_l1 = dx.sum(1)
    sum_ratio = dy.sum(1) / level_bound.sum(1)
    g, g2 = witness(sc.witness_eps)
    pw0, pw1 = phi(g, eps.astype(np.float64)), phi(g2, eps.astype(np.float64))
    dyw = np.abs(pw0[1::2] - pw1[1::2])
    wratio = float(dyw[sc.witness_eps] / (1 + 2 * sc.witness_eps))
    dis = tr["disjoint"]
    measured = {
        "x_violations": int(np.sum(x_l1 > 2 * tr["delta"])),
        "y_level_violations": int(np.sum(np.any(dy > level_bound, 1))),
        "y_sum_violations": int(np.sum(dy.sum(1) > level_bound.sum(1))),
        "disjoint_equality_failures": int(np.sum(x_l1[dis] != 2 * tr["delta"][dis])),
        "n_disjoint": int(dis.sum()),
        "witness_ratio": wratio,
    }
    return Measurement(
        measured=measured,
        predicted={"witness_ratio": 2 * sc.witness_eps / (1 + 2 * sc.witness_eps)},
        n=sc.trials,
        details={"worst_summed_ratio": float(sum_ratio.max()),
                 "summed_looseness": float(1.0 / max(sum_ratio.max(), 1e-12)),
                 "worst_level_ratio": float(np.max(dy / level_bound)),
                 "witness_delta_y": dyw.tolist()},
    )
