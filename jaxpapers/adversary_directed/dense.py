"""Binary fast path of the exact solver: the dense ternary DP (spec "game.py", binary fast path; "Scale-up").

For a binary class the state (P, version space) is determined by the labels revealed on P, so it is one
ternary code: digit x is 0 (unpresented), 1 (label 0) or 2 (label 1), child code = code + 3^x·(1 + y).
There are 3^T codes; a code is *feasible* when some hypothesis agrees with its revealed labels. ``val[code]``
holds the state's value, or ``NEG`` when the code is infeasible, so one array carries both:

* full codes (every digit set): the hypotheses' own codes get value 0, all others stay ``NEG``;
* a code with open instances: at each open x, children v_0 = val[code + 3^x], v_1 = val[code + 2·3^x];
  deterministic learner: max(v_(1), v_(2) + 1) when both are feasible, else the feasible one; randomized
  (two labels, water-filling): max(a, b) if |a − b| ≥ 1 else (1 + a + b)/2; the adversary takes the max over
  open x (self-directed: the min). A code is infeasible iff no child at any open x is.

Codes are solved layer by layer (number of presented instances, decreasing): a layer only reads the next
one, so each layer is vectorised; layers are cut into chunks of ``B`` codes and ONE ``lax.fori_loop`` runs
over the chunks of one class (≈ 3^T/B + T steps instead of 2^T masks of the general solver), with no
|H|-sized work per state. Classes of several T share one program: pad columns are constant 0, presented
from the start (digit 1), exactly as in :mod:`game`; the chunk schedules of all distinct T are one array.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.adversary_directed.classes import relabel
from jaxpapers.core.checks import check_choice, check_range

__all__ = ["dense_batch", "dense_numpy", "schedule"]

NEG = -1e9  # infeasible code
T_MAX = 16  # 3^16 float32 values = 172 MB per class; codes stay inside int32
_OPTIONS = {"xla_backend_optimization_level": 1}


def _digits(codes: np.ndarray, T: int) -> np.ndarray:
    return (codes[:, None] // 3 ** np.arange(T, dtype=np.int64)) % 3


@functools.lru_cache(maxsize=64)
def schedule(T: int, t_pad: int, B: int) -> np.ndarray:
    """Chunks ``[n, B]`` (int32) of the codes of T real digits (pad digits = 1), layers T−1 down to 0.

    Every chunk lies inside one layer (a short chunk repeats its first code), so a chunk only reads solved
    codes. The full layer (T presented) is not listed: its values are set from the hypotheses.
    """
    check_range("t_pad", t_pad, max(T, 1), T_MAX)
    base = sum(3**x for x in range(T, t_pad))
    codes = np.arange(3**T, dtype=np.int64)
    presented = np.count_nonzero(_digits(codes, T), axis=1) if T else np.zeros(1, np.int64)
    chunks = []
    for k in range(T - 1, -1, -1):
        layer = codes[presented == k] + base
        n = -(-len(layer) // B) * B
        chunks.append(np.concatenate([layer, np.repeat(layer[:1], n - len(layer))]).reshape(-1, B))
    if not chunks:
        return np.full((0, B), base, np.int32)
    return np.concatenate(chunks).astype(np.int32)


def _combine(v0, v1, randomized: bool):
    f0, f1 = v0 > NEG / 2, v1 > NEG / 2
    hi, lo = jnp.maximum(v0, v1), jnp.minimum(v0, v1)
    both = jnp.where(hi - lo >= 1.0, hi, (1.0 + hi + lo) / 2.0) if randomized else jnp.maximum(hi, lo + 1.0)
    return jnp.where(f0 & f1, both, jnp.where(f0, v0, jnp.where(f1, v1, NEG)))


def _dense_one(
    H: Int[Array, "m t"],
    T: Int[Array, ""],
    first: Int[Array, ""],
    count: Int[Array, ""],
    sched: Int[Array, "n b"],
    *,
    learners: tuple[bool, ...],
    self_directed: bool,
) -> Float[Array, " k"]:
    """Game value(s) of one padded binary class: ``count`` chunks of ``sched`` starting at ``first``."""
    m, t = H.shape
    pow3 = jnp.asarray(3 ** np.arange(t), jnp.int32)
    hyp = jnp.sum((1 + H) * pow3, axis=1)
    vals = tuple(jnp.full(3**t, NEG, jnp.float32).at[hyp].set(0.0) for _ in learners)

    def body(i, vals):
        codes = sched[first + i]  # [B]
        open_ = ((codes[:, None] // pow3) % 3) == 0  # [B, x]
        c0 = jnp.where(open_, codes[:, None] + pow3, 0)
        c1 = jnp.where(open_, c0 + pow3, 0)
        out = []
        for val, randomized in zip(vals, learners, strict=True):
            v0, v1 = val.at[c0].get(mode="promise_in_bounds"), val.at[c1].get(mode="promise_in_bounds")
            vx = _combine(v0, v1, randomized)
            if self_directed:
                v = jnp.min(jnp.where(open_, vx, -NEG), axis=1)
            else:
                v = jnp.max(jnp.where(open_, vx, NEG), axis=1)
            out.append(val.at[codes].set(jnp.where(v > NEG / 2, v, NEG), mode="promise_in_bounds"))
        return tuple(out)

    vals = jax.lax.fori_loop(0, count, body, vals)
    start = jnp.sum(jnp.where(jnp.arange(t) >= T, pow3, 0))
    return jnp.stack([v[start] for v in vals])


@functools.lru_cache(maxsize=16)
def _batch_fn(learners: tuple[bool, ...], self_directed: bool):
    one = functools.partial(_dense_one, learners=learners, self_directed=self_directed)

    def run(Hs, Ts, firsts, counts, sched):
        return jax.lax.map(lambda a: one(*a, sched), (Hs, Ts, firsts, counts))

    return jax.jit(run, compiler_options=_OPTIONS)


def _pow2(n: int, lo: int) -> int:
    return max(lo, 1 << max(0, n - 1).bit_length())


def dense_batch(
    classes: Sequence[ArrayLike],
    randomized: bool | str = False,
    mode: str = "adversary",
    *,
    t_pad: int | None = None,
    m_pad: int | None = None,
    chunk: int = 1024,
) -> np.ndarray:
    """Game values of binary classes (≤ 2 labels per column) by the dense ternary DP, one jitted program.

    Classes run one after the other (``lax.map``) inside one program of shape (``t_pad`` columns, ``m_pad``
    rows, the schedule rows padded to a power of two); defaults: the largest T rounded up to 4 and the next
    power of two ≥ the largest |H|. ``randomized="both"`` returns ``[n, 2]`` (deterministic, randomized).
    """
    check_choice("mode", mode, ("adversary", "self"))
    check_choice("randomized", randomized, (False, True, "both"))
    if not len(classes):
        return np.zeros(0, np.float64)
    mats = [relabel(c) for c in classes]
    for i, c in enumerate(mats):
        if c.size and int(c.max()) > 1:
            raise ValueError(f"classes[{i}]: the dense solver takes binary classes; got {int(c.max()) + 1} labels")
    t_max = max(c.shape[1] for c in mats)
    t_pad = 4 * max(1, math.ceil(t_max / 4)) if t_pad is None else t_pad
    check_range("t_pad", t_pad, max(t_max, 1), T_MAX)
    m_pad = _pow2(max(c.shape[0] for c in mats), 8) if m_pad is None else m_pad
    check_range("m_pad", m_pad, max(c.shape[0] for c in mats))
    n = len(mats)
    n_rows = _pow2(n, 16)
    Hs = np.zeros((n_rows, m_pad, t_pad), np.int32)
    Ts = np.zeros(n_rows, np.int32)
    for i, c in enumerate(mats):
        Hs[i, : len(c), : c.shape[1]] = c
        Hs[i, len(c) :, : c.shape[1]] = c[0]
        Ts[i] = c.shape[1]
    Ts[n:] = Ts[int(np.argmin(Ts[:n]))]
    Hs[n:] = Hs[int(np.argmin(Ts[:n]))]
    scheds = {int(T): schedule(int(T), t_pad, chunk) for T in sorted(set(Ts.tolist()))}
    offsets, parts, pos = {}, [], 0
    for T, s in scheds.items():
        offsets[T], pos = pos, pos + len(s)
        parts.append(s)
    total = _pow2(pos, 16)
    sched = np.concatenate(parts + [np.zeros((total - pos, chunk), np.int32)])
    firsts = np.array([offsets[int(T)] for T in Ts], np.int32)
    counts = np.array([len(scheds[int(T)]) for T in Ts], np.int32)
    learners = (False, True) if randomized == "both" else (bool(randomized),)
    out = _batch_fn(learners, mode == "self")(Hs, Ts, firsts, counts, sched)
    out = np.asarray(out, np.float64)[:n]
    return out if randomized == "both" else out[:, 0]


def dense_numpy(H: Int[ArrayLike, "m t"], randomized: bool = False) -> float:
    """The same ternary DP in NumPy, each layer vectorised over all its codes (benchmark baseline, test reference)."""
    H = relabel(H)
    m, T = H.shape
    pow3 = 3 ** np.arange(T, dtype=np.int64)
    val = np.full(3**T, NEG)
    val[np.sum((1 + H) * pow3, axis=1)] = 0.0
    codes = np.arange(3**T, dtype=np.int64)
    dig = _digits(codes, T)
    presented = np.count_nonzero(dig, axis=1)
    for k in range(T - 1, -1, -1):
        layer = codes[presented == k]
        open_ = dig[presented == k] == 0
        c0 = np.where(open_, layer[:, None] + pow3, 0)  # closed x: any in-range code (masked below)
        v0, v1 = val[c0], val[np.where(open_, c0 + pow3, 0)]
        f0, f1 = v0 > NEG / 2, v1 > NEG / 2
        hi, lo = np.maximum(v0, v1), np.minimum(v0, v1)
        both = np.where(hi - lo >= 1.0, hi, (1.0 + hi + lo) / 2.0) if randomized else np.maximum(hi, lo + 1.0)
        vx = np.where(f0 & f1, both, np.where(f0, v0, np.where(f1, v1, NEG)))
        v = np.max(np.where(open_, vx, NEG), axis=1)
        val[layer] = np.where(v > NEG / 2, v, NEG)
    return float(val[0])
