"""Induced classes F^M on a prompt domain (spec "What to build": induced.py).

``e2e_matrix`` is the E2E class F^M as a bool matrix (rows generators, columns prompts); ``chain_codes``
labels, per prompt, the distinct M-token chains (the CoT feedback cuts the version space by these labels);
``dedupe`` keeps one row per distinct induced function. :class:`ColumnOracle` evaluates columns lazily, so
learners and adversaries that touch few prompts (played latch games at M = 512) never build the matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxtyping import ArrayLike, Bool, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.online_autoregressive.generators import GeneratorClass, pad_class, rollout, rollout_padded

Prompts = Sequence[int] | Int[ArrayLike, " x"]  # prompt contexts


def _contexts(cls: GeneratorClass, prompts: Prompts) -> np.ndarray:
    x0 = np.asarray(prompts, dtype=np.int64).ravel()
    if x0.size == 0 or x0.min() < 0 or x0.max() >= cls.n_contexts:
        bad = x0[(x0 < 0) | (x0 >= cls.n_contexts)][:1].tolist() if x0.size else "[]"
        raise ConfigError(f"prompts contain {bad}; allowed: context indices in [0, {cls.n_contexts})")
    return x0


def e2e_matrix(
    cls: GeneratorClass,
    prompts: Prompts,
    m: int,
    chunk_size: int | None = None,
    pad: tuple[int, int, int] = (2048, 16, 16),
) -> np.ndarray:
    """bool[N_f, N_x]: e2e_f^M(x) for every generator and prompt (one jitted roll-out; ``pad`` see rollout)."""
    check_range("M", m, 1)
    out, _ = rollout(cls.table, cls.trans, _contexts(cls, prompts), m, chains=False, chunk_size=chunk_size, pad=pad)
    return np.asarray(out)


def chains(cls: GeneratorClass, prompts: Prompts, m: int, chunk_size: int | None = None) -> np.ndarray:
    """bool[N_f, N_x, M]: the chains c_f^M(x)."""
    check_range("M", m, 1)
    _, ch = rollout(cls.table, cls.trans, _contexts(cls, prompts), m, chains=True, chunk_size=chunk_size)
    return np.asarray(ch)


def codes_from_chains(ch: Bool[ArrayLike, "n x steps"]) -> np.ndarray:
    """int32[N_f, N_x]: per prompt, the index of each generator's chain among that prompt's distinct chains."""
    ch = np.asarray(ch, dtype=bool)
    n, nx, _ = ch.shape
    packed = np.packbits(ch, axis=-1)  # [N, X, bytes]
    out = np.empty((n, nx), dtype=np.int32)
    for j in range(nx):  # a handful of prompts; np.unique over rows is the vectorised part
        _, inv = np.unique(packed[:, j, :], axis=0, return_inverse=True)
        out[:, j] = inv.ravel()
    return out


def chain_keys(ch: Bool[ArrayLike, "n x steps"]) -> np.ndarray:
    """uint64[N_f, N_x]: each chain of at most 64 tokens as an integer, first token in the most significant bit
    (so integer order is the lexicographic order that :func:`codes_from_chains` labels by)."""
    ch = np.asarray(ch, dtype=bool)
    if ch.shape[-1] > 64:
        raise ConfigError(f"M={ch.shape[-1]} is not allowed here; chain keys hold at most 64 tokens")
    packed = np.packbits(ch, axis=-1)  # big-endian bytes
    padded = np.zeros(ch.shape[:-1] + (8,), np.uint8)
    padded[..., : packed.shape[-1]] = packed
    return padded.view(">u8")[..., 0].astype(np.uint64)


def chain_codes(
    cls: GeneratorClass, prompts: Prompts, m: int, rows_per_call: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes int32[N_f, N_x], outputs bool[N_f, N_x])``: chain labels per prompt and the final tokens.

    ``rows_per_call`` (a power of two, M ≤ 64): roll out that many generators at a time (one compiled program
    for every block) and keep only 8 bytes per (generator, prompt) instead of the M-token chains; the same
    labels as all at once (tested).
    """
    check_range("M", m, 1)
    if rows_per_call is None or rows_per_call >= cls.n or m > 64:
        ch = chains(cls, prompts, m)
        return codes_from_chains(ch), ch[..., -1]
    check_range("rows_per_call", rows_per_call, 1)
    x0 = _contexts(cls, prompts)
    keys = np.empty((cls.n, x0.size), np.uint64)
    for start in range(0, cls.n, rows_per_call):
        block = cls.table[start : start + rows_per_call]
        _, ch = rollout(block, cls.trans, x0, m, chains=True, pad=(rows_per_call, 16, 16))
        keys[start : start + block.shape[0]] = chain_keys(ch)
    codes = np.empty(keys.shape, np.int32)
    for j in range(x0.size):
        codes[:, j] = np.unique(keys[:, j], return_inverse=True)[1].ravel()
    return codes, (keys >> np.uint64(64 - m) & np.uint64(1)).astype(bool)


def dedupe(matrix: Bool[ArrayLike, "n x"]) -> tuple[np.ndarray, np.ndarray]:
    """``(unique_rows bool[U, X], inverse int[N])``: one row per distinct function, in first-seen order."""
    mat = np.asarray(matrix, dtype=bool)
    _, first, inv = np.unique(np.packbits(mat, axis=1), axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return mat[first[order]], rank[inv.ravel()]


class ColumnOracle:
    """The induced class F^M as lazily evaluated, cached columns (``column(x)`` bool[N_f])."""

    def __init__(self, cls: GeneratorClass, m: int, pad: tuple[int, int, int] = (2048, 16, 16)):
        check_range("M", m, 1)
        self.cls, self.m, self.pad, self._cache = cls, int(m), pad, {}
        self._padded = pad_class(cls.table, cls.trans, pad[:2])

    @property
    def n(self) -> int:
        return self.cls.n

    def column(self, x: int) -> np.ndarray:
        if x not in self._cache:
            x0 = _contexts(self.cls, [x])
            self._cache[x] = rollout_padded(*self._padded, x0, self.cls.n, self.m, x_pad=self.pad[2])[0][:, 0]
        return self._cache[x]


class MatrixOracle:
    """A class given as a full bool matrix (rows hypotheses, columns prompts), same interface as ColumnOracle."""

    def __init__(self, matrix: Bool[ArrayLike, "n x"]):
        self.matrix = np.asarray(matrix, dtype=bool)

    @property
    def n(self) -> int:
        return int(self.matrix.shape[0])

    def column(self, x: int) -> np.ndarray:
        return self.matrix[:, x]
