"""Theorems A and B (our reconstruction) and the quantities the claims measure.

Theorem A (neighbourhood of the Head solution). With ``L = (n_H L_H + n_T L_T)/n``, ``r = n_T/n_H`` and
``L_H`` mu-strongly convex, strong convexity at ``theta_H*`` plus optimality of ``theta*`` give::

    ||theta* - theta_H*||^2 <= (2/mu) r [L_T(theta_H*) - L_T(theta*)] <= (2/mu) r [L_T(theta_H*) - min L_T]

Linear response (our derivation): ``theta* - theta_H* ~ -r H_H^{-1} grad L_T(theta_H*)`` as ``r -> 0``.

Theorem B (the CL objective bounds the balanced loss). If ``L_H`` is beta-smooth::

    L_H(theta) + L_T(theta) <= L_H(theta_H*) + L_T(theta) + (beta/2) ||theta - theta_H*||^2

For softmax cross-entropy + L2 on a linear classifier, ``beta = lambda_max(X_H^T X_H / n_H)/2 + mu`` is a
global constant (the logit Hessian ``diag(p) - p p^T <= I/2``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float
from threadpoolctl import threadpool_limits

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.stats import fit_loglog


def neighborhood_bound(mu: float, r: ArrayLike, lt_at_head: ArrayLike, lt_min: ArrayLike) -> np.ndarray:
    """Theorem A's radius ``sqrt((2/mu) r [L_T(theta_H*) - lt_min])`` (``lt_min = L_T(theta*)`` or ``min L_T``)."""
    check_range("mu", mu, 0.0, lo_open=True)
    check_range("r", r, 0.0)
    gap = np.asarray(lt_at_head, np.float64) - np.asarray(lt_min, np.float64)
    return np.asarray(np.sqrt(2.0 / mu * np.asarray(r, np.float64) * np.maximum(gap, 0.0)))


def linear_response_radius(
    r: ArrayLike, hess_head: Float[ArrayLike, "P P"], grad_tail: Float[ArrayLike, " P"]
) -> np.ndarray:
    """``r ||H_H^{-1} grad L_T(theta_H*)||``: the first-order distance as ``r -> 0`` (NumPy, one-thread BLAS)."""
    with threadpool_limits(1, user_api="blas"):
        step = np.linalg.solve(np.asarray(hess_head, np.float64), np.asarray(grad_tail, np.float64))
    return np.asarray(np.asarray(r, np.float64) * np.linalg.norm(step))


def global_beta(x_head: Float[ArrayLike, "N D"], mu: float) -> float:
    """``beta = lambda_max(X_H^T X_H / n_H)/2 + mu``: a global smoothness constant of ``L_H`` (Theorem B)."""
    x = np.asarray(x_head, np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ConfigError(f"x_head has shape {x.shape}; expected [n_H > 0, d]")
    with threadpool_limits(1, user_api="blas"):
        lam = np.linalg.eigvalsh(x.T @ x / x.shape[0])[-1]
    return float(0.5 * lam + mu)


def smoothness_constant(
    loss_fn: Callable, params: Float[Array, " P"], *data, iters: int = 100, key: jax.Array | None = None
) -> tuple[float, Float[Array, " P"]]:
    """The top Hessian eigenvalue of ``loss_fn(params, *data)`` at ``params`` (the *local* beta) and its unit
    eigenvector, by power iteration on Hessian-vector products ``jax.jvp(jax.grad(loss_fn))``."""
    check_range("iters", iters, 1)
    key = jax.random.key(0) if key is None else key
    grad = jax.grad(loss_fn)

    @jax.jit
    def run(p, v0, *d):
        def hvp(v):
            return jax.jvp(lambda q: grad(q, *d), (p,), (v,))[1]

        def body(v, _):
            hv = hvp(v)
            return hv / jnp.linalg.norm(hv), None

        v, _ = jax.lax.scan(body, v0 / jnp.linalg.norm(v0), length=iters)
        return jnp.vdot(v, hvp(v)), v

    v0 = jax.random.normal(key, params.shape, params.dtype)
    lam, v = run(params, v0, *data)
    return float(lam), v


def cl_upper_bound(
    lh_theta: ArrayLike, lh_star: float, lt_theta: ArrayLike, beta: float, sqdist: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Theorem B's two sides: ``(L_H + L_T, L_H(theta_H*) + L_T + beta/2 ||theta - theta_H*||^2)`` at theta."""
    lt = np.asarray(lt_theta, np.float64)
    return np.asarray(lh_theta, np.float64) + lt, lh_star + lt + 0.5 * beta * np.asarray(sqdist, np.float64)


def loglog_slope(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, window=None) -> float:
    """OLS slope of ``log y`` on ``log x`` over the points with ``window[0] <= x <= window[1]`` (all when None)."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ConfigError(f"x has shape {x.shape} and y {y.shape}; expected two 1-d arrays of one length")
    keep = np.ones_like(x, bool) if window is None else (x >= window[0]) & (x <= window[1])
    if keep.sum() < 2:
        raise ConfigError(f"window={window!r} keeps {int(keep.sum())} point(s) of x={x.tolist()}; needs two")
    return fit_loglog(x[keep], y[keep]).slope
