"""Combinatorial dimensions by brute force (spec "dims.py"), on a class's own columns.

* ``ldim`` — multiclass Littlestone dimension (reference recursion).
* ``vc_dim`` — binary VC (shattered sets); ``natarajan_dim`` — hereditary search by size, a k-set needs two
  realized patterns f0, f1 differing everywhere with all 2^k mixtures realized (the 2×2 "rectangle" test
  for pairs; never a search over all label vectors — spec pitfall).
* ``lc_ldim`` — level-constrained Littlestone dimension (Hanneke et al. 2024, as read from the abstract):
  an ordered k-tuple such that every level of the depth-k tree carries the same instance.
* ``perfect_ldim`` — **reconstructed definition; see spec**: the largest |S'| admitting a *perfect* mistake
  tree (every root-to-leaf path presents all of S' exactly once, order chosen per path), tested as
  Ldim(H|_{S'}) = |S'|; hereditary, so the search stops at the first size with no perfect subset.
  Kept behind this one function so the paper's definition can replace ours.
* ``predict_regime`` — Θ(1) / Θ(log T) / Θ(T) from dimension sequences on nested domains.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence

import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.adversary_directed import reference
from jaxpapers.adversary_directed.classes import as_class, restrict
from jaxpapers.core.errors import ConfigError

__all__ = [
    "dimensions",
    "is_bounded",
    "lc_ldim",
    "ldim",
    "natarajan_dim",
    "perfect_ldim",
    "predict_regime",
    "regime_of_values",
    "vc_dim",
]

REGIMES = ("Theta(1)", "Theta(log T)", "Theta(T)")


def ldim(H: Int[ArrayLike, "m t"]) -> int:
    """Multiclass Littlestone dimension (Daniely et al. 2015) by the reference recursion."""
    return reference.ldim(H)


def _hereditary_max(T: int, test) -> int:
    """Largest k such that some k-subset passes ``test`` (the property is hereditary: stop at the first k without)."""
    best = 0
    for k in range(1, T + 1):
        if not any(test(S) for S in itertools.combinations(range(T), k)):
            break
        best = k
    return best


def vc_dim(H: Int[ArrayLike, "m t"]) -> int:
    """VC dimension of a binary class (labels in {0, 1})."""
    H = as_class(H)
    if H.size and H.max() > 1:
        raise ConfigError(f"vc_dim needs binary labels; H has label {int(H.max())} (use natarajan_dim)")
    return _hereditary_max(H.shape[1], lambda S: len(np.unique(H[:, S], axis=0)) == 1 << len(S))


def _natarajan_shattered(U: np.ndarray) -> bool:
    """Some pair of realized patterns f0 ≠ f1 (everywhere) whose 2^k mixtures are all realized (U: [u, k])."""
    u, k = U.shape
    if k == 2:  # the rectangle test
        pairs = {tuple(r) for r in U.tolist()}
        col0 = np.unique(U[:, 0])
        partners = {a: {b for (a2, b) in pairs if a2 == a} for a in col0}
        for a0, a1 in itertools.combinations(col0.tolist(), 2):
            if len(partners[a0] & partners[a1]) >= 2:
                return True
        return False
    realized = {tuple(r) for r in U.tolist()}
    diff = np.all(U[:, None, :] != U[None, :, :], axis=-1)
    for i, j in zip(*np.nonzero(np.triu(diff)), strict=True):
        f = (U[i], U[j])
        if all(tuple(f[b][x] for x, b in enumerate(bits)) in realized for bits in itertools.product((0, 1), repeat=k)):
            return True
    return False


def natarajan_dim(H: Int[ArrayLike, "m t"]) -> int:
    """Natarajan dimension (equals VC for binary classes); hereditary search by size."""
    H = as_class(H)

    def test(S):
        U = np.unique(H[:, S], axis=0)
        if len(S) == 1:
            return len(U) >= 2
        return len(U) >= 1 << len(S) and _natarajan_shattered(U)

    return _hereditary_max(H.shape[1], test)


def perfect_ldim(H: Int[ArrayLike, "m t"]) -> int:
    """PLdim — reconstructed definition; see spec: largest k with a k-subset S' and Ldim(H|_{S'}) = k."""
    H = as_class(H)

    def test(S):
        HS = restrict(H, S)
        # A perfect tree on k points has 2^k leaves with distinct patterns: a necessary, cheap filter.
        return len(HS) >= 1 << len(S) and reference.ldim(HS) == len(S)

    return _hereditary_max(H.shape[1], test)


def lc_ldim(H: Int[ArrayLike, "m t"]) -> int:
    """Level-constrained Littlestone dimension: largest k with an ordered k-tuple whose every level splits.

    A node at depth t carries x_t for every path; its two out-edges carry distinct labels and every
    root-to-leaf path is realized (fixing the instance per level, not per path, as in transductive trees).
    """
    H = as_class(H)
    masks = reference.label_masks(H)

    @functools.cache
    def ok(vs: int, rest: tuple[int, ...]) -> bool:
        if not rest:
            return vs != 0
        kids = [vs & mk for mk in masks[rest[0]] if vs & mk]
        good = sum(ok(c, rest[1:]) for c in kids)
        return good >= 2

    full = (1 << H.shape[0]) - 1
    best = 0
    for k in range(1, H.shape[1] + 1):
        if not any(ok(full, p) for p in itertools.permutations(range(H.shape[1]), k)):
            break
        best = k
    return best


def dimensions(H: Int[ArrayLike, "m t"]) -> dict[str, int]:
    """Ldim, VC (binary) or Natarajan, LCdim and PLdim of H on its columns (spec API ``dimensions(H)``)."""
    H = as_class(H)
    binary = H.size == 0 or H.max() <= 1
    out = {"ldim": ldim(H), "natarajan": natarajan_dim(H), "lcdim": lc_ldim(H), "pldim": perfect_ldim(H)}
    out["vc"] = vc_dim(H) if binary else -1
    return out


def is_bounded(seq: Sequence[float]) -> bool:
    """A sequence on nested domains T = 1..T_max is "bounded" if its value at T_max equals that at ⌊T_max/2⌋ (spec)."""
    seq = list(seq)
    return bool(seq[-1] == seq[max(0, len(seq) // 2 - 1)])


def predict_regime(dims_by_T: Mapping[str, Sequence[float]]) -> str:
    """Ldim bounded → Θ(1); else PLdim bounded → Θ(log T); else Θ(T) (spec "Reading of the trichotomy")."""
    if is_bounded(dims_by_T["ldim"]):
        return REGIMES[0]
    return REGIMES[1] if is_bounded(dims_by_T["pldim"]) else REGIMES[2]


def regime_of_values(Ts: Sequence[int] | np.ndarray, values: Sequence[float] | np.ndarray) -> str:
    """The regime a measured value sequence shows: = T everywhere → Θ(T); bounded → Θ(1); else Θ(log T)."""
    values = list(values)
    if all(v == t for t, v in zip(Ts, values, strict=True)):
        return REGIMES[2]
    return REGIMES[0] if is_bounded(values) else REGIMES[1]
