"""Padding (spec "Padding inside the CoT") and the translational ladder of the hierarchy proof.

``pad_input`` writes x·#^{p(|x|)−|x|}; ``pad_tm`` is M with '#' (a new last symbol) read as blank;
``collapse_depth(eps)`` is the smallest k with (1+ε)^k > 2, ``ladder(a, eps, k)`` the exponents
a(1+ε)^j, j = 0..k, that a collapse CoT(n^{a(1+ε)}) ⊆ CoT(n^a) would propagate down to n^a.
"""

from __future__ import annotations

import math

import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.cot_hierarchy.tm import TM, make_tm


def pad_value(pad_poly: tuple, n: Int[ArrayLike, "*b"]):
    """p(n) = c0 + c1·n + c2·n²."""
    c0, c1, c2 = pad_poly
    n = np.asarray(n, np.int64)
    return c0 + c1 * n + c2 * n * n


def pad_input(x: Int[ArrayLike, " n"], pad_poly: tuple, pad_symbol: int):
    """x·#^{p(|x|)−|x|} (raises when p(|x|) < |x|)."""
    x = np.asarray(x)
    p = int(pad_value(pad_poly, x.shape[0]))
    if p < x.shape[0]:
        raise ConfigError(f"pad_poly={pad_poly!r} gives p({x.shape[0]})={p} < n; padding needs p(n) ≥ n")
    return np.concatenate([x, np.full(p - x.shape[0], pad_symbol, x.dtype)])


def pad_tm(tm: TM) -> TM:
    """M_pad: M over Γ ∪ {'#'} ('#' = symbol g) acting on '#' exactly as on the blank."""
    d = np.asarray(tm.delta)
    return make_tm(np.concatenate([d, d[:, :1]], 1))


def collapse_depth(eps: float) -> int:
    """Smallest k with (1+ε)^k > 2: ⌊ln 2 / ln(1+ε)⌋ + 1 (2 for ε = 1 and 0.5, 8 for ε = 0.1)."""
    check_range("eps", eps, 0.0, None, lo_open=True)
    return math.floor(math.log(2) / math.log1p(eps)) + 1


def ladder(a: float, eps: float, k: int):
    """Exponents a·(1+ε)^j for j = 0..k of the padding ladder."""
    check_range("a", a, 1.0, None)
    check_range("k", k, 0, 1000)
    return a * (1.0 + eps) ** np.arange(k + 1)
