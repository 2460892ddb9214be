"""Benchmark: FM1's full-batch GD on fixed CFM triples (n = 32, m = 4096, 8-Gaussian circle, d = 2).

    .venv/bin/python benchmarks/flow_matching.py
    .venv/bin/python benchmarks/flow_matching.py --m 1024 --steps 100 --seeds 2     # seconds

Implementations, timed interleaved (``core.bench.time_interleaved``, medians of wall time), all on one thread
(XLA's CPU thread pool and BLAS pinned to one thread, so the comparison is per core):

* JAX — ``gd_train`` jitted: the whole run as one ``lax.scan`` (closed-form gradient, neuron-major layout);
* the vectorised NumPy GD of the same steps (float32, the same array expressions per step);
* the floor: only the four matmuls of every step in NumPy (W zᵀ, aᵀh, a rᵀ, back z), no element-wise work.
  A step is three or four array operations that NumPy already vectorises, so there is no 20× goal here: the goal
  is to run within 1.2× of the floor and never slower than NumPy.
* the sweep over seeds: one jitted ``vmap`` of ``gd_train`` over ``--seeds`` runs against a Python loop of the
  NumPy GD over the same runs (ratio printed).

JAX and NumPy start from the same weights and triples; their final losses agree to float32 round-off (printed).
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from jaxpapers.core.bench import report_ratio, time_interleaved  # noqa: E402
from jaxpapers.flow_matching import GMMTarget, gd_train, gram_hinf, init_params, make_triples  # noqa: E402


def numpy_gd(w, a, z, u, eta, steps):
    """The vectorised NumPy GD on the summed loss ½ Σᵢ ‖v_W(zᵢ) − uᵢ‖² (same layout as the JAX step)."""
    scale = np.float32(1.0 / np.sqrt(w.shape[0]))
    eta = np.float32(eta)
    for _ in range(steps):
        pre = w @ z.T
        act = pre > 0
        h = np.where(act, pre, 0)
        r = (a.T @ h).T * scale - u
        back = np.where(act, a @ r.T, 0) * scale
        w = w - eta * (back @ z)
    loss = 0.5 * np.sum(((a.T @ np.maximum(w @ z.T, 0)).T * scale - u) ** 2)
    return w, float(loss)


def matmul_floor(w, a, z, u, steps):
    """The four matmuls of each GD step and nothing else (the floor any implementation of the step pays)."""
    r = u.copy()
    for _ in range(steps):
        pre = w @ z.T
        _ = a.T @ pre
        back = a @ r.T
        _ = back @ z
    return pre


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=4)
    args = ap.parse_args()
    target = GMMTarget.circle()
    keys = jax.random.split(jax.random.key(0), args.seeds)
    triples = [make_triples(jax.random.fold_in(k, 0), target, args.n) for k in keys]
    params = [init_params(jax.random.fold_in(k, 1), args.m, target.d) for k in keys]
    zs = [np.column_stack([tr["x"], tr["t"], np.ones(args.n)]).astype(np.float32) for tr in triples]  # z = (x, t, 1)
    eta = float(1.0 / np.linalg.eigvalsh(gram_hinf(zs[0]))[-1])  # η = 1/λ_max(H∞) (FM1), seed 0's for all runs
    np_args = [(np.asarray(p["W"]), np.asarray(p["a"]), z, np.asarray(tr["u"])) for p, z, tr in
               zip(params, zs, triples, strict=True)]

    one = jax.jit(lambda p, tr: gd_train(p, tr, eta, args.steps, record_every=args.steps))
    sweep = jax.jit(jax.vmap(lambda p, tr: gd_train(p, tr, eta, args.steps, record_every=args.steps)))
    stack = lambda xs: jax.tree.map(lambda *v: np.stack(v), *xs)  # noqa: E731
    p_all, tr_all = stack(params), stack([{k: tr[k] for k in ("x", "t", "u")} for tr in triples])

    with threadpool_limits(1):
        _, hist = one(params[0], triples[0])
        _, np_loss = numpy_gd(*np_args[0], eta, args.steps)
        print(f"final summed loss after {args.steps} steps (seed 0): jax {float(hist['loss'][-1]):.6f}, "
              f"numpy {np_loss:.6f}")
        t = time_interleaved({
            "jax": lambda: one(params[0], triples[0]),
            "numpy": lambda: numpy_gd(*np_args[0], eta, args.steps),
            "floor": lambda: matmul_floor(*np_args[0], args.steps),
            "jax_sweep": lambda: sweep(p_all, tr_all),
            "numpy_loop": lambda: [numpy_gd(*a, eta, args.steps) for a in np_args],
        }, rounds=3)
    label = f"FM1 GD n={args.n} m={args.m} T={args.steps}"
    report_ratio(f"{label} vs vectorised numpy", t["numpy"], t["jax"], baseline="numpy", goal=1)
    report_ratio(f"{label} vs the matmul floor", t["floor"], t["jax"], baseline="floor", goal=1 / 1.2)
    report_ratio(f"{label}, {args.seeds} seeds: vmapped sweep vs a Python loop of numpy runs", t["numpy_loop"],
                 t["jax_sweep"], baseline="numpy loop")


if __name__ == "__main__":
    main()
