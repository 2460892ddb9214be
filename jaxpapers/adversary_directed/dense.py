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

Only open instances are visited: layer j (codes with j open digits, C(T, j)·2^(T−j) of them) is an array of
(code, 3^x) pairs with exactly j offsets per code — T·3^(T−1) pairs in all instead of 3^T·T (presented
digits cost nothing). Layers run j = 1, 2, …, T (a layer reads only the one before). A layer is cut into
⌈j / WIDTH⌉ passes of WIDTH offsets per code (the last padded by repeating the code's first open x: max and
min are idempotent); a later pass combines with the partial value the earlier ones stored. Passes are cut
into rows of ``codes_per_row`` codes, and ONE ``fori_loop`` runs over all rows. Every class of a sweep lives in
ONE value array (class i at offset Σ_{i'<i} 3^T_i', no padding of T or |H|), and a row mixes all classes that
have the layer, so a whole sweep is one program and one dispatch; the value array and the rows are padded to
powers of two (at least ``MIN_SIZE`` codes, ``MIN_ROWS`` rows), so sweeps share programs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.adversary_directed.classes import relabel
from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

__all__ = ["dense_batch", "dense_numpy", "dense_values", "layers", "plan"]

NEG = -1e9  # infeasible code
T_MAX = 16  # 3^16 float32 values = 172 MB per class; codes stay inside int32
# Minimum padded shapes: every claim's sweep (one family, T ≤ 12) fits them, so the claims share one program
# per learner and mode; larger sweeps (the benchmark's 32 games) take the next power of two.
MIN_ROWS, MIN_SIZE = 2048, 1 << 20
WIDTH = 4  # open instances per code per pass (a layer with j open instances takes ⌈j / WIDTH⌉ passes)
_OPTIONS = {"xla_backend_optimization_level": 1}


def _pow2(n: int, lo: int) -> int:
    return max(lo, 1 << max(0, n - 1).bit_length())


@functools.lru_cache(maxsize=32)
def layers(T: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per j = 1..T: (codes ``[n_j]`` with exactly j open digits, ``offs [n_j, j]`` = 3^x of its open x, ascending).

    Codes are local (class offset 0); ``n_j`` = C(T, j)·2^(T−j).
    """
    check_range("T", T, 0, T_MAX)
    codes = np.arange(3**T, dtype=np.int32)
    open_ = np.stack([(codes // 3**x) % 3 == 0 for x in range(T)], axis=1) if T else np.zeros((1, 0), bool)
    n_open = open_.sum(axis=1)
    pow3 = np.broadcast_to((3 ** np.arange(T)).astype(np.int32), open_.shape)
    return tuple((codes[n_open == j], pow3[n_open == j][open_[n_open == j]].reshape(-1, j)) for j in range(1, T + 1))


def plan(Ts: tuple[int, ...], width: int = WIDTH, codes_per_row: int = 1024):
    """The row schedule of a sweep of classes with ``Ts`` real columns (depends on the T's only).

    Layer j's (code, open x) pairs are split into ⌈j / width⌉ passes of ``width`` offsets per code (the last
    padded with the code's first open x); a pass is cut into rows of ``codes_per_row`` codes (padded with the
    layer's first code with its offsets, so a repeated code writes the same value), and the passes of a layer
    run one after the other. Returns (``codes [R, B]`` global codes, ``offs [R, B·width]``, ``first [R]`` (1 on a
    layer's first pass: the row's value replaces, else it is combined with the stored partial value),
    ``count`` rows in use, ``bases [n]`` each class's offset = its root code, ``size`` = Σ 3^T).
    """
    check_range("width", width, 1, T_MAX)
    check_range("codes_per_row", codes_per_row, 1)
    bases = np.cumsum([0] + [3**T for T in Ts]).astype(np.int64)
    size = int(bases[-1])
    if size >= 2**31:
        raise ConfigError(f"Ts={Ts!r} is not allowed; Σ 3^T = {size} codes must stay below 2^31")
    B = codes_per_row
    codes, offs, first = [], [], []
    for j in range(1, max(Ts, default=0) + 1):
        have = [(layers(T)[j - 1], int(b)) for T, b in zip(Ts, bases[:-1], strict=True) if T >= j]
        c = np.concatenate([lay[0] + b for lay, b in have])
        o = np.concatenate([lay[1] for lay, _ in have])
        passes = -(-j // width)
        o = np.concatenate([o, np.repeat(o[:, :1], passes * width - j, axis=1)], axis=1)
        n = -(-len(c) // B) * B
        c = np.concatenate([c, np.repeat(c[:1], n - len(c))])
        o = np.concatenate([o, np.repeat(o[:1], n - len(o), axis=0)])
        for s in range(passes):
            codes.append(c.reshape(-1, B))
            offs.append(o[:, s * width : (s + 1) * width].reshape(-1, B * width))
            first.append(np.full(n // B, s == 0))
    if not codes:
        return np.zeros((0, B), np.int32), np.zeros((0, B * width), np.int32), np.zeros(0, bool), 0, bases[:-1], size
    return (
        np.concatenate(codes).astype(np.int32),
        np.concatenate(offs).astype(np.int32),
        np.concatenate(first),
        sum(len(c) for c in codes),
        bases[:-1].astype(np.int32),
        size,
    )


@functools.lru_cache(maxsize=4)  # ≤ 40 MB each at the minimum padded shape
def _device_plan(Ts: tuple[int, ...]):
    """:func:`plan` on the device, rows padded to a power of two ≥ ``MIN_ROWS`` (zero rows are never run)."""
    codes, offs, first, count, bases, size = plan(Ts)
    rows = _pow2(count, MIN_ROWS)
    codes = jnp.zeros((rows, codes.shape[1]), jnp.int32).at[:count].set(codes)
    offs = jnp.zeros((rows, offs.shape[1]), jnp.int32).at[:count].set(offs)
    return codes, offs, jnp.zeros(rows, bool).at[:count].set(first), count, bases, size


def _combine(v0, v1, randomized: bool):
    f0, f1 = v0 > NEG / 2, v1 > NEG / 2
    hi, lo = jnp.maximum(v0, v1), jnp.minimum(v0, v1)
    both = jnp.where(hi - lo >= 1.0, hi, (1.0 + hi + lo) / 2.0) if randomized else jnp.maximum(hi, lo + 1.0)
    return jnp.where(f0 & f1, both, jnp.where(f0, v0, jnp.where(f1, v1, NEG)))


def _sweep(
    val: Float[Array, "size k"],
    roots: Int[Array, " r"],
    codes: Int[Array, "rows b"],
    offs: Int[Array, "rows bw"],
    first: Bool[Array, " rows"],
    count: Int[Array, ""],
    *,
    learners: tuple[bool, ...],
    self_directed: bool,
) -> Float[Array, "r k"]:
    """Values at ``roots`` of the DP over one value array (``val``: 0 at hypothesis codes, else ``NEG``)."""
    B = codes.shape[1]
    width = offs.shape[1] // B
    pick = jnp.minimum if self_directed else jnp.maximum

    def body(r, val):
        c = codes[r]
        o = offs[r].reshape(B, width)
        c0 = c[:, None] + o
        v0 = val.at[c0].get(mode="promise_in_bounds")  # [B, width, k]
        v1 = val.at[c0 + o].get(mode="promise_in_bounds")
        vx = jnp.stack([_combine(v0[..., k], v1[..., k], rnd) for k, rnd in enumerate(learners)], axis=-1)
        v = jnp.min(vx, axis=1) if self_directed else jnp.max(vx, axis=1)
        v = jnp.where(first[r], v, pick(v, val.at[c].get(mode="promise_in_bounds")))
        return val.at[c].set(v, mode="promise_in_bounds")

    return jax.lax.fori_loop(0, count, body, val)[roots]


@functools.lru_cache(maxsize=16)
def _sweep_fn(learners: tuple[bool, ...], self_directed: bool):
    fn = functools.partial(_sweep, learners=learners, self_directed=self_directed)
    return jax.jit(fn, compiler_options=_OPTIONS)


def dense_batch(
    classes: Sequence[ArrayLike],
    randomized: bool | str = False,
    mode: str = "adversary",
) -> np.ndarray:
    """Game values of binary classes (≤ 2 labels per column) by the dense ternary DP, one jitted program.

    All classes share one value array and one row schedule (:func:`plan`), so a sweep is one dispatch; the
    program's shapes (value array, rows, roots) are padded to powers of two so similar sweeps share it.
    ``randomized="both"`` returns ``[n, 2]`` (deterministic, randomized).
    """
    return dense_values([relabel(c) for c in classes], randomized, mode)


def dense_values(mats: Sequence[np.ndarray], randomized: bool | str = False, mode: str = "adversary") -> np.ndarray:
    """:func:`dense_batch` on classes already relabelled per column (``classes.relabel``), e.g. by ``solve_batch``."""
    check_choice("mode", mode, ("adversary", "self"))
    check_choice("randomized", randomized, (False, True, "both"))
    if not len(mats):
        return np.zeros(0, np.float64)
    for i, c in enumerate(mats):
        if c.size and int(c.max()) > 1:
            raise ValueError(f"classes[{i}]: the dense solver takes binary classes; got {int(c.max()) + 1} labels")
        check_range(f"classes[{i}] columns (dense solver: 3^T codes)", c.shape[1], 0, T_MAX)
    Ts = tuple(int(c.shape[1]) for c in mats)
    codes, offs, first, count, bases, size = _device_plan(Ts)
    learners = (False, True) if randomized == "both" else (bool(randomized),)
    val = np.full((_pow2(size, MIN_SIZE), len(learners)), NEG, np.float32)
    own = [c @ 3 ** np.arange(c.shape[1]) + (b + (3 ** c.shape[1] - 1) // 2) for c, b in zip(mats, bases, strict=True)]
    val[np.concatenate(own)] = 0.0  # each hypothesis's full code: Σ (1 + h_x)·3^x
    roots = np.concatenate([bases, np.repeat(bases[:1], _pow2(len(bases), 16) - len(bases))]).astype(np.int32)
    out = np.asarray(_sweep_fn(learners, mode == "self")(val, roots, codes, offs, first, count), np.float64)
    out = out[: len(mats)]
    return out if randomized == "both" else out[:, 0]


def dense_numpy(H: Int[ArrayLike, "m t"], randomized: bool = False) -> float:
    """The same DP in NumPy, each layer one vectorised expression over its (code, open x) pairs.

    The best vectorised NumPy version (benchmark baseline, test reference): the same compact layers
    (:func:`layers`, only open instances visited) as the jitted path, without the padding to widths or rows.
    """
    H = relabel(H)
    m, T = H.shape
    val = np.full(3**T, NEG)
    val[np.sum((1 + H) * 3 ** np.arange(T), axis=1)] = 0.0
    for codes, offs in layers(T):
        c0 = codes[:, None] + offs
        v0, v1 = val[c0], val[c0 + offs]
        f0, f1 = v0 > NEG / 2, v1 > NEG / 2
        hi, lo = np.maximum(v0, v1), np.minimum(v0, v1)
        both = np.where(hi - lo >= 1.0, hi, (1.0 + hi + lo) / 2.0) if randomized else np.maximum(hi, lo + 1.0)
        val[codes] = np.max(np.where(f0 & f1, both, np.where(f0, v0, np.where(f1, v1, NEG))), axis=1)
    return float(val[0])
