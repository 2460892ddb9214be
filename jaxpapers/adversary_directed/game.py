"""The exact minimax value of the adversary-directed game (spec "The game"), vectorised in JAX.

State (P, c): P ⊆ S the presented set (a bitmask), c the hypotheses of H|_S that agree with the revealed
labels on P. We store ``val[P, h]`` = value of the state whose version space is the class of h under P
(constant on the class), so no representative table is needed: the class of h under P is
``eq_P[h, h'] = (h, h' agree on every x ∈ P)``, one matrix product of the disagreement tensor with P's bits.

ONE ``lax.fori_loop`` runs over the masks in decreasing numeric order (every child P | 2^x is larger, so
it is solved already); each iteration is vectorised over instances x and hypotheses h, h':

* deterministic learner: value at x = max(v_(1), v_(2) + 1) over the **distinct feasible labels** (top
  two over labels, not hypotheses — spec pitfall), else v_(1) when one label is feasible. We get v_(2)
  without grouping by label: v_(1) is the best child, y* its label, v_(2) the best child with label ≠ y*.
* randomized learner: the c solving Σ_y (1 + v_y − c)_+ = 1 (water-filling); equivalently
  c = max_j (Σ_{i≤j} (1 + v_(i)) − 1)/j over the top-j label values (every subset A gives a lower bound
  (Σ_A (1+v) − 1)/|A| and the active set attains it). Per-label child values use a one-hot label axis L.
* mode ``adversary``: V = max over unpresented x; ``self`` (self-directed): min; V(P = S) = 0.

Shapes are padded to share programs (spec): T up to a multiple of ``t_bucket`` with constant columns that
count as presented from the start (so the loop runs over 2^T masks only — the trip count is dynamic),
|H| to a power of two with duplicate rows, labels to a power of two. None of these changes the value.
``transductive`` values (order fixed and known) run the same combine rule along every order (vmapped).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.adversary_directed.classes import as_class, relabel
from jaxpapers.adversary_directed.dense import T_MAX, dense_values
from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.sim import bucket_size, jit_vmap_chunked

__all__ = [
    "GameSolution",
    "combine_at",
    "pad_class",
    "solve_batch",
    "solve_game",
    "solve_table",
    "transductive_batch",
    "transductive_value",
]

MODES = ("adversary", "self", "transductive")
NEG = -1e9  # "no feasible label"; values are ≤ T so this never meets a real value
# XLA backend optimisation level 1: ~40% shorter compiles, unchanged loop run time (measured, CPU).
_OPTIONS = {"xla_backend_optimization_level": 1}


class GameSolution(NamedTuple):
    """``value`` of the game; ``table[P, h]`` the value of every state (masks over the padded columns);
    ``H`` the relabelled, padded class the table indexes; ``start`` the initial mask (pad bits set)."""

    value: float
    table: np.ndarray
    H: np.ndarray
    start: int


def _pow2(n: int, lo: int) -> int:
    return max(lo, 1 << max(0, math.ceil(math.log2(max(n, 1)))))


def pad_class(
    H: Int[ArrayLike, "m t"], t_pad: int | None = None, m_pad: int | None = None, t_bucket: int = 4
) -> tuple[np.ndarray, int]:
    """Relabels H per column and pads it to ``[m_pad, t_pad]`` (duplicate rows, constant-0 columns).

    Returns (padded int32 matrix, T). Defaults: t_pad = T rounded up to ``t_bucket``, m_pad = next power of
    two ≥ 8. Duplicate rows and constant columns leave every game value unchanged (spec "Scale-up").
    """
    H = relabel(H)
    m, T = H.shape
    t_pad = t_bucket * max(1, math.ceil(T / t_bucket)) if t_pad is None else t_pad
    m_pad = _pow2(m, 8) if m_pad is None else m_pad
    check_range("t_pad", t_pad, T, 30)
    check_range("m_pad", m_pad, m)
    out = np.zeros((m_pad, t_pad), np.int32)
    out[:m, :T] = H
    out[m:, :T] = H[0]
    return out, T


def combine_at(
    eq: Float[Array, "m m"] | Array,
    cv: Float[Array, "x m"],
    labels: Int[Array, "m x"],
    randomized: bool,
    n_labels: int,
) -> Float[Array, "x m"]:
    """Value at each instance x for each state (class of h): the learner's combine rule over labels.

    ``eq[h, h']``: h' is in the class of h; ``cv[x, h']``: value of the child reached by h''s label at x;
    ``labels[h', x]``: that label. Deterministic: max(v_(1), v_(2) + 1); randomized: water-filling.
    """
    lab = labels.T  # [x, h']
    masked = jnp.where(eq[None], cv[:, None, :], NEG)  # [x, h, h']
    if not randomized:
        v1 = jnp.max(masked, axis=-1)
        ystar = jnp.take_along_axis(lab, jnp.argmax(masked, axis=-1), axis=1)  # [x, h]: a label attaining v1
        other = eq[None] & (lab[:, None, :] != ystar[:, :, None])
        v2 = jnp.max(jnp.where(other, cv[:, None, :], NEG), axis=-1)
        return jnp.where(v2 > NEG / 2, jnp.maximum(v1, v2 + 1.0), v1)
    onehot = lab[:, :, None] == jnp.arange(n_labels)  # [x, h', L]
    sel = eq[None, :, :, None] & onehot[:, None, :, :]  # [x, h, h', L]
    vlab = jnp.max(jnp.where(sel, cv[:, None, :, None], NEG), axis=2)  # [x, h, L]
    s = -jnp.sort(-vlab, axis=-1)  # descending, infeasible last
    feasible = s > NEG / 2
    cs = jnp.cumsum(jnp.where(feasible, 1.0 + s, 0.0), axis=-1)
    j = jnp.arange(1, n_labels + 1, dtype=cs.dtype)
    return jnp.max(jnp.where(feasible, (cs - 1.0) / j, NEG), axis=-1)


def _rep_table(H, T, n_labels: int):
    """``rep[P, h]`` = smallest h' with h'|_P = h|_P, for every mask with the pad bits set.

    Increasing masks: the classes under P refine those under P minus its lowest bit x by the label at
    x (one ``segment_min`` keyed by (parent representative, label)): O(|H|) per mask, no |H|² matrix.
    """
    m, t = H.shape
    full = (1 << t) - 1
    start = full - ((jnp.int32(1) << T) - 1)
    idx = jnp.arange(m, dtype=jnp.int32)

    def body(i, rep):
        P = start + i
        x = jnp.int32(31) - jax.lax.clz(P & -P)  # lowest set bit (among the real columns)
        parent = rep[P & ~(jnp.int32(1) << x)]
        key = parent * n_labels + jax.lax.dynamic_index_in_dim(H, x, axis=1, keepdims=False)
        first = jax.ops.segment_min(idx, key, num_segments=m * n_labels)
        return rep.at[P].set(first[key])

    rep0 = jnp.zeros((1 << t, m), jnp.int32)
    return jax.lax.fori_loop(1, jnp.int32(1) << T, body, rep0), start


def _combine_classes(r, cv, H, randomized: bool, n_labels: int):
    """Value at each x of each class (indexed by its representative): ``[m, x]``; ``r[h']`` = class of h'.

    ``cv[h', x]`` is the value of the child class of h' at x. Deterministic: the best child v_(1), a label
    y* attaining it, and the best child with a label ≠ y* (segment max/min over the class); randomized:
    per-(class, label) child values, sorted, water-filled.
    """
    m, t = H.shape
    if not randomized:
        v1 = jax.ops.segment_max(cv, r, num_segments=m)  # [class, x]
        ystar = jax.ops.segment_min(jnp.where(cv == v1[r], H, jnp.iinfo(jnp.int32).max), r, num_segments=m)
        v2 = jax.ops.segment_max(jnp.where(H != ystar[r], cv, NEG), r, num_segments=m)
        return jnp.where(v2 > NEG / 2, jnp.maximum(v1, v2 + 1.0), v1)
    key = r[:, None] * n_labels + H  # [h', x]
    vlab = jax.vmap(lambda v, k: jax.ops.segment_max(v, k, num_segments=m * n_labels), in_axes=1, out_axes=1)(
        cv, key
    ).reshape(m, n_labels, t)
    vlab = jnp.where(vlab > NEG / 2, vlab, NEG)  # empty segments
    s = -jnp.sort(-vlab, axis=1)  # descending over labels, infeasible last
    feasible = s > NEG / 2
    cs = jnp.cumsum(jnp.where(feasible, 1.0 + s, 0.0), axis=1)
    j = jnp.arange(1, n_labels + 1, dtype=cs.dtype)[None, :, None]
    return jnp.max(jnp.where(feasible, (cs - 1.0) / j, NEG), axis=1)


def _table_one(H, T, *, learners: tuple[bool, ...], self_directed: bool, n_labels: int):
    """``val[P, h, k]`` for every mask with the pad bits set (others stay 0), and the start mask.

    ``learners`` lists the learner types solved in the same loop (False: deterministic, True: randomized):
    solving both at once shares the representative table and one compilation.
    """
    m, t = H.shape
    full = (1 << t) - 1
    cols = jnp.arange(t, dtype=jnp.int32)
    rep, start = _rep_table(H, T, n_labels)

    def body(i, val):
        P = full - i
        bits = (P >> cols) & 1
        r = rep[P]
        children = val[P | (jnp.int32(1) << cols)]  # [x, h', k]
        open_ = (bits == 0)[None, :]
        out = []
        for k, randomized in enumerate(learners):
            vx = _combine_classes(r, children[:, :, k].T, H, randomized, n_labels)  # [class, x]
            if self_directed:
                v = jnp.min(jnp.where(open_, vx, -NEG), axis=1)
            else:
                v = jnp.max(jnp.where(open_, vx, NEG), axis=1)
            out.append(jnp.where(jnp.any(bits == 0), v, 0.0)[r])
        return val.at[P].set(jnp.stack(out, axis=-1))

    val0 = jnp.zeros((1 << t, m, len(learners)), jnp.float32)
    val = jax.lax.fori_loop(0, jnp.int32(1) << T, body, val0)
    return val, start


def _value_one(H, T, *, learners: tuple[bool, ...], self_directed: bool, n_labels: int):
    val, start = _table_one(H, T, learners=learners, self_directed=self_directed, n_labels=n_labels)
    return val[start, 0]


@functools.lru_cache(maxsize=64)
def _value_fn(learners: tuple[bool, ...], self_directed: bool, n_labels: int):
    return functools.partial(_value_one, learners=learners, self_directed=self_directed, n_labels=n_labels)


@functools.lru_cache(maxsize=32)
def _table_jit(learners: tuple[bool, ...], self_directed: bool, n_labels: int):
    fn = functools.partial(_table_one, learners=learners, self_directed=self_directed, n_labels=n_labels)
    return jax.jit(fn, compiler_options=_OPTIONS)


def _n_labels(classes: Sequence[np.ndarray], randomized: bool = True) -> int:
    """Label-axis size: a power of two ≥ the most labels any column takes (classes are relabelled)."""
    del randomized
    return _pow2(max(int(c.max()) + 1 if c.size else 1 for c in classes), 2)


def solve_table(
    H: Int[ArrayLike, "m t"],
    randomized: bool = False,
    mode: str = "adversary",
    t_bucket: int = 4,
    m_pad: int | None = None,
    n_labels: int | None = None,
):
    """The full value table of one class (all states): a :class:`GameSolution` (spec ``solve_game`` policy)."""
    check_choice("mode", mode, ("adversary", "self"))
    Hp, T = pad_class(H, m_pad=m_pad, t_bucket=t_bucket)
    n_labels = _n_labels([Hp]) if n_labels is None else n_labels
    val, start = _table_jit((bool(randomized),), mode == "self", n_labels)(jnp.asarray(Hp), jnp.int32(T))
    val = np.asarray(val)[..., 0]
    return GameSolution(float(val[int(start), 0]), val, Hp, int(start))


def solve_batch(
    classes: Sequence[ArrayLike],
    randomized: bool | str = False,
    mode: str = "adversary",
    *,
    t_pad: int | None = None,
    m_pad: int | None = None,
    n_labels: int | None = None,
    t_bucket: int = 4,
    chunk_size: int | None = 1,
    solver: str = "mask",
) -> np.ndarray:
    """Game values of many classes: all padded to ONE shape, one jitted, vmapped program (spec "game.py").

    ``solver``: "mask" (the general solver below), "dense" (binary classes only: the ternary DP of
    :mod:`.dense`, T·3^(T−1) (code, open instance) pairs, no |H|-sized work, all classes in one value array)
    or "auto" (dense for binary classes with T ≤ dense.T_MAX and 3^T ≤ 12·2^T·m_pad at the largest T, else
    mask: a pair costs about 1/4 of a (mask, hypothesis, instance) state on the CPU, measured).
    The dense path ignores ``t_pad``, ``m_pad`` and ``chunk_size`` (it pads nothing per class).

    The shared shape is (``t_pad``, ``m_pad``): by default the largest T rounded up to ``t_bucket`` and the
    next power of two ≥ the largest |H|, and ``n_labels`` (a power of two ≥ the most labels in a column); pass
    fixed values to share one compiled program across sweeps.
    ``chunk_size`` classes run together (``core.sim.jit_vmap_chunked``): 1 runs each class's own 2^T masks
    one after the other inside the compiled loop (best when T varies); larger values vmap classes of
    similar T together. ``randomized="both"`` solves both learners in one loop and returns ``[n, 2]``
    (deterministic, randomized). ``mode``: "adversary" (max over x), "self" (min over x) or "transductive" (max over
    all T! fixed orders, :func:`transductive_batch`).
    """
    check_choice("mode", mode, MODES)
    check_choice("randomized", randomized, (False, True, "both"))
    check_choice("solver", solver, ("mask", "dense", "auto"))
    if mode == "transductive":
        return transductive_batch(classes, randomized)
    if not len(classes):
        return np.zeros(0, np.float64)
    mats = [relabel(c) for c in classes]
    t_max = max(c.shape[1] for c in mats)
    t_pad = t_bucket * max(1, math.ceil(t_max / t_bucket)) if t_pad is None else t_pad
    m_pad = _pow2(max(c.shape[0] for c in mats), 8) if m_pad is None else m_pad
    binary = all(int(c.max(initial=0)) <= 1 for c in mats)
    if solver == "dense" or (solver == "auto" and binary and t_max <= T_MAX and 3**t_max <= 12 * 2**t_max * m_pad):
        return dense_values(mats, randomized, mode)
    padded = [pad_class(c, t_pad, m_pad) for c in mats]
    # Batch sizes in buckets (copies of the cheapest class) so sweeps of 6, 8 or 12 classes share a program.
    cheapest = min(range(len(padded)), key=lambda i: padded[i][1])
    n = len(padded)
    padded += [padded[cheapest]] * (bucket_size(n, None if chunk_size == 1 else chunk_size, minimum=16) - n)
    Hs = jnp.asarray(np.stack([p[0] for p in padded]))
    Ts = jnp.asarray(np.array([p[1] for p in padded], np.int32))
    n_labels = _n_labels(mats) if n_labels is None else n_labels
    learners = (False, True) if randomized == "both" else (bool(randomized),)
    fn = jit_vmap_chunked(_value_fn(learners, mode == "self", n_labels), chunk_size, compiler_options=_OPTIONS)
    out = np.asarray(fn(Hs, Ts), np.float64)[:n]
    return out if randomized == "both" else out[:, 0]


def solve_game(H: Int[ArrayLike, "m t"], randomized: bool = False, order=None, mode: str = "adversary"):
    """Spec API: (value, policy table). ``order`` fixes the presentation order (transductive game along it)."""
    if order is not None:
        return transductive_value(H, randomized, orders=[order]), None
    if mode == "transductive":
        return transductive_value(H, randomized), None
    sol = solve_table(H, randomized, mode)
    return sol.value, sol


def _along_one(H, order, *, randomized: bool, n_labels: int):
    """Value of the game along one fixed order (all T instances, no padding of columns)."""
    m, T = H.shape
    disagree = (H[:, None, :] != H[None, :, :]).astype(jnp.int32)

    def body(k, carry):
        val, bits = carry  # val: value at layer k+1 for every h; bits: presented set before layer k+1
        t = T - 1 - k
        x = order[t]
        bits_t = bits.at[x].set(0)  # presented set before layer t
        eq = (disagree @ bits_t) == 0
        v = combine_at(eq, val[None], jax.lax.dynamic_slice_in_dim(H, x, 1, axis=1), randomized, n_labels)[0]
        return v, bits_t

    val, _ = jax.lax.fori_loop(0, T, body, (jnp.zeros(m, jnp.float32), jnp.ones(T, jnp.int32)))
    return val[0]


@functools.lru_cache(maxsize=32)
def _along_fn(randomized: bool, n_labels: int):
    return functools.partial(_along_one, randomized=randomized, n_labels=n_labels)


def transductive_value(
    H: Int[ArrayLike, "m t"],
    randomized: bool = False,
    orders=None,
    *,
    t_pad: int = 8,
    m_pad: int = 64,
    chunk_size: int = 720,
) -> float:
    """TD(H, S) = max over orders π of the game along π (all T! orders unless ``orders`` is given), vmapped.

    Shapes are padded so one program serves many classes: ``t_pad`` columns (constant pad columns are
    presented first: they never split, so the value is unchanged), ``m_pad`` rows (duplicates), and the
    orders to a multiple of ``chunk_size`` (copies of the first order).
    """
    Hc = relabel(as_class(H))
    m, T = Hc.shape
    if orders is None:
        check_range("T (transductive: T! orders)", T, 0, 9)
        orders = list(itertools.permutations(range(T)))
    orders = np.asarray(orders, np.int32).reshape(-1, T)
    if T == 0:
        return 0.0
    t_pad, m_pad = max(t_pad, T), max(m_pad, _pow2(m, 8))
    Hp, _ = pad_class(Hc, t_pad, m_pad)
    full = np.concatenate([np.broadcast_to(np.arange(T, t_pad, dtype=np.int32), (len(orders), t_pad - T)), orders], 1)
    n = len(full)
    total = -(-n // chunk_size) * chunk_size
    full = np.concatenate([full, np.repeat(full[:1], total - n, axis=0)])
    n_labels = _n_labels([Hc]) if randomized else 2
    fn = jit_vmap_chunked(_along_fn(randomized, n_labels), chunk_size, compiler_options=_OPTIONS)
    Hb = jnp.broadcast_to(jnp.asarray(Hp), (total,) + Hp.shape)
    return float(np.max(np.asarray(fn(Hb, jnp.asarray(full)))))


def transductive_batch(classes, randomized: bool = False) -> np.ndarray:
    """TD values of several classes (one shared padded program over their T! orders each)."""
    return np.array([transductive_value(c, randomized) for c in classes], np.float64)
