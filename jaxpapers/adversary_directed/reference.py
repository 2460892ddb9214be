"""Pure-Python references for the D1 cross-checks (spec "reference.py"): memoised on bitmasks.

* :func:`game_value` — the adversary-directed game on (version-space bitmask, presented mask), with the
  deterministic rule max(v_(1), v_(2)+1) or the randomized water-filling, adversary/self-directed modes.
* :func:`ldim` — the multiclass Littlestone recursion L(V) = max_x max_{y≠y'} 1 + min(L(V_y), L(V_y'))
  (Daniely et al. 2015), independent of the game: it allows repeated instances and knows no presented set.
* :func:`transductive_value` — max over orders π of the game along π, memoised on (version space, suffix).
* :func:`horizon_ldim` — the standard online game with horizon r (instances not announced, repeats allowed).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.adversary_directed.classes import as_class
from jaxpapers.core.checks import check_choice

__all__ = ["combine", "game_value", "horizon_ldim", "label_masks", "ldim", "transductive_value", "water_fill"]


def label_masks(H: np.ndarray) -> list[list[int]]:
    """For each column x, the bitmasks of hypotheses taking each label that occurs at x."""
    out = []
    for x in range(H.shape[1]):
        col = H[:, x]
        out.append([sum(1 << int(i) for i in np.flatnonzero(col == y)) for y in np.unique(col)])
    return out


def water_fill(values: Sequence[float]) -> float:
    """The c with Σ_y (1 + v_y − c)_+ = 1 (randomized learner; spec): scan the sorted values."""
    v = sorted(values, reverse=True)
    total, c = 0.0, v[0]
    for j, vj in enumerate(v, start=1):
        total += 1.0 + vj
        cj = (total - 1.0) / j
        if 1.0 + vj > cj or j == 1:
            c = cj
        else:
            break
    return c


def combine(values: Sequence[float], randomized: bool) -> float:
    """Value of an instance from its children's values over the distinct feasible labels."""
    if len(values) == 1:
        return float(values[0])
    if randomized:
        return water_fill(values)
    top = sorted(values, reverse=True)
    return max(top[0], top[1] + 1.0)


def _split(vs: int, masks: list[int]) -> list[int]:
    return [vs & mk for mk in masks if vs & mk]


def game_value(H: Int[ArrayLike, "m t"], randomized: bool = False, mode: str = "adversary") -> float:
    """M_AD(H, S) by memoised recursion on (version space, presented set); S = all columns of H."""
    check_choice("mode", mode, ("adversary", "self"))
    H = as_class(H)
    m, T = H.shape
    masks = label_masks(H)
    full = (1 << T) - 1
    pick = max if mode == "adversary" else min

    @functools.cache
    def V(vs: int, P: int) -> float:
        if P == full:
            return 0.0
        return pick(
            combine([V(c, P | (1 << x)) for c in _split(vs, masks[x])], randomized) for x in range(T) if not P >> x & 1
        )

    return V((1 << m) - 1, 0)


def ldim(H: Int[ArrayLike, "m t"]) -> int:
    """Multiclass Littlestone dimension of H (over its columns): 1 + second-largest child Ldim, max over x."""
    H = as_class(H)
    masks = label_masks(H)

    @functools.cache
    def L(vs: int) -> int:
        best = 0
        for mx in masks:
            kids = _split(vs, mx)
            if len(kids) >= 2:
                vals = sorted((L(c) for c in kids), reverse=True)
                best = max(best, 1 + vals[1])
        return best

    return L((1 << H.shape[0]) - 1)


def horizon_ldim(H: Int[ArrayLike, "m t"], horizon: int) -> int:
    """Standard online game with ``horizon`` rounds on domain = H's columns (repeats allowed, not announced)."""
    H = as_class(H)
    masks = label_masks(H)

    @functools.cache
    def W(vs: int, r: int) -> int:
        if r == 0:
            return 0
        best = W(vs, r - 1)  # a wasted round (an instance that does not split)
        for mx in masks:
            kids = _split(vs, mx)
            if len(kids) >= 2:
                best = max(best, int(combine([W(c, r - 1) for c in kids], False)))
        return best

    return W((1 << H.shape[0]) - 1, horizon)


def transductive_value(H: Int[ArrayLike, "m t"], randomized: bool = False, orders=None) -> float:
    """TD(H, S) = max over orders of the game along the order; memoised on (version space, order suffix)."""
    H = as_class(H)
    m, T = H.shape
    masks = label_masks(H)

    @functools.cache
    def A(vs: int, suffix: tuple[int, ...]) -> float:
        if not suffix:
            return 0.0
        x = suffix[0]
        return combine([A(c, suffix[1:]) for c in _split(vs, masks[x])], randomized)

    orders = itertools.permutations(range(T)) if orders is None else orders
    return max(A((1 << m) - 1, tuple(int(i) for i in o)) for o in orders)
