"""Exact Littlestone dimension, VC dimension and the CoT game value of small finite classes.

Spec "ldim.py" (here ``littlestone.py``: ``ldim`` is also the public function). A class is a bool matrix
(rows hypotheses, columns domain points). Version spaces are bitsets over the rows (Python ints: ``&`` and
``int.bit_count`` are the fastest host popcounts), memoised.

Littlestone recursion (Littlestone 1988): L(V) = max over x with both labels realisable of
1 + min(L(V_{x,0}), L(V_{x,1})), L(V) = 0 when no x splits V. Prunings (spec): (1) L(V) ≤ ⌊log2|V|⌋, so
the search over x stops when the running max reaches it; (2) x cannot win when 1 + ⌊log2 min(|V_{x,0}|,
|V_{x,1}|)⌋ ≤ the running max (splits are scanned by decreasing min size, so the scan stops there). A third,
exact, device: values are computed *capped* (min(L, cap)) where only a comparison is needed — the larger
child only matters up to the smaller child's value — and the memo remembers whether a value is exact or a
lower bound.

:func:`split_counts` is the JAX kernel that evaluates all splits of one or many version spaces at once
(popcounts of V ∧ col_x); the recursion's host popcounts are tested against it.
"""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Int, Shaped

from jaxpapers.core.errors import ConfigError
from jaxpapers.online_autoregressive.induced import dedupe


def _check_matrix(matrix, name: str = "matrix") -> np.ndarray:
    mat = np.asarray(matrix)
    if mat.ndim != 2 or mat.dtype != bool or mat.shape[0] < 1:
        raise ConfigError(f"{name} has shape {mat.shape} and dtype {mat.dtype}; expected bool[N >= 1, X]")
    return mat


def bitmasks(matrix: Bool[ArrayLike, "n x"]) -> list[int]:
    """One Python-int bitset per column: bit i set iff row i is 1 there."""
    mat = np.asarray(matrix, dtype=bool)
    packed = np.packbits(mat.T, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def to_bits(mask: Bool[ArrayLike, " n"]) -> int:
    """A bool vector as a Python-int bitset."""
    return int.from_bytes(np.packbits(np.asarray(mask, bool), bitorder="little").tobytes(), "little")


def from_bits(bits: int, n: int) -> np.ndarray:
    """A Python-int bitset as a bool vector of length n."""
    raw = np.frombuffer(bits.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n].astype(bool)


@jax.jit
def split_counts(masks: Bool[ArrayLike, "v n"], matrix: Bool[ArrayLike, "n x"]) -> Int[Array, "v x"]:
    """|V ∧ col_x| for every version space V (rows of ``masks``) and every domain point x, in one call."""
    return jnp.asarray(masks, jnp.int32) @ jnp.asarray(matrix, jnp.int32)


class LdimSolver:
    """Exact Littlestone dimension of the sub-classes of one class with *distinct* rows (memoised)."""

    def __init__(self, matrix: Shaped[ArrayLike, "n x"]):
        mat = _check_matrix(matrix)
        if dedupe(mat)[0].shape[0] != mat.shape[0]:
            raise ConfigError("matrix has duplicate rows; pass dedupe(matrix)[0] (duplicates never split)")
        self.matrix, self.n = mat, mat.shape[0]
        self.cols = bitmasks(mat)
        self.full = (1 << self.n) - 1
        self.memo: dict[int, tuple[int, bool]] = {}  # V -> (value, exact) ; inexact = lower bound
        self.calls = 0

    def splits(self, v: int) -> list[tuple[int, int]]:
        """``(min side size, V ∧ col_x)`` of every distinct x that splits V, largest min side first."""
        n = v.bit_count()
        seen, out = set(), []
        for col in self.cols:
            a = v & col
            na = a.bit_count()
            if 0 < na < n:
                key = min(a, v ^ a)
                if key not in seen:
                    seen.add(key)
                    out.append((min(na, n - na), a))
        out.sort(key=lambda t: -t[0])
        return out

    def value(self, v: int | None = None, cap: int | None = None) -> int:
        """min(L(V), cap) (exact L(V) when ``cap`` is None); V a bitset, default the whole class."""
        v = self.full if v is None else v
        n = v.bit_count()
        if n <= 1:
            return 0
        ub = n.bit_length() - 1
        cap = ub if cap is None else min(cap, ub)
        hit = self.memo.get(v)
        if hit is not None and (hit[1] or hit[0] >= cap):
            return min(hit[0], cap)
        self.calls += 1
        best, complete = 0, True
        for m, a in self.splits(v):
            if best >= cap:
                complete = best >= ub
                break
            if m.bit_length() <= best:  # 1 + floor(log2 m) <= best: this and all later x lose
                break
            b = v ^ a
            small, big = (a, b) if a.bit_count() <= b.bit_count() else (b, a)
            ls = self.value(small, cap - 1)
            if 1 + ls <= best:
                continue
            lb = self.value(big, ls) if ls > 0 else 0
            best = max(best, 1 + min(ls, lb))
        exact = complete and best < cap or best >= ub
        self.memo[v] = (best, bool(exact))
        return min(best, cap)

    def children(self, v: int, x: int) -> tuple[int, int]:
        """``(V_{x,0}, V_{x,1})``."""
        a = v & self.cols[x]
        return v ^ a, a


def ldim(matrix: Shaped[ArrayLike, "n x"]) -> int:
    """Exact Littlestone dimension of a finite class (duplicate rows are merged first)."""
    return LdimSolver(dedupe(_check_matrix(matrix))[0]).value()


def ldim_brute(matrix: Shaped[ArrayLike, "n x"]) -> int:
    """The textbook recursion without pruning or memo (tests only; tiny classes)."""
    mat = _check_matrix(matrix)

    def rec(rows: np.ndarray) -> int:
        best = 0
        for x in range(mat.shape[1]):
            col = mat[rows, x]
            if col.any() and not col.all():
                best = max(best, 1 + min(rec(rows[~col]), rec(rows[col])))
        return best

    return rec(np.unique(np.packbits(mat, axis=1), axis=0, return_index=True)[1])


def vc_dim(matrix: Shaped[ArrayLike, "n x"]) -> int:
    """Largest set of columns shattered by the rows (brute force over column subsets; small X)."""
    mat = _check_matrix(matrix)
    best = 0
    for k in range(1, mat.shape[1] + 1):
        if 2**k > mat.shape[0]:
            break
        if not any(
            len({tuple(r) for r in mat[:, list(s)]}) == 2**k for s in itertools.combinations(range(mat.shape[1]), k)
        ):
            break
        best = k
    return best


class CoTGame:
    """The CoT minimax value (spec "Optimal CoT mistake bound"), memoised on version-space bitsets.

    V_CoT(V) = max over x that V does not answer with one chain of min_ŷ max over chains c realisable in V of
    1[c_M ≠ ŷ] + V_CoT(V ∩ {f: c_f^M(x) = c}); 0 when every f in V has the same chain on every prompt (prompts
    with one chain reveal nothing and are skipped). ``codes`` int[N, X] labels chains per prompt, ``last``
    bool[N, X] is each chain's final token. Rows need not be distinct. Pruning: V_CoT(V) ≤ ⌊log2 |V|⌋
    (CoT-halving on the final token), and a prompt whose largest part P has 1 + ⌊log2|P|⌋ ≤ the running max
    cannot win.
    """

    def __init__(self, codes: Shaped[ArrayLike, "n x"], last: Shaped[ArrayLike, "n y"]):
        codes, last = np.asarray(codes), _check_matrix(last, "last")
        if codes.shape != last.shape:
            raise ConfigError(f"codes has shape {codes.shape}; expected the shape of last {last.shape}")
        self.n = codes.shape[0]
        self.full = (1 << self.n) - 1
        self.parts = []  # per prompt: [(bitset of rows with this chain, final token)]
        for x in range(codes.shape[1]):
            parts = []
            for c in np.unique(codes[:, x]):
                rows = codes[:, x] == c
                parts.append((to_bits(rows), bool(last[rows, x][0])))
            self.parts.append(parts)
        self.memo: dict[int, int] = {}

    def value(self, v: int | None = None) -> int:
        v = self.full if v is None else v
        n = v.bit_count()
        if n <= 1:
            return 0
        if v in self.memo:
            return self.memo[v]
        ub, best = n.bit_length() - 1, 0
        for parts in self.parts:
            if best >= ub:
                break
            cut = [(v & p, t) for p, t in parts if v & p]
            if len(cut) < 2:
                continue
            if max(p.bit_count() for p, _ in cut).bit_length() <= best:
                continue
            m = {False: -math.inf, True: -math.inf}
            for p, t in cut:
                m[t] = max(m[t], self.value(p))
            val = min(max(m[False], 1 + m[True]), max(1 + m[False], m[True]))
            best = max(best, int(val))
        self.memo[v] = best
        return best

    def cut(self, v: int, x: int) -> list[tuple[int, bool]]:
        """The non-empty parts ``(V ∩ chain c, final token)`` of V at prompt x."""
        return [(v & p, t) for p, t in self.parts[x] if v & p]


def cot_game_value(codes: Shaped[ArrayLike, "n x"], last: Shaped[ArrayLike, "n y"]) -> int:
    """Exact optimal CoT mistake bound of a class given its chain labels and final tokens."""
    return CoTGame(codes, last).value()


def cot_value_brute(codes: Int[ArrayLike, "n x"], last: Bool[ArrayLike, "n x"]) -> int:
    """Unpruned, unmemoised CoT recursion over row index sets (tests only; tiny classes)."""
    codes, last = np.asarray(codes), np.asarray(last)

    def rec(rows: tuple[int, ...]) -> int:
        best = 0
        for x in range(codes.shape[1]):
            groups: dict[int, list[int]] = {}
            for r in rows:
                groups.setdefault(int(codes[r, x]), []).append(r)
            if len(groups) < 2:
                continue
            m = {False: -math.inf, True: -math.inf}
            for g in groups.values():
                t = bool(last[g[0], x])
                m[t] = max(m[t], rec(tuple(g)))
            best = max(best, int(min(max(m[False], 1 + m[True]), max(1 + m[False], m[True]))))
        return best

    return rec(tuple(range(codes.shape[0])))
