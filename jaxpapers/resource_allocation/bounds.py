"""Closed forms: the price-of-anarchy bound, the tight families' efficiencies and our conjectured constants.

Everything here is float64 NumPy, independent of the JAX solver, so claims and tests can compare the
solver with it.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core.errors import ConfigError


def _alpha_array(alpha) -> np.ndarray:
    a = np.asarray(alpha, dtype=np.float64)
    if np.any(~((a > 0) & (a <= 1))):
        raise ConfigError(f"alpha={float(a[~((a > 0) & (a <= 1))].ravel()[0])!r} is out of range; allowed (0, 1]")
    return a


def poa_bound(alpha) -> np.ndarray:
    """Efficiency guarantee of the α-mechanism, ``(1 + 2√α)/(1 + √α)²`` (3/4 at α = 1, → 1 as α → 0)."""
    q = np.sqrt(_alpha_array(alpha))
    return (1 + 2 * q) / (1 + q) ** 2


def kelly_family_closed_form(n) -> np.ndarray:
    """Kelly's efficiency on the tight family (one slope-1 agent and n slope-1/2 agents): ``(3n+2)/(4n+2)``."""
    n = np.asarray(n, dtype=np.float64)
    return (3 * n + 2) / (4 * n + 2)


def tight_slope(alpha) -> np.ndarray:
    """Slope ``a* = 1/(1 + √α)`` of the n added agents of the α tight family (our derivation)."""
    return 1.0 / (1.0 + np.sqrt(_alpha_array(alpha)))


def alpha_family_efficiency(alpha, n, *, iters: int = 200) -> np.ndarray:
    """Equilibrium efficiency of the α tight family from the spec's linear-agent formulas (NumPy bisection).

    ``x_1 = (1-λ)/(1-(1-α)λ)``, ``x_s = (a*-λ)/(a*-(1-α)λ)``; λ is the root in (0, a*) of
    ``x_1 + n·x_s = 1``; the efficiency is ``x_1 + a*·n·x_s`` (OPT = 1). Broadcasts over α and n.
    """
    alpha, n = np.broadcast_arrays(_alpha_array(alpha), np.asarray(n, dtype=np.float64))
    a = tight_slope(alpha)
    lo, hi = np.zeros_like(alpha), a.copy()

    def shares(lam):
        return (1 - lam) / (1 - (1 - alpha) * lam), (a - lam) / (a - (1 - alpha) * lam)

    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        x1, xs = shares(mid)
        over = x1 + n * xs > 1
        lo, hi = np.where(over, mid, lo), np.where(over, hi, mid)
    x1, xs = shares(0.5 * (lo + hi))
    return x1 + a * n * xs


def revenue_conjecture(alpha) -> np.ndarray:
    """Our conjectured revenue guarantee ``Rev_NE/Rev_VCG ≥ 1/(1+α)`` (tight for two identical linear agents)."""
    return 1.0 / (1.0 + _alpha_array(alpha))


def two_linear_price(v: float, alpha) -> np.ndarray:
    """Equilibrium price of two identical linear agents of slope v: ``λ = v/(1+α)`` (each gets 1/2)."""
    return v / (1.0 + _alpha_array(alpha))


def first_price_share_bound(ratio_second: float, n: int, alpha: float) -> float:
    """Lower bound on the top bidder's share when every other bid is ≤ ``ratio_second`` × the top bid:
    ``1 - (n-1)·ratio^{1/α}`` (RA10: 1 - 7·1.01^{-1000} ≈ 0.99967 at n = 8, α = 1e-3)."""
    return 1.0 - (n - 1) * ratio_second ** (1.0 / alpha)
