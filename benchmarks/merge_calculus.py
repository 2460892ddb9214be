"""Benchmark: the LR sweep of one graph at the quick size (chain P = 2 on digits, width 64, batch 64, T = 80,
16 learning rates × 2 seeds) — one jitted program vmapped over seeds and learning rates — against (a) the plain
NumPy loop a theorist would write (hand-written backprop, one (seed, η) run at a time) and (b) the same loop
vectorised over all 32 runs with batched ``np.matmul``. The JAX time excludes compilation (reported separately;
it is paid once per graph shape). Also: C(G) by the linear-time calculus against Chen's path sum by explicit
enumeration on a residual net with 2^12 paths.

    .venv/bin/python benchmarks/merge_calculus.py
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxpapers.merge_calculus as mc
from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.merge_calculus.experiments.identities import chen_by_enumeration
from jaxpapers.merge_calculus.sweep import data_order

P, WIDTH, BATCH, STEPS, SEEDS = 2, 64, 64, 80, (0, 1)
LRS = np.geomspace(0.03, 3, 16)


def _chain_weights(params, n_lin):
    return [params[f"edge_{i}_{i + 1}"]["kernel"].astype(np.float64) for i in range(n_lin)] + [
        params["readout"]["kernel"].astype(np.float64)
    ]


def numpy_run(weights, mult, lr, x_all, y_all, idx):
    """One μP SGD run of a chain by hand-written backprop (the theorist's loop); returns the per-step losses."""
    w = [a.copy() for a in weights]
    losses = np.empty(len(idx))
    for t, rows in enumerate(idx):
        x, y = x_all[rows], y_all[rows]
        hs, acts = [], [x]
        for i in range(len(w) - 1):
            h = acts[-1] @ w[i]
            hs.append(h)
            acts.append(np.maximum(h, 0))
        logits = acts[-1] @ w[-1]
        z = logits - logits.max(1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
        losses[t] = -np.mean(np.log(p[np.arange(len(y)), y]))
        d = p.copy()
        d[np.arange(len(y)), y] -= 1
        d /= len(y)
        grads = [None] * len(w)
        grads[-1] = acts[-1].T @ d
        dh = (d @ w[-1].T) * (hs[-1] > 0)
        for i in range(len(w) - 2, -1, -1):
            grads[i] = acts[i].T @ dh
            if i:
                dh = (dh @ w[i].T) * (hs[i - 1] > 0)
        for i in range(len(w)):
            w[i] -= lr * mult[i] * grads[i]
    return losses


def numpy_batched(weights_by_seed, mult, lrs, x_all, y_all, idx):
    """All (seed, η) runs at once: weights [R, ...], batched matmuls; returns losses [S, L, T]."""
    S, L = len(weights_by_seed), len(lrs)
    w = [np.repeat(np.stack([ws[i] for ws in weights_by_seed]), L, axis=0) for i in range(len(weights_by_seed[0]))]
    lr = np.tile(lrs, S)[:, None, None]
    rows_r = np.repeat(idx, L, axis=0)  # [R, T, B]
    losses = np.empty((S * L, idx.shape[1]))
    ar = np.arange(idx.shape[2])
    for t in range(idx.shape[1]):
        x, y = x_all[rows_r[:, t]], y_all[rows_r[:, t]]
        hs, acts = [], [x]
        for i in range(len(w) - 1):
            h = acts[-1] @ w[i]
            hs.append(h)
            acts.append(np.maximum(h, 0))
        logits = acts[-1] @ w[-1]
        z = logits - logits.max(2, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(2, keepdims=True)
        losses[:, t] = -np.mean(np.log(np.take_along_axis(p, y[..., None], 2)[..., 0]), axis=1)
        d = p.copy()
        d[np.arange(len(y))[:, None], ar[None], y] -= 1
        d /= y.shape[1]
        grads = [None] * len(w)
        grads[-1] = acts[-1].transpose(0, 2, 1) @ d
        dh = (d @ w[-1].transpose(0, 2, 1)) * (hs[-1] > 0)
        for i in range(len(w) - 2, -1, -1):
            grads[i] = acts[i].transpose(0, 2, 1) @ dh
            if i:
                dh = (dh @ w[i].transpose(0, 2, 1)) * (hs[i - 1] > 0)
        for i in range(len(w)):
            w[i] -= lr * mult[i] * grads[i]
    return losses.reshape(S, L, -1)


def main() -> None:
    np.seterr(over="ignore", invalid="ignore")  # the largest learning rates diverge, as in the sweep
    d = mc.digits()
    g = mc.chain(P)
    n_out, d_in = 10, d["x"].shape[1]
    x_np, y_np = d["x"].astype(np.float64), d["y"]
    idx = data_order(len(y_np), SEEDS, STEPS, BATCH)
    params = [mc.init_params(g, WIDTH, n_out, d_in, s) for s in SEEDS]
    weights = [_chain_weights(p, P + 1) for p in params]
    mult = [float(WIDTH)] + [1.0] * P + [1.0 / WIDTH]
    stacked = jax.tree.map(lambda *a: jnp.stack(a), *params)
    args = (stacked, jnp.asarray(LRS, jnp.float32), jnp.asarray(idx), jnp.asarray(d["x"]), jnp.asarray(d["y"]))
    program = mc.sweep_program(g, WIDTH, n_out)
    start = time.perf_counter()
    compiled = program.lower(*args).compile()
    compile_s = time.perf_counter() - start
    jax_losses = np.asarray(compiled(*args))
    ref = numpy_run(weights[1], mult, LRS[5], x_np, y_np, idx[1])
    print(
        f"agreement (seed 1, η = {LRS[5]:.3f}): max |Δloss| = {np.max(np.abs(jax_losses[1, 5] - ref)):.2e}; "
        f"JAX compile {compile_s:.2f} s (once per graph)"
    )
    one = lambda: numpy_run(weights[0], mult, LRS[0], x_np, y_np, idx[0])  # noqa: E731
    times = time_interleaved(
        {
            "jax": lambda: compiled(*args),
            "one_run": one,
            "batched": lambda: numpy_batched(weights, mult, LRS, x_np, y_np, idx),
        },
        rounds=3,
        min_time_s=0.0,
    )
    runs = len(SEEDS) * len(LRS)
    report_ratio(
        f"LR sweep chain P={P} ({runs} runs × {STEPS} steps)",
        times["one_run"] * runs,
        times["jax"],
        baseline="NumPy loop (one run at a time, ×32)",
        candidate="jit(vmap(vmap(scan)))",
    )
    report_ratio(
        "LR sweep, vectorised baseline",
        times["batched"],
        times["jax"],
        baseline="batched NumPy",
        candidate="jit(vmap(vmap(scan)))",
    )
    big = mc.residual(12)
    t = time_interleaved(
        {"calculus": lambda: mc.merge_coefficient(big), "paths": lambda: chen_by_enumeration(big)},
        rounds=3,
        min_time_s=0.0,
    )
    report_ratio(
        "res K=12 coefficient (2^12 paths)",
        t["paths"],
        t["calculus"],
        baseline="path enumeration",
        candidate="linear-time calculus",
    )


if __name__ == "__main__":
    main()
