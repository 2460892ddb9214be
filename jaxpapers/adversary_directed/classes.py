"""Finite hypothesis classes as integer label matrices ``H[h, x]`` (spec "What to build": classes.py).

A class on an announced instance set S = {0..T-1} is an int32 matrix ``[|H|, T]`` with deduplicated rows
(row order: ascending lexicographic, so every builder is deterministic). Labels are any non-negative
integers; the multiclass families (prefix, adaptive-order) use path codes up to 2^{T+1}, which
:func:`relabel` maps per column onto 0..k-1 before any solver array is sized (spec pitfall).

Binary families: ``thresholds``, ``intervals`` (with ∅), ``unions_of_k_intervals``, ``singletons`` (with ∅),
``k_sparse``, ``all_subsets``; random: ``random_class``; multiclass: ``prefix_class``,
``adaptive_order_class`` (spec "Perfect Littlestone dimension"). ``restrict``, ``relabel``, ``load_class``.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

__all__ = [
    "adaptive_order_class",
    "all_subsets",
    "as_class",
    "intervals",
    "k_sparse",
    "load_class",
    "prefix_class",
    "random_class",
    "relabel",
    "restrict",
    "singletons",
    "thresholds",
    "unions_of_k_intervals",
]


def as_class(H: ArrayLike | list, name: str = "H") -> np.ndarray:
    """Validates a label matrix (2-D, integer, non-negative, ≥ 1 row) and returns it deduplicated, int64.

    Deliberately unannotated in shape: this is where a wrong shape or dtype gets its one clear error.
    """
    arr = np.asarray(H)
    if arr.ndim != 2:
        raise ConfigError(f"{name} has shape {arr.shape}; expected a 2-D label matrix [|H|, |S|]")
    if arr.shape[0] < 1:
        raise ConfigError(f"{name} has no hypotheses (shape {arr.shape}); need at least one row")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            raise ConfigError(f"{name} has non-integer labels (dtype {arr.dtype}); labels must be integers >= 0")
    arr = arr.astype(np.int64)
    if arr.size and arr.min() < 0:
        raise ConfigError(f"{name} has a negative label {int(arr.min())}; labels must be integers >= 0")
    return np.unique(arr, axis=0) if arr.shape[1] else arr[:1]


def _check_t(T: int, hi: int = 24) -> int:
    check_range("T", T, 1, hi)
    return int(T)


def _from_sets(T: int, sets) -> np.ndarray:
    rows = np.zeros((len(sets), T), np.int64)
    for i, s in enumerate(sets):
        rows[i, list(s)] = 1
    return as_class(np.array(rows, np.int64))


def thresholds(T: int) -> np.ndarray:
    """h_a(x) = 1[x ≥ a] for a = 0..T on S = {0..T-1}: T + 1 hypotheses, VC = 1, Ldim(H|S) = ⌊log2(T+1)⌋."""
    T = _check_t(T, 4096)
    return as_class((np.arange(T)[None, :] >= np.arange(T + 1)[:, None]).astype(np.int64))


def intervals(T: int) -> np.ndarray:
    """Indicators of [a, b] ⊆ {0..T-1} plus ∅: 1 + T(T+1)/2 hypotheses, VC = 2."""
    T = _check_t(T, 4096)
    x = np.arange(T)
    a, b = np.triu_indices(T)
    rows = ((x[None] >= a[:, None]) & (x[None] <= b[:, None])).astype(np.int64)
    return as_class(np.concatenate([np.zeros((1, T), np.int64), rows]))


def unions_of_k_intervals(T: int, k: int) -> np.ndarray:
    """All subsets of {0..T-1} that are unions of at most k intervals (≤ k runs of ones), ∅ included."""
    T = _check_t(T, 16)
    check_range("k", k, 1)
    codes = np.arange(1 << T)
    bits = (codes[:, None] >> np.arange(T)) & 1
    runs = bits[:, 0] + np.sum((bits[:, 1:] == 1) & (bits[:, :-1] == 0), axis=1)
    return as_class(bits[runs <= k])


def singletons(T: int) -> np.ndarray:
    """∅ and the T singletons: Ldim = VC = 1."""
    T = _check_t(T, 4096)
    return as_class(np.concatenate([np.zeros((1, T), np.int64), np.eye(T, dtype=np.int64)]))


def k_sparse(T: int, k: int) -> np.ndarray:
    """All subsets of {0..T-1} of size ≤ k: Ldim = VC = min(T, k)."""
    T = _check_t(T, 16)
    check_range("k", k, 0)  # k ≥ T means all subsets
    return _from_sets(T, [s for r in range(k + 1) for s in itertools.combinations(range(T), r)])


def all_subsets(T: int) -> np.ndarray:
    """{0,1}^T: VC = Ldim = PLdim = T (the linear regime, binary)."""
    T = _check_t(T, 16)
    return as_class((np.arange(1 << T)[:, None] >> np.arange(T)) & 1)


def random_class(seed: int, T: int, m: int, n_labels: int) -> np.ndarray:
    """m rows drawn uniformly from {0..n_labels-1}^T (duplicates removed, so ≤ m rows); NumPy ``seed``."""
    T = _check_t(T, 24)
    check_range("m", m, 1)
    check_range("n_labels", n_labels, 1)
    rng = np.random.default_rng(seed)
    return as_class(rng.integers(0, n_labels, size=(m, T)))


def _code(bits) -> int:
    """Prefix code of a bit tuple: 2^len + int(bits) (distinct across lengths; ≤ 2^{T+1})."""
    return (1 << len(bits)) + int("".join(map(str, bits)) or "0", 2)


def prefix_class(T: int) -> np.ndarray:
    """PRE_T: h_b(t) = code of (b_1..b_{t+1}) for b ∈ {0,1}^T (spec): Natarajan 1, Ldim = LCdim = PLdim = T."""
    T = _check_t(T, 14)
    rows = [[_code(b[: t + 1]) for t in range(T)] for b in itertools.product((0, 1), repeat=T)]
    return as_class(np.array(rows, np.int64))


def adaptive_order_class(T: int, rule: str = "front_back") -> np.ndarray:
    """AO_T: the leaves of a perfect tree whose next instance depends on the path (spec).

    Rule "front_back": keep the unpresented instances in a list; present the first at the root, then
    after an edge with bit 0 the first remaining and after bit 1 the last remaining. The label at the
    instance presented at step t is the code of the path prefix including the bit chosen there.
    PLdim = Ldim = T, LCdim = TD value = 2, 3, 3, 4, 4 for T = 3..7 (spec, measured).
    """
    T = _check_t(T, 14)
    check_choice("rule", rule, ("front_back",))
    rows = []
    for b in itertools.product((0, 1), repeat=T):
        remaining = list(range(T))
        row = [0] * T
        x = remaining.pop(0)
        for t in range(T):
            row[x] = _code(b[: t + 1])
            if t + 1 < T:
                x = remaining.pop(0) if b[t] == 0 else remaining.pop()
        rows.append(row)
    return as_class(np.array(rows, np.int64))


def restrict(H: Int[ArrayLike, "m t"], S) -> np.ndarray:
    """H|_S: the columns S (in the given order), rows deduplicated. Realizability is judged on this."""
    H = as_class(H)
    S = np.asarray(S, np.int64).reshape(-1)
    if S.size and (S.min() < 0 or S.max() >= H.shape[1]):
        raise ConfigError(f"S={S.tolist()} has an instance outside 0..{H.shape[1] - 1}")
    if len(set(S.tolist())) != S.size:
        raise ConfigError(f"S={S.tolist()} repeats an instance; an announced set has distinct elements")
    return as_class(H[:, S])


def relabel(H: ArrayLike | list) -> np.ndarray:
    """Per column, maps the labels that occur onto 0..k-1 (order kept); rows deduplicated. Values unchanged.

    The map is increasing in each column, so the rows stay distinct and in the sorted order of ``as_class``."""
    H = as_class(H)
    out = np.empty_like(H)
    for j in range(H.shape[1]):
        out[:, j] = np.unique(H[:, j], return_inverse=True)[1].reshape(-1)
    return out


def load_class(path: str | os.PathLike) -> np.ndarray:
    """Reads a hypothesis matrix saved with ``np.save`` (int [|H|, |X|], any labels ≥ 0)."""
    if not os.path.isfile(path):
        raise ConfigError(f"class file {os.fspath(path)!r} does not exist; expected a .npy int matrix [|H|, |X|]")
    try:
        arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as e:
        raise ConfigError(f"class file {os.fspath(path)!r} is not a readable .npy array ({e})") from None
    return as_class(arr, name=f"class file {os.fspath(path)!r}")
