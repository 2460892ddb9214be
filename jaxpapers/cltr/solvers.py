"""Exact minimizers of the convex partition losses: multinomial logistic regression with L2, by damped Newton.

The objective of a weighted sample (weights ``w_i >= 0`` summing to 1; 0/1-style weights select a subset, so
every partition, imbalance factor and seed shares one compiled program)::

    f(W) = sum_i w_i CE(W^T x_i, y_i) + (mu/2) ||W||_F^2 ,   W in R^{d x C}, theta = vec(W) (row-major)

with the analytic softmax Hessian (spec, Pitfalls)::

    H = sum_i w_i (diag(p_i) - p_i p_i^T) (x) x_i x_i^T + mu I      (index (a, c), (b, c'))

assembled as two GEMMs instead of ``jax.hessian``. :func:`damped_newton` takes the Newton direction and
the step in {1, 1/2, 1/4, 1/8, 1/16} (or none) with the smallest objective: undamped Newton from the Head
minimizer diverges at small IF_part.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float
from threadpoolctl import threadpool_limits

from jaxpapers.core.checks import require_x64
from jaxpapers.core.errors import ConfigError

STEPS = (1.0, 0.5, 0.25, 0.125, 0.0625)


def logreg_loss(
    theta: Float[Array, " P"], x: Float[Array, "N D"], y1h: Float[Array, "N C"], w: Float[Array, " N"], mu
) -> Float[Array, ""]:
    """``f(theta)`` above (``theta = vec(W)``, ``P = D*C``)."""
    logits = x @ theta.reshape(x.shape[1], y1h.shape[1])
    ce = jax.nn.logsumexp(logits, axis=1) - jnp.sum(logits * y1h, axis=1)
    return jnp.sum(w * ce) + 0.5 * mu * jnp.sum(theta**2)


def logreg_grad(theta, x, y1h, w, mu) -> Float[Array, " P"]:
    """``grad f = vec(sum_i w_i x_i (p_i - y_i)^T) + mu theta``."""
    p = jax.nn.softmax(x @ theta.reshape(x.shape[1], y1h.shape[1]), axis=1)
    return ((x * w[:, None]).T @ (p - y1h)).reshape(-1) + mu * theta


def logreg_hessian(theta, x, y1h, w, mu) -> Float[Array, "P P"]:
    """The analytic Hessian above, ``[D*C, D*C]``, from two GEMMs."""
    d, c = x.shape[1], y1h.shape[1]
    p = jax.nn.softmax(x @ theta.reshape(d, c), axis=1)
    diag = jnp.einsum("i,ic,ia,ib->acb", w, p, x, x)  # sum_i w_i p_ic x_ia x_ib
    z = (jnp.sqrt(w)[:, None, None] * x[:, :, None] * p[:, None, :]).reshape(x.shape[0], d * c)
    eye_c = jnp.eye(c, dtype=x.dtype)
    h = jnp.einsum("acb,ce->acbe", diag, eye_c).reshape(d * c, d * c) - z.T @ z
    return h + mu * jnp.eye(d * c, dtype=x.dtype)


def damped_newton(
    value_grad_hess: Callable,
    value: Callable,
    theta0: Float[Array, " P"],
    iters: int,
    *args,
    tol: float | Float[Array, ""] = 0.0,
) -> tuple[Float[Array, " P"], Float[Array, ""]]:
    """At most ``iters`` damped Newton steps on ``value(theta, *args)``; returns ``(theta, ||grad||)`` at the end.

    ``value_grad_hess(theta, *args) -> (g, H)``. Each step solves ``H d = g`` and moves to the candidate
    ``theta - s d`` (s in :data:`STEPS`, or 0) with the smallest value; values within rounding of the smallest
    (``8 eps |value|``) count as equal and the largest such step wins, so that Newton keeps converging once
    objective differences fall below float64 resolution. Stops early once ``||grad|| <= tol`` or when the step
    is 0 (no candidate improves: the iteration would repeat itself). Call inside ``jax.jit`` or vmap it.
    """
    scales = jnp.asarray((*STEPS, 0.0), theta0.dtype)
    eps = jnp.finfo(theta0.dtype).eps

    def cond(carry):
        _, g, _, k, moved = carry
        return (k < iters) & moved & (jnp.linalg.norm(g) > tol)

    def body(carry):
        theta, g, h, k, _ = carry
        d = jnp.linalg.solve(h, g)
        cands = theta[None] - scales[:, None] * d[None]
        vals = jax.vmap(lambda t: value(t, *args))(cands)
        vals = jnp.where(jnp.isfinite(vals), vals, jnp.inf)
        best = jnp.min(vals)
        pick = jnp.argmax(vals <= best + 8 * eps * jnp.abs(best))  # the largest step among the (rounding-)ties
        theta = cands[pick]
        g, h = value_grad_hess(theta, *args)
        return theta, g, h, k + 1, scales[pick] > 0

    g0, h0 = value_grad_hess(theta0, *args)
    theta, g, _, _, _ = jax.lax.while_loop(cond, body, (theta0, g0, h0, jnp.asarray(0), jnp.asarray(True)))
    return theta, jnp.linalg.norm(g)


def _grad_hess(theta, x, y1h, w, mu):
    return logreg_grad(theta, x, y1h, w, mu), logreg_hessian(theta, x, y1h, w, mu)


@functools.partial(jax.jit, static_argnames=("iters",))
def _solve_one(x, y1h, w, mu, theta0, tol, iters):
    # One row per call: rows converge after different numbers of steps (6-9 on LT-digits) and stop there, and
    # every sweep over the same pool (C1, C2) reuses this one compiled program whatever its number of rows.
    return damped_newton(_grad_hess, logreg_loss, theta0, iters, x, y1h, w, mu, tol=tol)


@contextlib.contextmanager
def single_thread_blas():
    """One BLAS/LAPACK thread for the solves (XLA:CPU's LAPACK calls go through SciPy's OpenBLAS, which is
    loaded first so that the limit reaches it): on a loaded 2-core machine a threaded 170x170 solve is
    50-100x slower (spec, Pitfalls)."""
    import scipy.linalg  # noqa: F401  (loads OpenBLAS before the limit is applied)

    with threadpool_limits(1):
        yield


def solve_logreg(
    x: Float[ArrayLike, "N D"],
    y1h: Float[ArrayLike, "N C"],
    w: Float[ArrayLike, "B N"],
    mu: float,
    *,
    iters: int = 25,
    tol: float = 1e-12,
    theta0: Float[ArrayLike, "B P"] | None = None,
) -> tuple[Float[Array, "B P"], Float[Array, " B"]]:
    """Minimizers ``theta [B, D*C]`` of ``f`` for every weight row of ``w`` (one compiled single-row program
    applied to each row; ``mu``, ``w``, ``tol`` and ``theta0`` are traced) and their gradient norms, with one
    BLAS thread. Each row runs until ``||grad|| <= tol`` or ``iters`` steps. float64 only."""
    require_x64("solve_logreg")
    x, y1h, w = (jnp.asarray(a, jnp.float64) for a in (x, y1h, w))
    if theta0 is None:
        theta0 = jnp.zeros((w.shape[0], x.shape[1] * y1h.shape[1]), jnp.float64)
    if w.ndim != 2 or w.shape[1] != x.shape[0]:
        raise ConfigError(f"w has shape {tuple(w.shape)}; expected [B, N={x.shape[0]}]")
    theta0 = jnp.asarray(theta0, jnp.float64)
    mu, tol = jnp.asarray(mu, jnp.float64), jnp.asarray(tol, jnp.float64)
    with single_thread_blas():
        out = [_solve_one(x, y1h, w[i], mu, theta0[i], tol, iters) for i in range(w.shape[0])]
        theta, g = jnp.stack([o[0] for o in out]), jnp.stack([o[1] for o in out])
        return jax.block_until_ready(theta), g
