"""Sampling by integrating dx/dt = v(x, t) from x(0) ~ N(0, I) to t = 1 (spec "Sampling and W2").

:func:`integrate` runs RK4 (default, 50 steps) or Euler in one ``lax.scan`` on a uniform grid and can return
the trajectory at every solver time. :func:`lipschitz_along` estimates Λ̂ = ∫₀¹ max_points ‖∂_x v(x, t)‖₂ dt
along a trajectory (trapezoid in t) from a Jacobian function; for the two-layer net the closed form
:func:`~jaxpapers.flow_matching.model.jacobian_x` replaces ``jax.jacfwd``. Λ̂ under-estimates the true
Lipschitz constant (it looks only at the generated points): it is an estimate.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_choice, check_range

METHODS = ("rk4", "euler")


def integrate(
    v_fn: Callable[[Array, Array], Array],
    x0: Float[Array, "n d"],
    steps: int = 50,
    method: str = "rk4",
    *,
    return_path: bool = False,
):
    """x(1) from x(0) = ``x0`` under dx/dt = ``v_fn(x, t)`` (``t`` a scalar); with ``return_path`` also the
    states at the ``steps + 1`` grid times ``[steps + 1, n, d]``."""
    check_range("steps", steps, 1)
    check_choice("method", method, METHODS)
    h = 1.0 / steps

    def step(x, k):
        t = k * h
        if method == "euler":
            x_new = x + h * v_fn(x, t)
        else:
            k1 = v_fn(x, t)
            k2 = v_fn(x + 0.5 * h * k1, t + 0.5 * h)
            k3 = v_fn(x + 0.5 * h * k2, t + 0.5 * h)
            k4 = v_fn(x + h * k3, t + h)
            x_new = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return x_new, x_new

    ks = jnp.arange(steps, dtype=x0.dtype)
    x1, path = jax.lax.scan(step, x0, ks)
    if return_path:
        return x1, jnp.concatenate([x0[None], path], axis=0)
    return x1


def spectral_norms(jac: Float[Array, "n d d"]) -> Float[Array, " n"]:
    """‖J‖₂ of each matrix (largest singular value)."""
    return jnp.linalg.svd(jac, compute_uv=False)[..., 0]


def lipschitz_along(jac_fn: Callable[[Array, Array], Array], path: Float[Array, "k n d"]) -> Array:
    """Λ̂ = trapezoid over the grid tₖ = k/(K−1) of max over points of ‖jac_fn(x_k, t_k)‖₂."""
    times = jnp.linspace(0.0, 1.0, path.shape[0], dtype=path.dtype)
    peaks = jax.lax.map(lambda args: jnp.max(spectral_norms(jac_fn(*args))), (path, times))
    return jnp.trapezoid(peaks, times)
