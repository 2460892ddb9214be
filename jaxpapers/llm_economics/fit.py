"""Log-log exponent fits of sweep outputs (spec "Solver", step 6), on top of :func:`jaxpapers.core.stats.fit_loglog`."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from jaxpapers.core.stats import LogLogFit, fit_loglog


def loglog_slope(x, y) -> tuple[float, float]:
    """(slope, R²) of the OLS fit log y = c + slope·log x."""
    fit = fit_loglog(x, y)
    return fit.slope, fit.r2


def fit_exponents(x, series: Mapping[str, np.ndarray]) -> dict[str, LogLogFit]:
    """One log-log fit per named series against ``x`` (e.g. N*, D*, C*, spend against E)."""
    return {name: fit_loglog(x, np.asarray(y, dtype=np.float64)) for name, y in series.items()}
