"""Small statistics helpers used by claims: log-log exponent fits and means with standard errors."""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class LogLogFit:
    """OLS fit of log(y) = intercept + slope·log(x), with the slope's standard error, 95% CI and R²."""

    slope: float
    intercept: float
    stderr: float
    ci95: tuple[float, float]
    r2: float
    n: int

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.exp(self.intercept) * np.asarray(x, dtype=np.float64) ** self.slope


def fit_loglog(x, y) -> LogLogFit:
    """Fits a power law y ∝ x^slope by least squares in log space (natural logs)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lx, ly = np.log(np.asarray(x, np.float64)), np.log(np.asarray(y, np.float64))
    if lx.size < 2 or not (np.all(np.isfinite(lx)) and np.all(np.isfinite(ly))):
        raise ValueError("fit_loglog needs at least two positive, finite (x, y) points")
    from scipy import stats as sps  # imported on use: scipy.stats costs seconds at import

    res = sps.linregress(lx, ly)
    n = lx.size
    half = float(sps.t.ppf(0.975, n - 2) * res.stderr) if n > 2 else float("inf")
    return LogLogFit(
        float(res.slope),
        float(res.intercept),
        float(res.stderr),
        (float(res.slope) - half, float(res.slope) + half),
        float(res.rvalue**2),
        n,
    )


def mean_se(x, axis: int | None = None) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Mean and standard error of the mean (ddof=1)."""
    x = np.asarray(x, np.float64)
    n = x.size if axis is None else x.shape[axis]
    return x.mean(axis=axis), x.std(axis=axis, ddof=1) / np.sqrt(max(n, 1)) if n > 1 else np.zeros_like(
        x.mean(axis=axis)
    )
