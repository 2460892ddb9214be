"""Benchmark: the exact adversary-directed solver on the D3 sweep (thresholds and intervals T = 1..12, unions of
≤ 2 intervals T = 1..8: 32 games, deterministic learner) at the quick size.

    .venv/bin/python benchmarks/adversary_directed.py                 # the quick sweep
    .venv/bin/python benchmarks/adversary_directed.py --t-max 10      # smaller

Implementations of the same values (all checked equal first), timed interleaved in one run
(``core.bench.time_interleaved``: medians of wall time) and again by process CPU time (medians, interleaved):

* JAX — ``solve_batch(all 32 classes, solver="auto")``: ONE call and ONE compiled program for the whole sweep,
  the dense ternary DP (``dense.py``): every class in one value array, layers of equal open count as rows of
  (code, open instance) pairs — T·3^(T−1) pairs per class, presented instances cost nothing — one
  ``fori_loop`` over the rows; the row schedule depends on the T's only and is built once (like the program);
* JAX, mask solver only, one program per family (the first version) — for the record;
* the plain recursion a theorist would write — ``reference.game_value``, memoised on (version space, presented
  set) with Python sets of hypotheses as bitmasks (goal: JAX ≥ 20×);
* the best vectorised NumPy versions — (a) the mask DP (a Python loop over masks in decreasing order; per mask,
  NumPy over (h, x): representatives, segment max/min with ``ufunc.at``) and (b) the same dense DP as JAX with
  each layer one NumPy expression over its (code, open instance) pairs (``dense.dense_numpy``, the layer
  lists cached like JAX's schedule) (goal: JAX faster than both).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from jaxpapers.adversary_directed import classes, relabel, solve_batch
from jaxpapers.adversary_directed.dense import dense_numpy
from jaxpapers.adversary_directed.reference import game_value
from jaxpapers.core.bench import report_ratio, time_interleaved


def numpy_mask_dp(H: np.ndarray) -> float:
    """The solver's algorithm in NumPy: masks in decreasing order, vectorised over hypotheses and instances."""
    H = relabel(H)
    m, T = H.shape
    idx = np.arange(m)
    L = int(H.max()) + 1
    rep = np.zeros((1 << T, m), np.int64)
    for P in range(1, 1 << T):  # representatives: refine the parent's classes by the lowest bit's label
        x = (P & -P).bit_length() - 1
        key = rep[P & ~(1 << x)] * L + H[:, x]
        first = np.full(m * L, m)
        np.minimum.at(first, key, idx)
        rep[P] = first[key]
    val = np.zeros((1 << T, m))
    cols = np.arange(T)
    for P in range((1 << T) - 2, -1, -1):
        r = rep[P]
        cv = val[P | (1 << cols)].T  # [h', x]
        v1 = np.full((m, T), -np.inf)
        np.maximum.at(v1, r, cv)
        cand = np.where(cv == v1[r], H, np.iinfo(np.int64).max)
        ystar = np.full((m, T), np.iinfo(np.int64).max)
        np.minimum.at(ystar, r, cand)
        v2 = np.full((m, T), -np.inf)
        np.maximum.at(v2, r, np.where(H != ystar[r], cv, -np.inf))
        vx = np.where(np.isfinite(v2), np.maximum(v1, v2 + 1), v1)
        open_ = ((P >> cols) & 1) == 0
        val[P] = np.max(vx[:, open_], axis=1)[r]
    return float(val[0, 0])


def cpu_interleaved(fns, rounds: int) -> dict[str, float]:
    """Median process CPU time (s, all threads) of each function, measured in alternation after one warm-up."""
    for fn in fns.values():
        fn()
    per = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t = time.process_time()
            fn()
            per[name].append(time.process_time() - t)
    return {name: statistics.median(v) for name, v in per.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--t-max", type=int, default=12, help="largest T for thresholds and intervals (unions: ≤ 8)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    families = [
        [classes.thresholds(T) for T in range(1, args.t_max + 1)],
        [classes.intervals(T) for T in range(1, args.t_max + 1)],
        [classes.unions_of_k_intervals(T, 2) for T in range(1, min(8, args.t_max) + 1)],
    ]
    mats = [m for fam in families for m in fam]

    def run_jax():  # one program, one dispatch for the whole sweep (compiled before timing)
        return solve_batch(mats, solver="auto")

    def run_jax_mask():
        return np.concatenate([solve_batch(fam, solver="mask") for fam in families])

    want = run_jax()
    assert [numpy_mask_dp(m) for m in mats] == want.tolist() == run_jax_mask().tolist()
    assert [dense_numpy(m) for m in mats] == want.tolist() == [game_value(m) for m in mats]
    fns = {
        "jax": run_jax,
        "jax_mask_only": run_jax_mask,
        "numpy_mask_loop": lambda: [numpy_mask_dp(m) for m in mats],
        "numpy_dense_layers": lambda: [dense_numpy(m) for m in mats],
        "python_recursion": lambda: [game_value(m) for m in mats],
    }
    load0 = os.getloadavg()[0]
    times = time_interleaved(fns, rounds=args.rounds, min_time_s=0.0)
    cpu = cpu_interleaved(fns, rounds=args.rounds)
    load = f"load {load0:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    print(f"{len(mats)} games, values {want.astype(int).tolist()}; {load}")
    for label, t in (("wall", times), ("cpu", cpu)):
        print(f"-- {label} time (interleaved medians of {args.rounds} rounds)")
        report_ratio(f"D3 sweep {label}", t["python_recursion"], t["jax"], baseline="python recursion", goal=20)
        report_ratio(f"D3 sweep {label}", t["numpy_mask_loop"], t["jax"], baseline="numpy mask loop", goal=1)
        report_ratio(f"D3 sweep {label}", t["numpy_dense_layers"], t["jax"], baseline="numpy dense layers", goal=1)
        report_ratio(f"D3 sweep {label}", t["jax_mask_only"], t["jax"], baseline="jax mask solver only")


if __name__ == "__main__":
    main()
