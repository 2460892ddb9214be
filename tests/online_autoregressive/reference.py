"""Independent references: generators simulated on explicit token strings, brute-force threshold tests."""

from __future__ import annotations

import numpy as np

from jaxpapers.online_autoregressive.reference import (  # noqa: F401  (re-exported for the tests)
    greedy_halving_expectation,
    ltf_on_string,
    ltf_tables_by_weights,
    run_on_string,
)


def latch_on_string(k, s) -> int:
    """f_k(s) = 1 iff |s| = k or s contains a 1 (spec Family 1), on an explicit token list."""
    return int(len(s) == k or 1 in s)


def is_threshold(table: np.ndarray, d: int) -> bool:
    """LP test: is there (w, θ) ∈ R^{d+1} with <w,x> - θ ≥ 1 on the 1s and ≤ 0 on the 0s? (any strict
    separation scales to this margin), solved by SciPy's HiGHS: independent of the integer-weight enumeration."""
    from scipy.optimize import linprog

    bits = ((np.arange(2**d)[:, None] >> np.arange(d)[None, :]) & 1).astype(float)
    a = np.hstack([bits, -np.ones((2**d, 1))])  # rows: <w,x> - θ
    sign = np.where(table, -1.0, 1.0)[:, None]  # 1s: -(<w,x>-θ) ≤ -1 ; 0s: <w,x>-θ ≤ 0
    b = np.where(table, -1.0, 0.0)
    res = linprog(np.zeros(d + 1), A_ub=sign * a, b_ub=b, bounds=[(None, None)] * (d + 1), method="highs")
    return res.status == 0
