"""The fine FSA branch as a Pallas GPU (Triton) kernel, forward and backward (spec "pallas_gpu.py").

Letters: B batch, N heads, T query frames, S key frames, K selection slots (S_max), P tokens per
frame, H head dim (Hp: padded to a power of two). Layouts are the ``jax.nn.dot_product_attention``
ones, as in ``jax.experimental.pallas.ops.gpu.attention.mha``: q [B, T·P, N, H], k/v [B, S·P, N, H];
``sel`` [B, N, T, K] (ascending, −1 padded) and ``num_sel`` [B, N, T] come from the routing.

* Forward, grid (T·P / block_q, B, N): a query tile lies in one frame i (block_q | P). A
  ``fori_loop`` over the ``num_sel[i]`` selected frames reads j = ``sel[i, s]`` one scalar at a time
  (a row of 3 or 9 entries is not a power-of-two load), and a static loop over the P / block_k key
  sub-tiles of frame j runs the FlashAttention-2 online-softmax update in base 2 (logits scaled by
  log2 e / √H, ``exp2``). It writes O and the LSE in the log2 domain; padding slots (−1) are never
  read because the loop is bounded by ``num_sel``. A row whose union is empty (cannot happen: the own
  frame is always selected) gives O = 0 and LSE = −inf, not NaN.
* Backward: δ = rowsum(dO∘O) − log2(e)·dLSE₂ (in jnp: one fused XLA reduction; the dLSE term makes
  the LSE output differentiable too); a dQ kernel with the forward's grid and loops, recomputing
  p = exp2(s − LSE); a dK/dV kernel, grid (S·P / block_k, B, N), that loops over the query frames
  that selected key frame j (``routing.inverse_selection``, bounded by its count) and their query
  sub-tiles.
* ``jax.custom_vjp`` wires them; ``sel``/``num_sel`` get no cotangent. ``interpret=True`` runs
  everything on the CPU (values only); lowering for ``cuda`` on the CPU checks block shapes and
  loads (see the tests). Backend choice and version drift live in :mod:`.compat`.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jaxtyping import Array, Float, Int

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.kernels.fsa.compat import dot as tile_dot
from jaxpapers.fuxvit.kernels.fsa.compat import masked_load, masked_store, next_power_of_2, pl, triton_params
from jaxpapers.fuxvit.routing import inverse_selection

LOG2E = math.log2(math.e)


@dataclasses.dataclass(frozen=True)
class BlockSizes:
    """Tile sizes (powers of two ≥ 16 that divide P; None = min(64, P)) and Triton launch params.

    ``block_q``/``block_k``: query/key tile of the forward and dQ kernels; ``block_q_dkv``/
    ``block_k_dkv``: the same for the dK/dV kernel.
    """

    block_q: int | None = None
    block_k: int | None = None
    block_q_dkv: int | None = None
    block_k_dkv: int | None = None
    num_warps: int = 4
    num_stages: int = 2

    def resolve(self, P: int) -> BlockSizes:
        default = min(64, P)
        sizes = {f: getattr(self, f) or default for f in ("block_q", "block_k", "block_q_dkv", "block_k_dkv")}
        for name, b in sizes.items():
            if b < 16 or b & (b - 1) or P % b:
                raise ConfigError(
                    f"{name}={b} is not allowed for P={P} tokens per frame: block sizes are powers of two ≥ 16 "
                    "that divide P (pad frames to such a P)"
                )
        return dataclasses.replace(self, **sizes)


def _check(q: jax.Array, k: jax.Array, v: jax.Array, sel: jax.Array, num_sel: jax.Array, P: int) -> tuple[int, ...]:
    b, n_q, n, h = q.shape
    if k.shape != v.shape or k.shape[0] != b or k.shape[2:] != (n, h):
        raise ConfigError(
            f"k {tuple(k.shape)} and v {tuple(v.shape)} must be (B, S·P, N, H) with q's B, N, H {(b, n, h)}"
        )
    if n_q % P or k.shape[1] % P:
        raise ConfigError(f"sequence lengths {n_q} (q) and {k.shape[1]} (k) must be multiples of P={P}")
    t = n_q // P
    if sel.ndim != 4 or sel.shape[:3] != (b, n, t):
        raise ConfigError(f"sel has shape {tuple(sel.shape)}; expected (B, N, T, slots) = ({b}, {n}, {t}, ·)")
    if num_sel.shape != (b, n, t):
        raise ConfigError(f"num_sel has shape {tuple(num_sel.shape)}; expected (B, N, T) = ({b}, {n}, {t})")
    return b, n, t, k.shape[1] // P, h


def _head_mask(h: int, hp: int) -> jax.Array | None:
    return None if h == hp else (jnp.arange(hp) < h)[None, :]


def _dot(a: jax.Array, b: jax.Array, *, trans_a: bool = False, trans_b: bool = False) -> jax.Array:
    """float32-accumulating tile product (no TF32 for float32 inputs, so fp32 parity holds on a GPU)."""
    return tile_dot(a, b, trans_a=trans_a, trans_b=trans_b, exact=a.dtype == jnp.float32 and b.dtype == jnp.float32)


# ---------------------------------------------------------------------------------------------- forward


def _fwd_kernel(q_ref, k_ref, v_ref, sel_ref, ns_ref, o_ref, lse_ref, *, P, block_q, block_k, h, scale):
    """One query tile [block_q, Hp] of frame i against the union of its selected frames."""
    hp = q_ref.shape[-1]
    mask = _head_mask(h, hp)
    frame = lax.div(pl.program_id(0), P // block_q)
    q = masked_load(q_ref, mask)
    qk_scale = scale * LOG2E

    def one_frame(s, carry):
        j = sel_ref[frame, s]
        for c in range(P // block_k):  # static: the key sub-tiles of frame j
            o, m, l = carry
            rows = pl.ds(j * P + c * block_k, block_k)
            kt = masked_load(k_ref.at[rows, :], mask)
            vt = masked_load(v_ref.at[rows, :], mask)
            s2 = _dot(q, kt, trans_b=True) * qk_scale  # [block_q, block_k], log2 domain
            m_new = jnp.maximum(m, jnp.max(s2, axis=-1))
            corr = jnp.exp2(m - m_new)
            p = jnp.exp2(s2 - m_new[:, None])
            carry = (corr[:, None] * o + _dot(p.astype(vt.dtype), vt), m_new, corr * l + p.sum(axis=-1))
        return carry

    init = (
        jnp.zeros((block_q, hp), jnp.float32),
        jnp.full((block_q,), -jnp.inf, jnp.float32),
        jnp.zeros((block_q,), jnp.float32),
    )
    o, m, l = lax.fori_loop(0, ns_ref[frame], one_frame, init)
    nonempty = l > 0
    o = o / jnp.where(nonempty, l, 1.0)[:, None]
    lse_ref[...] = jnp.where(nonempty, m + jnp.log2(jnp.where(nonempty, l, 1.0)), -jnp.inf)
    masked_store(o_ref, o.astype(o_ref.dtype), mask)


def _forward(q, k, v, sel, num_sel, P, blocks, interpret):
    b, n, t, s_frames, h = _check(q, k, v, sel, num_sel, P)
    hp = max(next_power_of_2(h), 16)
    bq, bk = blocks.block_q, blocks.block_k
    n_q, n_k = t * P, s_frames * P
    k_slots = sel.shape[-1]
    kernel = functools.partial(_fwd_kernel, P=P, block_q=bq, block_k=bk, h=h, scale=h**-0.5)
    o, lse = pl.pallas_call(
        kernel,
        grid=(n_q // bq, b, n),
        in_specs=[
            pl.BlockSpec((None, bq, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            pl.BlockSpec((None, n_k, None, hp), lambda i, bb, hh: (bb, 0, hh, 0)),
            pl.BlockSpec((None, n_k, None, hp), lambda i, bb, hh: (bb, 0, hh, 0)),
            pl.BlockSpec((None, None, t, k_slots), lambda i, bb, hh: (bb, hh, 0, 0)),
            pl.BlockSpec((None, None, t), lambda i, bb, hh: (bb, hh, 0)),
        ],
        out_specs=[
            pl.BlockSpec((None, bq, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            pl.BlockSpec((None, None, bq), lambda i, bb, hh: (bb, hh, i)),
        ],
        out_shape=[jax.ShapeDtypeStruct(q.shape, q.dtype), jax.ShapeDtypeStruct((b, n, n_q), jnp.float32)],
        compiler_params=triton_params(blocks.num_warps, blocks.num_stages),
        interpret=interpret,
        name="fsa_fine_forward",
    )(q, k, v, sel.astype(jnp.int32), num_sel.astype(jnp.int32))
    return o, lse


# --------------------------------------------------------------------------------------------- backward


def _dq_kernel(
    q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref, sel_ref, ns_ref, dq_ref, *, P, block_q, block_k, h, scale
):
    hp = q_ref.shape[-1]
    mask = _head_mask(h, hp)
    frame = lax.div(pl.program_id(0), P // block_q)
    q = masked_load(q_ref, mask)
    do = masked_load(do_ref, mask)
    lse = lse_ref[...]
    delta = delta_ref[...]
    qk_scale = scale * LOG2E

    def one_frame(s, dq):
        j = sel_ref[frame, s]
        for c in range(P // block_k):
            rows = pl.ds(j * P + c * block_k, block_k)
            kt = masked_load(k_ref.at[rows, :], mask)
            vt = masked_load(v_ref.at[rows, :], mask)
            p = jnp.exp2(_dot(q, kt, trans_b=True) * qk_scale - lse[:, None])
            ds = p * (_dot(do, vt, trans_b=True) - delta[:, None])
            dq = dq + _dot(ds.astype(kt.dtype), kt)
        return dq

    dq = lax.fori_loop(0, ns_ref[frame], one_frame, jnp.zeros((block_q, hp), jnp.float32))
    masked_store(dq_ref, (dq * scale).astype(dq_ref.dtype), mask)


def _dkv_kernel(
    q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref, inv_ref, cnt_ref, dk_ref, dv_ref, *, P, block_q, block_k, h, scale
):
    """One key tile [block_k, Hp] of frame j against every query frame that selected j."""
    hp = k_ref.shape[-1]
    mask = _head_mask(h, hp)
    frame = lax.div(pl.program_id(0), P // block_k)
    kt = masked_load(k_ref, mask)
    vt = masked_load(v_ref, mask)
    qk_scale = scale * LOG2E

    def one_query_frame(r, carry):
        i = inv_ref[frame, r]
        for c in range(P // block_q):
            dk, dv = carry
            rows = pl.ds(i * P + c * block_q, block_q)
            q = masked_load(q_ref.at[rows, :], mask)
            do = masked_load(do_ref.at[rows, :], mask)
            lse = lse_ref[rows]
            delta = delta_ref[rows]
            p = jnp.exp2(_dot(q, kt, trans_b=True) * qk_scale - lse[:, None])  # [block_q, block_k]
            dv = dv + _dot(p.astype(do.dtype), do, trans_a=True)
            ds = p * (_dot(do, vt, trans_b=True) - delta[:, None])
            dk = dk + _dot(ds.astype(q.dtype), q, trans_a=True)
            carry = (dk, dv)
        return carry

    zeros = jnp.zeros((block_k, hp), jnp.float32)
    dk, dv = lax.fori_loop(0, cnt_ref[frame], one_query_frame, (zeros, zeros))
    masked_store(dk_ref, (dk * scale).astype(dk_ref.dtype), mask)
    masked_store(dv_ref, dv.astype(dv_ref.dtype), mask)


def _backward(q, k, v, sel, num_sel, o, lse, do, dlse, P, blocks, interpret):
    b, n, t, s_frames, h = _check(q, k, v, sel, num_sel, P)
    hp = max(next_power_of_2(h), 16)
    n_q, n_k = t * P, s_frames * P
    k_slots = sel.shape[-1]
    # δ = rowsum(dO∘O) − log2(e)·dLSE₂: the LSE output's cotangent enters ds exactly like δ does.
    delta = jnp.einsum("bqnh,bqnh->bnq", do.astype(jnp.float32), o.astype(jnp.float32))
    delta = delta - LOG2E * jnp.where(jnp.isfinite(lse), dlse, 0.0)
    lse = jnp.where(jnp.isfinite(lse), lse, jnp.inf)  # empty rows: p = exp2(s − inf) = 0
    params = triton_params(blocks.num_warps, blocks.num_stages)
    full = lambda rows: pl.BlockSpec((None, rows, None, hp), lambda i, bb, hh: (bb, 0, hh, 0))  # noqa: E731
    full_row = lambda rows: pl.BlockSpec((None, None, rows), lambda i, bb, hh: (bb, hh, 0))  # noqa: E731

    bq, bk = blocks.block_q, blocks.block_k
    dq = pl.pallas_call(
        functools.partial(_dq_kernel, P=P, block_q=bq, block_k=bk, h=h, scale=h**-0.5),
        grid=(n_q // bq, b, n),
        in_specs=[
            pl.BlockSpec((None, bq, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            full(n_k),
            full(n_k),
            pl.BlockSpec((None, bq, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            pl.BlockSpec((None, None, bq), lambda i, bb, hh: (bb, hh, i)),
            pl.BlockSpec((None, None, bq), lambda i, bb, hh: (bb, hh, i)),
            pl.BlockSpec((None, None, t, k_slots), lambda i, bb, hh: (bb, hh, 0, 0)),
            full_row(t),
        ],
        out_specs=pl.BlockSpec((None, bq, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        compiler_params=params,
        interpret=interpret,
        name="fsa_fine_backward_dq",
    )(q, k, v, do, lse, delta, sel.astype(jnp.int32), num_sel.astype(jnp.int32))

    inv, inv_cnt = inverse_selection(sel, s_frames)  # [B, N, S, T], [B, N, S]
    bq, bk = blocks.block_q_dkv, blocks.block_k_dkv
    dk, dv = pl.pallas_call(
        functools.partial(_dkv_kernel, P=P, block_q=bq, block_k=bk, h=h, scale=h**-0.5),
        grid=(n_k // bk, b, n),
        in_specs=[
            full(n_q),
            pl.BlockSpec((None, bk, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            pl.BlockSpec((None, bk, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            full(n_q),
            full_row(n_q),
            full_row(n_q),
            pl.BlockSpec((None, None, s_frames, t), lambda i, bb, hh: (bb, hh, 0, 0)),
            full_row(s_frames),
        ],
        out_specs=[
            pl.BlockSpec((None, bk, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
            pl.BlockSpec((None, bk, None, hp), lambda i, bb, hh: (bb, i, hh, 0)),
        ],
        out_shape=[jax.ShapeDtypeStruct(k.shape, k.dtype), jax.ShapeDtypeStruct(v.shape, v.dtype)],
        compiler_params=params,
        interpret=interpret,
        name="fsa_fine_backward_dkv",
    )(q, k, v, do, lse, delta, inv, inv_cnt)
    return dq, dk, dv


# ------------------------------------------------------------------------------------------ custom_vjp


@functools.partial(jax.custom_vjp, nondiff_argnums=(5, 6, 7))
def _fsa_fine(q, k, v, sel, num_sel, P, blocks, interpret):
    return _forward(q, k, v, sel, num_sel, P, blocks, interpret)


def _fsa_fine_fwd(q, k, v, sel, num_sel, P, blocks, interpret):
    o, lse = _forward(q, k, v, sel, num_sel, P, blocks, interpret)
    return (o, lse), (q, k, v, sel, num_sel, o, lse)


def _fsa_fine_bwd(P, blocks, interpret, res, cts):
    q, k, v, sel, num_sel, o, lse = res
    do, dlse = cts
    dq, dk, dv = _backward(q, k, v, sel, num_sel, o, lse, do, dlse, P, blocks, interpret)
    return dq, dk, dv, None, None


_fsa_fine.defvjp(_fsa_fine_fwd, _fsa_fine_bwd)


def fsa_fine(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B SP N H"],
    v: Float[Array, "B SP N H"],
    sel: Int[Array, "B N T K"],
    num_sel: Int[Array, "B N T"],
    P: int,
    *,
    block_sizes: BlockSizes | None = None,
    interpret: bool = False,
) -> tuple[Float[Array, "B TP N H"], Float[Array, "B N TP"]]:
    """O_fine and its log2-domain LSE (``lse₂ = ln-LSE · log2 e``), differentiable in q, k, v (and
    through the LSE). Same contract as ``fsa_fine_reference``; ``interpret=True`` runs on the CPU."""
    blocks = (block_sizes or BlockSizes()).resolve(P)
    return _fsa_fine(q, k, v, sel, num_sel, P, blocks, interpret)
