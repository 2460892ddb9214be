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
    return np.asarray((1 + 2 * q) / (1 + q) ** 2)


def kelly_family_closed_form(n) -> np.ndarray:
    """Kelly's efficiency on the tight family (one slope-1 agent and n slope-1/2 agents): ``(3n+2)/(4n+2)``."""
    n = np.asarray(n, dtype=np.float64)
    return np.asarray((3 * n + 2) / (4 * n + 2))


def tight_slope(alpha) -> np.ndarray:
    """Slope ``a* = 1/(1 + √α)`` of the n added agents of the α tight family (our derivation)."""
    return np.asarray(1.0 / (1.0 + np.sqrt(_alpha_array(alpha))))


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
    return np.asarray(x1 + a * n * xs)


def revenue_conjecture(alpha) -> np.ndarray:
    """Our conjectured revenue guarantee ``Rev_NE/Rev_VCG ≥ 1/(1+α)`` (tight for two identical linear agents)."""
    return np.asarray(1.0 / (1.0 + _alpha_array(alpha)))


def two_linear_price(v: float, alpha) -> np.ndarray:
    """Equilibrium price of two identical linear agents of slope v: ``λ = v/(1+α)`` (each gets 1/2)."""
    return np.asarray(v / (1.0 + _alpha_array(alpha)))


def first_price_limit(w, r, s, kind, *, iters: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """The α → 0 limit of the α-mechanism's equilibrium, ``(λ0 [...], x0 [..., N])`` (RA10; README derivation).

    The equilibrium condition ``v_i'(x_i) = λ(1 + α x_i/(1 - x_i))`` tends to price taking, so the limit
    is the competitive outcome at the *lowest* market-clearing price
    ``λ0 = min{λ : Σ_i d_i(λ+) ≤ 1}`` with ``d_i(λ) = (v_i')^{-1}(λ)`` clipped to [0, 1] (a linear agent
    demands 1 below its slope and 0 above it). Non-linear agents take ``d_i(λ0)``; the linear agent of
    largest slope at or above λ0 takes what is left. For linear agents this is the first-price auction's
    complete-information equilibrium: the highest value wins everything at the second-highest value.

    Plain NumPy on ``(w, r, s, kind)`` arrays ``[..., N]`` (the fields of a ``Valuation``), written from the
    formulas of the valuation table, independent of the JAX code: bisection on λ over ``[0, max v'(0)]``.
    Ties between linear slopes at λ0 have no unique limit share (measure zero for random instances).
    """
    w, r, s, kind = (np.asarray(a, np.float64) for a in (w, r, s, kind))
    linear, power = kind == 0, kind == 1
    present = w > 0
    v0 = np.where(linear, w, np.where(power, w * s ** (-r), w / s))

    def demand(lam):
        lam = lam[..., None]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            d_power = (w / lam) ** (1.0 / np.where(power, r, 1.0)) - s
            d_log = w / lam - s
        d = np.where(linear, (w > lam).astype(np.float64), np.where(power, d_power, d_log))
        return np.clip(np.where(present, d, 0.0), 0.0, 1.0)

    lo = np.zeros(w.shape[:-1])
    hi = np.max(np.where(present, v0, 0.0), axis=-1)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        clears = demand(mid).sum(-1) <= 1.0
        lo, hi = np.where(clears, lo, mid), np.where(clears, mid, hi)
    lam0 = hi
    x0 = np.where(linear, 0.0, demand(lam0))
    top = np.argmax(np.where(linear & present, w, -np.inf), axis=-1)[..., None]
    has_linear = np.take_along_axis(linear & present & (w >= lam0[..., None] * (1 - 1e-9)), top, axis=-1)
    rest = np.clip(1.0 - x0.sum(-1, keepdims=True), 0.0, 1.0)
    np.put_along_axis(x0, top, np.where(has_linear, rest, np.take_along_axis(x0, top, axis=-1)), axis=-1)
    return lam0, x0
