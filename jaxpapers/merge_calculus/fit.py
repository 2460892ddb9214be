"""Log-log fits with bootstrap CIs over graphs, and transfer-error metrics (spec protocol step 5, MC5)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core.checks import check_range


@dataclasses.dataclass(frozen=True)
class PowerLawFit:
    """OLS of log y = intercept + slope·log x: the slope, R² and a bootstrap 95% CI of the slope (resampling points)."""

    slope: float
    intercept: float
    r2: float
    ci: tuple[float, float]


def _ols(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float, float]:
    xm, ym = lx.mean(), ly.mean()
    sxx = float(np.sum((lx - xm) ** 2))
    if sxx == 0:
        return float("nan"), float(ym), 0.0
    slope = float(np.sum((lx - xm) * (ly - ym)) / sxx)
    intercept = float(ym - slope * xm)
    resid = ly - intercept - slope * lx
    sst = float(np.sum((ly - ym) ** 2))
    r2 = 1.0 - float(np.sum(resid**2)) / sst if sst > 0 else 1.0
    return slope, intercept, r2


def power_law_fit(
    x: Sequence[float] | ArrayLike, y: Sequence[float] | ArrayLike, *, n_boot: int = 2000, seed: int = 0
) -> PowerLawFit:
    """Fits y ∝ x^slope over graphs; the CI resamples graphs with replacement (degenerate resamples dropped)."""
    lx, ly = np.log(np.asarray(x, np.float64)), np.log(np.asarray(y, np.float64))
    if lx.shape != ly.shape or lx.ndim != 1 or lx.size < 2:
        raise ValueError(f"power_law_fit needs two equal-length 1-D arrays of >= 2 points, got {lx.shape}, {ly.shape}")
    if not (np.all(np.isfinite(lx)) and np.all(np.isfinite(ly))):
        raise ValueError("power_law_fit needs positive, finite x and y")
    check_range("n_boot", n_boot, 1)
    slope, intercept, r2 = _ols(lx, ly)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, lx.size, (n_boot, lx.size))
    bx, by = lx[idx], ly[idx]
    bxm = bx - bx.mean(1, keepdims=True)
    sxx = np.sum(bxm**2, 1)
    ok = sxx > 1e-12
    slopes = np.sum(bxm * (by - by.mean(1, keepdims=True)), 1)[ok] / sxx[ok]
    lo, hi = np.quantile(slopes, [0.025, 0.975]) if slopes.size else (np.nan, np.nan)
    return PowerLawFit(slope, intercept, r2, (float(lo), float(hi)))


def geometric_error(predicted: Sequence[float] | ArrayLike, measured: Sequence[float] | ArrayLike) -> float:
    """Geometric-mean error factor exp(mean |log η̂ − log η*|) (the mean, not the median: see MC5)."""
    p, m = np.asarray(predicted, np.float64), np.asarray(measured, np.float64)
    if p.shape != m.shape or p.size == 0:
        raise ValueError(f"geometric_error needs equal, non-empty shapes, got {p.shape}, {m.shape}")
    return float(np.exp(np.mean(np.abs(np.log(p) - np.log(m)))))
