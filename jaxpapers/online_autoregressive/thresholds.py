"""Enumeration of the linear threshold functions LTF_d as packed truth tables (spec Family 2, claim O7).

A truth table is a uint64 bitmask: bit x is f(x) for the input whose bit i is x_i (the window convention of
:mod:`.generators`). Two enumerations give the same set (tested equal for d ≤ 5):

* ``method="grid"`` (the spec's): every integer weight vector w ∈ {-W..W}^d with every distinct threshold
  (θ = -∞ and θ = each input's sum), de-duplicated. The grid is streamed in blocks of ``block_size`` weight
  vectors (one compiled program for every block; each block's tables are de-duplicated on the host and merged
  into the running set), so memory is O(block + |LTF_d|) instead of O((2W+1)^d · 2^d); d = 6 (W = 9,
  47 M weight vectors) is bounded by the 15 M distinct tables.
* ``method="symmetric"``: the same set from the non-negative, non-decreasing weight vectors only
  (C(W + d, d) of them), closed under the symmetries of the cube. Negating input i maps 1[⟨w,x⟩ > θ] to
  1[⟨w',x⟩ > θ - w_i] with w'_i = -w_i, and permuting inputs permutes w, so every weight vector of the grid
  with every threshold is the image of a sorted non-negative one under negations and a permutation. The
  closure uses delta swaps on the bitmasks: permutations by the coset rule S_k = ∪_{j ≤ k} (j k)·S_{k-1},
  then all 2^d negation patterns at once (one sort).
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Int, UInt32, UInt64

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.sim import vmap_chunked

# Weight ranges that reach every threshold function (spec Family 2; d = 6 is the full preset's).
DEFAULT_WEIGHT_RANGE = {1: 1, 2: 1, 3: 2, 4: 3, 5: 5, 6: 9}
# OEIS A000609: number of threshold functions of d or fewer variables.
A000609 = {0: 2, 1: 4, 2: 14, 3: 104, 4: 1882, 5: 94572, 6: 15028134, 7: 8378070864}
METHODS = ("grid", "symmetric")


def window_bits(d: int) -> np.ndarray:
    """int32[2^d, d]: bit i of every context index."""
    return ((np.arange(2**d)[:, None] >> np.arange(d)[None, :]) & 1).astype(np.int32)


def weight_grid(d: int, w: int, start: int = 0, size: int | None = None) -> np.ndarray:
    """int32[size, d]: rows ``start .. start + size - 1`` of the grid {-W..W}^d in ``meshgrid(indexing="ij")``
    order (first coordinate most significant); rows past the end repeat the last one. Default: the whole grid."""
    base, total = 2 * w + 1, (2 * w + 1) ** d
    size = total - start if size is None else size
    idx = np.minimum(np.arange(start, start + size, dtype=np.int64), total - 1)
    powers = base ** np.arange(d - 1, -1, -1, dtype=np.int64)
    return ((idx[:, None] // powers[None, :]) % base - w).astype(np.int32)


def _packed_tables_one(w: Int[Array, " d"], bits: Int[Array, "p d"]) -> UInt32[Array, "t words"]:
    """Packed truth tables of 1[<w, x> > θ] for θ = -∞ and θ = every input's sum (all distinct thresholds)."""
    sums = bits @ w  # [P]
    thetas = jnp.concatenate([jnp.array([jnp.iinfo(jnp.int32).min], sums.dtype), sums])  # [P + 1]
    tab = sums[None, :] > thetas[:, None]  # [P + 1, P]
    p = bits.shape[0]
    words = max(1, p // 32)
    tab = tab.reshape(p + 1, words, min(p, 32)).astype(jnp.uint32)
    shifts = jnp.arange(min(p, 32), dtype=jnp.uint32)
    return jnp.sum(tab << shifts, axis=-1, dtype=jnp.uint32)  # bits never overlap: sum = or


@functools.partial(jax.jit, static_argnames=("chunk_size",))
def packed_ltf_tables(
    weights: Int[ArrayLike, "g d"], bits: Int[ArrayLike, "p d"], chunk_size: int | None = None
) -> UInt32[Array, "g t words"]:
    """The jitted enumeration kernel: weight grid → sums → every threshold → packed truth tables."""
    return vmap_chunked(lambda w: _packed_tables_one(w, jnp.asarray(bits)), jnp.asarray(weights), chunk_size=chunk_size)


def _keys(weights: np.ndarray, d: int, chunk_size: int | None) -> np.ndarray:
    """uint64 bitmasks (unsorted, with repeats) of every threshold of every weight vector."""
    packed = np.asarray(packed_ltf_tables(weights, window_bits(d), chunk_size=chunk_size))
    packed = packed.reshape(-1, packed.shape[-1]).astype(np.uint64)
    return packed[:, 0] | (packed[:, 1] << np.uint64(32)) if packed.shape[1] == 2 else packed[:, 0]


def _grid(d: int, w: int, chunk_size: int | None, block_size: int) -> np.ndarray:
    total = (2 * w + 1) ** d
    block = min(block_size, total)
    done, pending, n_pending = np.zeros(0, np.uint64), [], 0
    for start in range(0, total, block):
        keys = np.unique(_keys(weight_grid(d, w, start, block), d, chunk_size))  # padded rows repeat: harmless
        pending.append(keys)
        n_pending += keys.size
        if n_pending > max(done.size, 1 << 22):  # merge when the pending blocks outgrow the running set
            done, pending, n_pending = np.unique(np.concatenate([done, *pending])), [], 0
    return np.unique(np.concatenate([done, *pending]))


def _delta_swap(m: np.ndarray, mask: int, shift: int) -> np.ndarray:
    """Swap the bits at positions ``p`` in ``mask`` with those at ``p + shift``."""
    t = ((m >> np.uint64(shift)) ^ m) & np.uint64(mask)
    return m ^ t ^ (t << np.uint64(shift))


def swap_inputs(m: UInt64[np.ndarray, " n"], d: int, i: int, j: int) -> UInt64[np.ndarray, " n"]:
    """Truth tables of f(x with inputs i < j exchanged)."""
    xs = np.arange(2**d)
    mask = sum(1 << int(x) for x in xs[((xs >> i) & 1 == 1) & ((xs >> j) & 1 == 0)])
    return _delta_swap(m, mask, (1 << j) - (1 << i))


def negate_input(m: UInt64[np.ndarray, " n"], d: int, i: int) -> UInt64[np.ndarray, " n"]:
    """Truth tables of f(x with input i negated)."""
    xs = np.arange(2**d)
    mask = sum(1 << int(x) for x in xs[(xs >> i) & 1 == 0])
    return _delta_swap(m, mask, 1 << i)


def _symmetric(d: int, w: int, chunk_size: int | None) -> np.ndarray:
    sorted_nonneg = np.array(list(itertools.combinations_with_replacement(range(w + 1), d)), np.int32)
    s = np.unique(_keys(sorted_nonneg, d, chunk_size))
    for k in range(1, d):  # closed under permutations of inputs 0..k
        s = np.unique(np.concatenate([s] + [swap_inputs(s, d, j, k) for j in range(k)]))
    images = [s]  # images[n]: s with the inputs in the bit set n negated (built from n without its lowest bit)
    for n in range(1, 2**d):
        low = (n & -n).bit_length() - 1
        images.append(negate_input(images[n & (n - 1)], d, low))
    return np.unique(np.concatenate(images))  # one sort of 2^d · |s| keys


def enumerate_ltfs(
    d: int, w: int | None = None, chunk_size: int | None = 16_384, method: str = "grid", block_size: int = 1 << 16
) -> np.ndarray:
    """uint64[N] sorted: the distinct threshold functions 1[<w,x> > θ] on {0,1}^d as truth-table bitmasks (bit x).

    Integer weights in {-W..W}^d with every distinct threshold (θ = -∞ gives the constant 1, θ = max sum
    the constant 0). With the default W the count is A000609(d) (claim O7). ``method`` "grid" streams the
    whole grid in blocks of ``block_size`` weight vectors, "symmetric" closes the sorted non-negative weights
    under the cube's symmetries (module docstring); both give the same set.
    """
    check_range("d", d, 1, 6)
    w = DEFAULT_WEIGHT_RANGE[d] if w is None else w
    check_range("W", w, 1, 64)
    check_choice("method", method, METHODS)
    check_range("block_size", block_size, 1)
    return _grid(d, w, chunk_size, block_size) if method == "grid" else _symmetric(d, w, chunk_size)


def unpack_tables(masks: UInt64[ArrayLike, " n"], d: int) -> Bool[np.ndarray, "n p"]:
    """bool[N, 2^d] truth tables from uint64 bitmasks (one byte per entry: no [N, 2^d] uint64 intermediate)."""
    raw = np.ascontiguousarray(masks, dtype="<u8").reshape(-1).view(np.uint8).reshape(-1, 8)
    return np.unpackbits(raw, axis=1, count=2**d, bitorder="little").astype(bool)
