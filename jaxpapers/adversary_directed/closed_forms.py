"""Predicted values only (spec "closed_forms.py"): never used as measurements.

Exact sequences listed by the spec for classes without a closed form (intervals, unions of ≤ 2 intervals,
the adaptive-order class's transductive value) are the spec's measured references, kept here as predictions.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "AO_TRANSDUCTIVE",
    "INTERVALS",
    "UNIONS2",
    "k_sparse_value",
    "linear_value",
    "singletons_randomized",
    "thresholds_value",
]

INTERVALS = {T: v for T, v in enumerate((1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5), start=1)}
UNIONS2 = {T: v for T, v in enumerate((1, 2, 3, 4, 4, 5, 5, 6, 6, 7), start=1)}
AO_TRANSDUCTIVE = {3: 2, 4: 3, 5: 3, 6: 4, 7: 4}


def thresholds_value(T):
    """⌊log2(T + 1)⌋: adversary-directed thresholds (and their Ldim on T points)."""
    return np.floor(np.log2(np.asarray(T, np.float64) + 1.0))


def k_sparse_value(T, k: int):
    """min(T, k) (singletons ∪ ∅: k = 1)."""
    return np.minimum(np.asarray(T, np.float64), k)


def linear_value(T, randomized: bool = False):
    """T (deterministic) or T/2 (randomized) for all subsets and the prefix class."""
    T = np.asarray(T, np.float64)
    return T / 2 if randomized else T


def singletons_randomized(T):
    """1 − 2^{−T}: the randomized value of singletons ∪ ∅ on T points."""
    return 1.0 - 2.0 ** (-np.asarray(T, np.float64))
