"""Timely density and hallucination measurements (spec "metrics"), batched over a leading run axis."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int


def timely_density_curve(
    credit_time: Int[ArrayLike, "*b u2"],
    k_elements: Int[ArrayLike, " n"],
    f_table: Int[ArrayLike, " m"],
    T: int,
) -> Float[Array, "*b n"]:
    """d_f(n) for n = 1..len(k_elements): the fraction of K[≤n] credited by f(rank); NaN where f(n) > T.

    ``k_elements`` are K's smallest elements in increasing order, so element r − 1 has rank r in K (spec
    Pitfall: rank, not value). ``f_table[n]`` = f(n)."""
    ct = jnp.asarray(credit_time)
    s = jnp.asarray(k_elements)
    ranks = jnp.arange(1, s.shape[0] + 1)
    f = jnp.asarray(f_table)[ranks]
    credited = ct[..., s] <= f
    d = jnp.cumsum(credited, axis=-1) / ranks
    return jnp.where(f <= T, d, jnp.nan)


def untimed_density_curve(
    credit_time: Int[ArrayLike, "*b u2"], k_elements: Int[ArrayLike, " n"], T: int
) -> Float[Array, "*b n"]:
    """Density without deadlines: s is credited if output at any time ≤ T (claim T4's control)."""
    ct = jnp.asarray(credit_time)
    s = jnp.asarray(k_elements)
    return jnp.cumsum(ct[..., s] <= T, axis=-1) / jnp.arange(1, s.shape[0] + 1)


def hallucination_curve(halluc: Bool[ArrayLike, "*b T"]) -> Float[Array, "*b T"]:
    """h(t) = |{τ ≤ t : o_τ ∉ K}| / t."""
    h = jnp.asarray(halluc)
    return jnp.cumsum(h, axis=-1) / jnp.arange(1, h.shape[-1] + 1)


def phase_end_densities(curve: Float[ArrayLike, "*b n"], ends: Int[ArrayLike, " p"]) -> Float[Array, "*b p"]:
    """d_f(V_p) at the phase ends V_p (1-based scales)."""
    return jnp.asarray(curve)[..., jnp.asarray(ends) - 1]


def slope_times(T: int, points: int = 20, span: int = 64) -> np.ndarray:
    """``points`` log-spaced integer times in [T/span, T] (spec slope rule)."""
    return np.unique(np.round(np.geomspace(max(T / span, 1), T, points)).astype(np.int64))


def loglog_slope(h: Float[ArrayLike, " T"], T: int | None = None, points: int = 20, span: int = 64) -> float:
    """Least-squares slope of log h(t) on log t at 20 log-spaced integer t in [T/64, T] (−inf-safe: h > 0)."""
    h = np.asarray(h, np.float64)
    T = h.size if T is None else T
    t = slope_times(T, points, span)
    y = h[t - 1]
    if np.any(y <= 0):
        return float("-inf")
    return float(np.polyfit(np.log(t), np.log(y), 1)[0])
