"""Benchmark: the RA3 sweep (equilibrium + optimum for 5 α × 4096 instances × 8 agents, float64) in JAX
(one jitted, vmapped program) against a plain NumPy loop over instances doing the same computation.

    .venv/bin/python benchmarks/resource_allocation.py              # quick size (the claim's sweep)
    .venv/bin/python benchmarks/resource_allocation.py --num 1024   # smaller

Both sides run the same algorithm with the same fixed iteration counts: the nested bisection of
``equilibrium.alpha_ne_one`` (80 outer × 60 inner steps, geometric-mean bisection on log(x+s)) and the
water-filling optimum with the linear-tie rule (100 steps). The NumPy loop is vectorised over the agents
of one instance; it is timed on ``--baseline-instances`` instances and scaled linearly to the full sweep
(its cost per instance is fixed by the iteration counts). A second line compares with NumPy vectorised
over the whole batch (a stronger baseline, timed on a slice and scaled the same way). Goal: ≥ 20×.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from threadpoolctl import threadpool_limits

from jaxpapers.core.bench import report_ratio, time_fn
from jaxpapers.resource_allocation.batching import batched_over_alphas
from jaxpapers.resource_allocation.sweeps import efficiency_one, over_alphas
from jaxpapers.resource_allocation.valuations import LINEAR, POWER, random_instances

ALPHAS = (1.0, 0.5, 0.25, 0.1, 0.01)


def numpy_efficiency(w, r, s, kind, alpha, outer=80, inner=60, opt_iters=100):
    """SW(NE)/OPT with the same nested bisection and water-filling as the JAX code; arrays ``[..., N]``."""
    alpha = np.asarray(alpha, np.float64)[..., None]
    rho = np.where(kind == LINEAR, 0.0, np.where(kind == POWER, r, 1.0))
    p_s, p_e = np.exp(-rho * np.log(s)), np.exp(-rho * np.log1p(s))
    v0 = w * p_s

    def shares(lam):
        c = lam * (1.0 - alpha)
        rhs0 = lam + c * s
        y_lo, y_hi, p_lo, p_hi = s.copy(), 1.0 + s, p_s.copy(), p_e.copy()
        for _ in range(inner):
            y, p = np.sqrt(y_lo * y_hi), np.sqrt(p_lo * p_hi)
            above = w * p * (1.0 + s - y) > rhs0 - c * y
            y_lo, y_hi = np.where(above, y, y_lo), np.where(above, y_hi, y)
            p_lo, p_hi = np.where(above, p, p_lo), np.where(above, p_hi, p)
        x = np.clip(np.sqrt(y_lo * y_hi) - s, 0.0, 1.0)
        return np.where(v0 > lam, x, 0.0)

    lo, hi = np.zeros(w.shape[:-1] + (1,)), v0.max(axis=-1, keepdims=True)
    for _ in range(outer):
        mid = 0.5 * (lo + hi)
        too_low = shares(mid).sum(axis=-1, keepdims=True) > 1.0
        lo, hi = np.where(too_low, mid, lo), np.where(too_low, hi, mid)
    x = shares(0.5 * (lo + hi))
    x = x / x.sum(axis=-1, keepdims=True)
    return value(w, r, s, kind, x).sum(-1) / numpy_opt(w, r, s, kind, opt_iters)


def value(w, r, s, kind, x):
    one_r = 1.0 - r
    power = w * s**one_r * np.expm1(one_r * np.log1p(x / s)) / one_r
    return np.where(kind == LINEAR, w * x, np.where(kind == POWER, power, w * np.log1p(x / s)))


def numpy_opt(w, r, s, kind, iters):
    lin = (kind == LINEAR) & (w > 0)
    safe_r = np.where(kind == POWER, r, 1.0)

    def demand(mu):
        mu = np.maximum(mu, np.finfo(np.float64).tiny)
        with np.errstate(divide="ignore"):
            power = np.exp(np.log(w / mu) / safe_r) - s
        raw = np.where(kind == LINEAR, np.where(w > mu, 1.0, 0.0), np.where(kind == POWER, power, w / mu - s))
        return np.clip(np.where(w > 0, raw, 0.0), 0.0, 1.0)

    lo = np.zeros(w.shape[:-1] + (1,))
    hi = np.where(kind == LINEAR, w, np.where(kind == POWER, w * s ** (-r), w / s)).max(-1, keepdims=True)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        enough = demand(mid).sum(-1, keepdims=True) >= 1.0
        lo, hi = np.where(enough, mid, lo), np.where(enough, hi, mid)
    mu = hi
    eps = 1e-8 * np.maximum(1.0, mu)
    full = lin & (w > mu + eps)
    tied = lin & ~full & (w >= mu - eps)
    x = np.where(lin, np.where(full, 1.0, 0.0), demand(mu))
    leftover = np.maximum(1.0 - x.sum(-1, keepdims=True), 0.0)
    order = np.argsort(np.where(tied, -w, np.inf), axis=-1)
    room = np.take_along_axis(np.where(tied, 1.0 - x, 0.0), order, -1)
    extra = np.clip(leftover - (np.cumsum(room, -1) - room), 0.0, room)
    np.put_along_axis(x, order, np.take_along_axis(x, order, -1) + extra, -1)
    return value(w, r, s, kind, x).sum(-1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num", type=int, default=4096, help="instances per α (quick preset: 4096)")
    ap.add_argument("--baseline-instances", type=int, default=24, help="instances the NumPy loop is timed on")
    ap.add_argument("--batch-slice", type=int, default=1024, help="rows the batched NumPy baseline is timed on")
    args = ap.parse_args(argv)
    with jax.enable_x64(True), threadpool_limits(limits=1, user_api="blas"):
        vals = random_instances(jax.random.key(0), args.num, 8)
        # The program RA2/RA3/RA5 run: α outer vmap × instances inner vmap, one jit.
        fn = batched_over_alphas(efficiency_one, None, outer_iters=80, inner_iters=60)
        grid_alphas = jnp.asarray(ALPHAS, vals.w.dtype)
        start = time.perf_counter()
        jax_ratio = np.asarray(fn(grid_alphas, vals)).reshape(-1)  # α-major, like the flat layout below
        total = jax_ratio.size
        print(f"JAX first call (compile + run) {time.perf_counter() - start:.2f} s for {total} (α, instance) pairs")
        jax_s = time_fn(fn, grid_alphas, vals, warmup=0, repeats=3)

        tiled, grid, _ = over_alphas(vals, ALPHAS)
        flat = jax.tree.map(lambda a: a.reshape((-1,) + a.shape[2:]), tiled)
        alphas = grid.reshape(-1)

        w, r, s, kind = (np.asarray(getattr(flat, f)) for f in ("w", "r", "s", "kind"))
        a_np = np.asarray(alphas)
        # Spread the timed subset over the α grid (instances are laid out α-major).
        pick = np.linspace(0, total - 1, args.baseline_instances).astype(int)
        start = time.perf_counter()
        loop = [numpy_efficiency(w[i], r[i], s[i], kind[i], a_np[i]) for i in pick]
        loop_s = (time.perf_counter() - start) / len(pick) * total
        err = np.max(np.abs(np.asarray(loop) - jax_ratio[pick]))
        print(f"NumPy loop: {len(pick)} instances timed, max |ratio difference| vs JAX = {err:.2e}")
        report_ratio(
            f"RA3 sweep ({len(ALPHAS)} α × {args.num} instances × 8 agents)",
            loop_s,
            jax_s,
            baseline="numpy loop (scaled)",
            candidate="jax vmap+jit",
            goal=20,
        )

        rows = np.arange(min(args.batch_slice, total))
        start = time.perf_counter()
        batch = numpy_efficiency(w[rows], r[rows], s[rows], kind[rows], a_np[rows])
        batch_s = (time.perf_counter() - start) / len(rows) * total
        assert np.max(np.abs(batch - jax_ratio[rows])) < 1e-10
        report_ratio(
            "RA3 sweep vs batched NumPy",
            batch_s,
            jax_s,
            baseline="numpy batched (scaled)",
            candidate="jax vmap+jit",
        )


if __name__ == "__main__":
    main()
