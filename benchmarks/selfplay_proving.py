"""Benchmark: S1's growth simulation (plain random-walk conjecturer, p = 0.5, β = 1, 16 random 8-regular graphs
of n = 4096 nodes, 30 rounds) at the quick size.

    .venv/bin/python benchmarks/selfplay_proving.py
    .venv/bin/python benchmarks/selfplay_proving.py --n 1024 --seeds 8

Implementations, timed interleaved (``core.bench.time_interleaved``, medians of wall time):

* JAX — ``play``: one compiled program, a ``lax.scan`` over rounds vmapped over the 16 graphs (warm);
* the plain loop a theorist would write (per seed, per round, per conjecture, Python) — timed on one seed and
  scaled by the number of seeds (goal: JAX ≥ 20×);
* the best vectorised NumPy version (per seed, per round: all m_k conjectures as one array expression)
  (goal: JAX faster).

All three draw independent randomness, so their mean final sizes agree statistically (printed), not exactly.
"""

from __future__ import annotations

import argparse

import jax
import numpy as np

from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.selfplay_proving import graphs, play


def plain_loop(nbr, deg, rounds, p, rng):
    """Per conjecture, in Python."""
    n = nbr.shape[0]
    proved = {0, *nbr[0, : deg[0]].tolist()}
    sizes = [len(proved)]
    for _ in range(rounds):
        S = sorted(proved)
        new = set()
        for _ in range(len(S)):
            u = S[int(rng.random() * len(S))]
            v = int(nbr[u, int(rng.random() * deg[u])])
            if v not in proved and rng.random() < p:
                new.add(v)
        proved |= new
        sizes.append(len(proved))
        if len(proved) == n:
            sizes += [n] * (rounds - len(sizes) + 1)
            break
    return sizes


def numpy_vectorised(nbr, deg, rounds, p, rng):
    """Per round, every conjecture in one NumPy expression."""
    n = nbr.shape[0]
    mask = np.zeros(n, bool)
    mask[0] = True
    mask[nbr[0, : deg[0]]] = True
    sizes = [int(mask.sum())]
    for _ in range(rounds):
        S = np.flatnonzero(mask)
        u = S[rng.integers(0, S.size, S.size)]
        v = nbr[u, (rng.random(S.size) * deg[u]).astype(np.int64)]
        ok = ~mask[v] & (rng.random(S.size) < p)
        mask[v[ok]] = True
        sizes.append(int(mask.sum()))
    return sizes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--d", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    gs = [graphs.random_regular(args.n, args.d, s) for s in range(args.seeds)]
    stacked = graphs.stack(gs)
    keys = jax.random.split(jax.random.key(0), args.seeds)
    nbrs = [np.asarray(g.nbr) for g in gs]
    degs = [np.asarray(g.deg) for g in gs]
    rng = np.random.default_rng(0)

    def jax_run():
        return play(stacked, keys, rounds=args.rounds, per_seed_graphs=True, log=False).sizes

    def numpy_run():
        return [numpy_vectorised(a, b, args.rounds, 0.5, rng) for a, b in zip(nbrs, degs, strict=True)]

    def loop_one_seed():
        return plain_loop(nbrs[0], degs[0], args.rounds, 0.5, rng)

    finals = (np.asarray(jax_run())[:, -1].mean(), np.mean([s[-1] for s in numpy_run()]), loop_one_seed()[-1])
    print(f"mean final |S|: jax {finals[0]:.0f}, numpy {finals[1]:.0f}, loop (1 seed) {finals[2]}")
    t = time_interleaved({"jax": jax_run, "numpy": numpy_run, "loop": loop_one_seed}, rounds=3)
    report_ratio("S1 growth vs plain loop", t["loop"] * args.seeds, t["jax"], baseline="python loop", goal=20)
    report_ratio("S1 growth vs vectorised numpy", t["numpy"], t["jax"], baseline="numpy", goal=1)


if __name__ == "__main__":
    main()
