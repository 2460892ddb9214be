"""Benchmark: the exact float64 minimizers of C2 (multinomial logistic regression with L2 on LT-digits, PCA-16
+ bias: the LT subset and its Head part of every seed x profile x class IF, LDAM draws) at the quick size.

    .venv/bin/python benchmarks/cltr.py
    .venv/bin/python benchmarks/cltr.py --seeds 1 --ifs 5 100

Implementations, timed interleaved (``core.bench.time_interleaved``, medians of wall time), one BLAS thread:

* JAX — ``solve_logreg``: one compiled damped-Newton program (analytic softmax Hessian, step selection,
  early stop at ``||grad|| <= 1e-12``) applied to every weight row (warm);
* the same damped Newton written in NumPy, row by row (same Hessian, same steps, same stopping rule);
* SciPy ``minimize(method="trust-exact")`` with the analytic gradient and Hessian, row by row.

All three reach the same minimizers (the largest distance to the JAX solution is printed).
"""

from __future__ import annotations

import argparse

import jax
import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from jaxpapers.cltr import DigitsConfig, load_digits_split, lt_counts, make_long_tailed, solve_logreg
from jaxpapers.core.bench import report_ratio, time_interleaved

STEPS = (1.0, 0.5, 0.25, 0.125, 0.0625, 0.0)


def _loss(theta, x, y1h, w, mu):
    z = x @ theta.reshape(x.shape[1], y1h.shape[1])
    m = z.max(1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(1))
    return float(np.sum(w * (lse - (z * y1h).sum(1))) + 0.5 * mu * theta @ theta)


def _grad_hess(theta, x, y1h, w, mu):
    d, c = x.shape[1], y1h.shape[1]
    z = x @ theta.reshape(d, c)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    g = ((x * w[:, None]).T @ (p - y1h)).reshape(-1) + mu * theta
    diag = np.einsum("i,ic,ia,ib->acb", w, p, x, x)
    zz = (np.sqrt(w)[:, None, None] * x[:, :, None] * p[:, None, :]).reshape(len(x), d * c)
    h = np.einsum("acb,ce->acbe", diag, np.eye(c)).reshape(d * c, d * c) - zz.T @ zz + mu * np.eye(d * c)
    return g, h


def numpy_newton(x, y1h, w, mu, iters=40, tol=1e-12):
    theta = np.zeros(x.shape[1] * y1h.shape[1])
    g, h = _grad_hess(theta, x, y1h, w, mu)
    for _ in range(iters):
        if np.linalg.norm(g) <= tol:
            break
        d = np.linalg.solve(h, g)
        vals = np.asarray([_loss(theta - s * d, x, y1h, w, mu) for s in STEPS])
        best = vals.min()
        s = STEPS[int(np.argmax(vals <= best + 8 * np.finfo(float).eps * abs(best)))]
        if s == 0.0:
            break
        theta = theta - s * d
        g, h = _grad_hess(theta, x, y1h, w, mu)
    return theta


def scipy_trust_exact(x, y1h, w, mu):
    return minimize(
        _loss,
        np.zeros(x.shape[1] * y1h.shape[1]),
        args=(x, y1h, w, mu),
        jac=lambda t, *a: _grad_hess(t, *a)[0],
        hess=lambda t, *a: _grad_hess(t, *a)[1],
        method="trust-exact",
        options={"gtol": 1e-10},
    ).x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--ifs", type=float, nargs="+", default=[5, 10, 20, 50, 100])
    ap.add_argument("--mu", type=float, default=1e-2)
    args = ap.parse_args()
    jax.config.update("jax_enable_x64", True)
    d = load_digits_split(DigitsConfig(features="pca", pca_dim=16, whiten=True, bias=True))
    x, y = d.x_pool, d.y_pool
    y1h = np.eye(10)[y]
    rows = []
    for s in range(args.seeds):
        for prof in ("step", "exp"):
            for imb in args.ifs:
                sel = np.zeros(len(y), bool)
                sel[make_long_tailed(y, lt_counts(10, 130, imb, prof), s)] = True
                rows += [sel / sel.sum(), (sel & (y < 5)) / np.sum(sel & (y < 5))]
    w = np.unique(np.stack(rows), axis=0)
    print(f"{len(w)} distinct weight rows over a pool of {len(y)} images, {x.shape[1] * 10} parameters each")

    def jax_run():
        return solve_logreg(x, y1h, w, args.mu, iters=40, tol=1e-12)[0]

    def numpy_run():
        with threadpool_limits(1):
            return np.stack([numpy_newton(x, y1h, wi, args.mu) for wi in w])

    def scipy_run():
        with threadpool_limits(1):
            return np.stack([scipy_trust_exact(x, y1h, wi, args.mu) for wi in w])

    ref = np.asarray(jax_run())
    print(
        f"max |theta - theta_jax|: numpy Newton {np.abs(numpy_run() - ref).max():.1e}, "
        f"scipy trust-exact {np.abs(scipy_run() - ref).max():.1e}"
    )
    t = time_interleaved({"jax": jax_run, "numpy": numpy_run, "scipy": scipy_run}, rounds=3)
    report_ratio("C2 minimizers vs NumPy damped Newton", t["numpy"], t["jax"], baseline="numpy loop", goal=1)
    report_ratio("C2 minimizers vs SciPy trust-exact", t["scipy"], t["jax"], baseline="scipy loop", goal=1)


if __name__ == "__main__":
    main()
