"""The fine FSA branch as a Pallas TPU kernel with scalar prefetch (spec "pallas_tpu.py").

NEVER RUN ON A TPU: no TPU is available to this project. It is checked for values in TPU interpret
mode on the CPU (``interpret=True`` → ``pltpu.InterpretParams()``, which models SMEM, VMEM and the
scalar-prefetch index maps) and for block shapes by lowering for ``tpu`` on the CPU (Mosaic's (8, 128)
rule, SMEM scalars). Compiling and timing need a TPU.

Letters: B batch, N heads, T query frames, S key frames, K selection slots, P tokens per frame, H head
dim, C = P / block_k key sub-tiles per frame (Cq = P / block_q for the dK/dV kernel). The public
layout is the GPU kernel's, q [B, T·P, N, H]; inside, the arrays are [B, N, T·P, H], because Mosaic
needs the last two block dims to be multiples of (8, 128) or the full array dims, which a squeezed
head axis in [B, T·P, N, H] breaks.

* Forward, grid (B, N, T·P / block_q, K·C); ``sel`` and ``num_sel`` are scalar-prefetched to SMEM.
  The K/V index map picks sub-tile s % C of frame ``sel[b, n, f, min(s // C, num_sel − 1)]``
  (f = the query tile's frame); on skipped steps (s // C ≥ num_sel) it repeats the last valid block,
  so no new DMA is issued and −1 never becomes a block index. The last grid axis is "arbitrary" and
  the body runs under ``pl.when(s // C < num_sel)``: online softmax in base 2 in VMEM scratch.
* dQ: the forward's grid and index maps. dK/dV: grid (B, N, S·P / block_k, T·Cq) with the inverse
  selection (``routing.inverse_selection``) prefetched: step r reads query sub-tile r % Cq of frame
  ``inv[b, n, j, min(r // Cq, cnt − 1)]``.
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
from jaxpapers.fuxvit.kernels.fsa.compat import pl, pltpu, tpu_interpret, tpu_params
from jaxpapers.fuxvit.routing import inverse_selection

LOG2E = math.log2(math.e)
_SEMANTICS = ("parallel", "parallel", "parallel", "arbitrary")


@dataclasses.dataclass(frozen=True)
class TPUBlockSizes:
    """Query/key tiles (multiples of 8 that divide P; None = min(128, P))."""

    block_q: int | None = None
    block_k: int | None = None

    def resolve(self, P: int) -> TPUBlockSizes:
        sizes = {f: getattr(self, f) or min(128, P) for f in ("block_q", "block_k")}
        for name, b in sizes.items():
            if b % 8 or P % b:
                raise ConfigError(f"{name}={b} is not allowed for P={P}: TPU tiles are multiples of 8 that divide P")
        return dataclasses.replace(self, **sizes)


def _nt(a: jax.Array, b: jax.Array) -> jax.Array:
    """a @ b.T with float32 accumulation."""
    return jax.lax.dot_general(a, b, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)


def _tn(a: jax.Array, b: jax.Array) -> jax.Array:
    """a.T @ b with float32 accumulation."""
    return jax.lax.dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type=jnp.float32)


def _nn(a: jax.Array, b: jax.Array) -> jax.Array:
    return jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)


def _kv_block(P: int, bq: int, bk: int):
    """K/V block index along tokens for query tile qi at step s (clamped: never −1, no DMA when skipped)."""
    c_frame, q_per_frame = P // bk, P // bq

    def index(b, h, qi, s, sel, ns):
        f = lax.div(qi, q_per_frame)
        n = ns[b, h, f]
        live = lax.div(s, c_frame) < n
        slot = jnp.maximum(jnp.where(live, lax.div(s, c_frame), n - 1), 0)
        sub = jnp.where(live, lax.rem(s, c_frame), c_frame - 1)
        return (b, h, jnp.maximum(sel[b, h, f, slot], 0) * c_frame + sub, 0)

    return index


# ---------------------------------------------------------------------------------------------- forward


def _fwd_kernel(sel_ref, ns_ref, q_ref, k_ref, v_ref, o_ref, lse_ref, m_sc, l_sc, acc_sc, *, P, bq, bk, scale):
    b, h, qi, s = (pl.program_id(a) for a in range(4))
    c_frame = P // bk
    f = lax.div(qi, P // bq)

    @pl.when(s == 0)
    def _init():
        m_sc[...] = jnp.full(m_sc.shape, -jnp.inf, jnp.float32)
        l_sc[...] = jnp.zeros(l_sc.shape, jnp.float32)
        acc_sc[...] = jnp.zeros(acc_sc.shape, jnp.float32)

    @pl.when(lax.div(s, c_frame) < ns_ref[b, h, f])
    def _step():
        s2 = _nt(q_ref[...], k_ref[...]) * (scale * LOG2E)  # [bq, bk], log2 domain
        m_prev = m_sc[...]
        m_new = jnp.maximum(m_prev, jnp.max(s2, axis=-1, keepdims=True))
        corr = jnp.exp2(m_prev - m_new)
        p = jnp.exp2(s2 - m_new)
        l_sc[...] = corr * l_sc[...] + jnp.sum(p, axis=-1, keepdims=True)
        acc_sc[...] = corr * acc_sc[...] + _nn(p.astype(v_ref.dtype), v_ref[...])
        m_sc[...] = m_new

    @pl.when(s == pl.num_programs(3) - 1)
    def _finish():
        l = l_sc[...]
        nonempty = l > 0
        safe = jnp.where(nonempty, l, 1.0)
        o_ref[...] = (acc_sc[...] / safe).astype(o_ref.dtype)
        lse_ref[...] = jnp.where(nonempty, m_sc[...] + jnp.log2(safe), -jnp.inf)


def _forward(q, k, v, sel, num_sel, P, blocks, interpret):
    """q, k, v in [B, N, T·P, H]; returns O [B, N, T·P, H] and LSE₂ [B, N, T·P, 1]."""
    b, n, n_q, h = q.shape
    bq, bk = blocks.block_q, blocks.block_k
    k_slots = sel.shape[-1]
    q_map = lambda bb, hh, qi, s, sel, ns: (bb, hh, qi, 0)  # noqa: E731
    kv_map = _kv_block(P, bq, bk)
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=2,
        grid=(b, n, n_q // bq, k_slots * (P // bk)),
        in_specs=[
            pl.BlockSpec((None, None, bq, h), q_map),
            pl.BlockSpec((None, None, bk, h), kv_map),
            pl.BlockSpec((None, None, bk, h), kv_map),
        ],
        out_specs=[pl.BlockSpec((None, None, bq, h), q_map), pl.BlockSpec((None, None, bq, 1), q_map)],
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, h), jnp.float32),
        ],
    )
    return pl.pallas_call(
        functools.partial(_fwd_kernel, P=P, bq=bq, bk=bk, scale=h**-0.5),
        grid_spec=grid_spec,
        out_shape=[jax.ShapeDtypeStruct(q.shape, q.dtype), jax.ShapeDtypeStruct((b, n, n_q, 1), jnp.float32)],
        compiler_params=tpu_params(_SEMANTICS),
        interpret=tpu_interpret(interpret),
        name="fsa_fine_forward_tpu",
    )(sel.astype(jnp.int32), num_sel.astype(jnp.int32), q, k, v)


# --------------------------------------------------------------------------------------------- backward


def _dq_kernel(sel_ref, ns_ref, q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref, dq_ref, acc_sc, *, P, bq, bk, scale):
    b, h, qi, s = (pl.program_id(a) for a in range(4))
    f = lax.div(qi, P // bq)

    @pl.when(s == 0)
    def _init():
        acc_sc[...] = jnp.zeros(acc_sc.shape, jnp.float32)

    @pl.when(lax.div(s, P // bk) < ns_ref[b, h, f])
    def _step():
        kt = k_ref[...]
        p = jnp.exp2(_nt(q_ref[...], kt) * (scale * LOG2E) - lse_ref[...])
        ds = p * (_nt(do_ref[...], v_ref[...]) - delta_ref[...])
        acc_sc[...] += _nn(ds.astype(kt.dtype), kt)

    @pl.when(s == pl.num_programs(3) - 1)
    def _finish():
        dq_ref[...] = (acc_sc[...] * scale).astype(dq_ref.dtype)


def _dkv_kernel(
    inv_ref, cnt_ref, q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref, dk_ref, dv_ref, dk_sc, dv_sc, *, P, bq, bk, scale
):
    b, h, ki, r = (pl.program_id(a) for a in range(4))
    j = lax.div(ki, P // bk)

    @pl.when(r == 0)
    def _init():
        dk_sc[...] = jnp.zeros(dk_sc.shape, jnp.float32)
        dv_sc[...] = jnp.zeros(dv_sc.shape, jnp.float32)

    @pl.when(lax.div(r, P // bq) < cnt_ref[b, h, j])
    def _step():
        q, do = q_ref[...], do_ref[...]
        p = jnp.exp2(_nt(q, k_ref[...]) * (scale * LOG2E) - lse_ref[...])  # [bq, bk]
        dv_sc[...] += _tn(p.astype(do.dtype), do)
        ds = p * (_nt(do, v_ref[...]) - delta_ref[...])
        dk_sc[...] += _tn(ds.astype(q.dtype), q)

    @pl.when(r == pl.num_programs(3) - 1)
    def _finish():
        dk_ref[...] = (dk_sc[...] * scale).astype(dk_ref.dtype)
        dv_ref[...] = dv_sc[...].astype(dv_ref.dtype)


def _backward(q, k, v, sel, num_sel, o, lse, do, dlse, P, blocks, interpret):
    """All in [B, N, T·P, H] (LSE, δ: [B, N, T·P, 1])."""
    b, n, n_q, h = q.shape
    n_k = k.shape[2]
    t, s_frames = n_q // P, n_k // P
    bq, bk = blocks.block_q, blocks.block_k
    k_slots = sel.shape[-1]
    delta = jnp.sum(do.astype(jnp.float32) * o.astype(jnp.float32), axis=-1, keepdims=True)
    delta = delta - LOG2E * jnp.where(jnp.isfinite(lse), dlse, 0.0)
    lse = jnp.where(jnp.isfinite(lse), lse, jnp.inf)
    params = tpu_params(_SEMANTICS)
    interp = tpu_interpret(interpret)
    scale = h**-0.5

    q_map = lambda bb, hh, qi, s, sel, ns: (bb, hh, qi, 0)  # noqa: E731
    kv_map = _kv_block(P, bq, bk)
    dq = pl.pallas_call(
        functools.partial(_dq_kernel, P=P, bq=bq, bk=bk, scale=scale),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(b, n, n_q // bq, k_slots * (P // bk)),
            in_specs=[
                pl.BlockSpec((None, None, bq, h), q_map),
                pl.BlockSpec((None, None, bk, h), kv_map),
                pl.BlockSpec((None, None, bk, h), kv_map),
                pl.BlockSpec((None, None, bq, h), q_map),
                pl.BlockSpec((None, None, bq, 1), q_map),
                pl.BlockSpec((None, None, bq, 1), q_map),
            ],
            out_specs=pl.BlockSpec((None, None, bq, h), q_map),
            scratch_shapes=[pltpu.VMEM((bq, h), jnp.float32)],
        ),
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        compiler_params=params,
        interpret=interp,
        name="fsa_fine_backward_dq_tpu",
    )(sel.astype(jnp.int32), num_sel.astype(jnp.int32), q, k, v, do, lse, delta)

    # dK/dV: the query frames that selected key frame j; the inverse map is the forward's with q ↔ k.
    inv, cnt = inverse_selection(sel, s_frames)  # [B, N, S, T], [B, N, S]
    k_map = lambda bb, hh, ki, r, inv, cnt: (bb, hh, ki, 0)  # noqa: E731
    q_rows = _kv_block(P, bk, bq)
    dk, dv = pl.pallas_call(
        functools.partial(_dkv_kernel, P=P, bq=bq, bk=bk, scale=scale),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(b, n, n_k // bk, t * (P // bq)),
            in_specs=[
                pl.BlockSpec((None, None, bq, h), q_rows),
                pl.BlockSpec((None, None, bk, h), k_map),
                pl.BlockSpec((None, None, bk, h), k_map),
                pl.BlockSpec((None, None, bq, h), q_rows),
                pl.BlockSpec((None, None, bq, 1), q_rows),
                pl.BlockSpec((None, None, bq, 1), q_rows),
            ],
            out_specs=[pl.BlockSpec((None, None, bk, h), k_map), pl.BlockSpec((None, None, bk, h), k_map)],
            scratch_shapes=[pltpu.VMEM((bk, h), jnp.float32), pltpu.VMEM((bk, h), jnp.float32)],
        ),
        out_shape=[jax.ShapeDtypeStruct(k.shape, k.dtype), jax.ShapeDtypeStruct(v.shape, v.dtype)],
        compiler_params=params,
        interpret=interp,
        name="fsa_fine_backward_dkv_tpu",
    )(inv, cnt, q, k, v, do, lse, delta)
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
    return (*_backward(q, k, v, sel, num_sel, o, lse, do, dlse, P, blocks, interpret), None, None)


_fsa_fine.defvjp(_fsa_fine_fwd, _fsa_fine_bwd)


def fsa_fine_tpu(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B SP N H"],
    v: Float[Array, "B SP N H"],
    sel: Int[Array, "B N T K"],
    num_sel: Int[Array, "B N T"],
    P: int,
    *,
    block_sizes: TPUBlockSizes | None = None,
    interpret: bool = False,
) -> tuple[Float[Array, "B TP N H"], Float[Array, "B N TP"]]:
    """Same contract as ``pallas_gpu.fsa_fine``: O_fine and the log2-domain LSE, differentiable."""
    b, n_q, n, h = q.shape
    if n_q % P or k.shape[1] % P or sel.shape[:3] != (b, n, n_q // P) or num_sel.shape != (b, n, n_q // P):
        raise ConfigError(
            f"fsa_fine_tpu: q {tuple(q.shape)}, k {tuple(k.shape)}, sel {tuple(sel.shape)}, num_sel "
            f"{tuple(num_sel.shape)} do not fit P={P} (expected sel (B, N, T, slots), num_sel (B, N, T))"
        )
    blocks = (block_sizes or TPUBlockSizes()).resolve(P)
    to_bnth = lambda x: jnp.swapaxes(x, 1, 2)  # noqa: E731
    o, lse = _fsa_fine(to_bnth(q), to_bnth(k), to_bnth(v), sel, num_sel, P, blocks, interpret)
    return to_bnth(o), lse[..., 0]
