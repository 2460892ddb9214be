"""Cost model of the reverse simulation (spec "Reverse simulation cost"): score evaluations with a KV cache."""

from __future__ import annotations

import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.core.checks import check_range


def score_evals(n: int, T: Int[ArrayLike, "*b"], heads_per_layer):
    """S(n, T) = H_tot·Σ_{i=n}^{n+T−1}(i+1) = H_tot·T(2n+T+1)/2 (queries from START to the last STEP)."""
    check_range("n", n, 0, None)
    T = np.asarray(T, np.int64)
    h_tot = int(np.sum(heads_per_layer))
    return h_tot * T * (2 * n + T + 1) // 2


def local_slope(n: int, T):
    """d log S / d log T = 1 + T/(T + 2n + 1)."""
    T = np.asarray(T, np.float64)
    return 1.0 + T / (T + 2 * n + 1)


def fit_exponent(xs, ys) -> float:
    """OLS slope of log y on log x."""
    lx, ly = np.log(np.asarray(xs, np.float64)), np.log(np.asarray(ys, np.float64))
    if lx.size < 2:
        raise ValueError(f"fit_exponent needs at least 2 points; got {lx.size}")
    return float(np.polyfit(lx, ly, 1)[0])
