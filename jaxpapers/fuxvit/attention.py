"""Frame Selective Attention as functions: routing, fine branch, NaN-safe coarse branch (spec steps 1-6).

Letters: B batch, N heads, T query frames, S key frames, K selection slots, P tokens per frame,
H head dim, R summary features (H, or 2H for ``mean+max``).

``fsa_attention`` is the public, parameter-free operator (``plain`` mode, MoBA-like). The ``gated``
mode needs the block input for its gates and lives in ``model.FSAttention``, which calls the same
:func:`route`, the fine branch of ``kernels/fsa`` and :func:`coarse_branch`.
"""

from __future__ import annotations

import typing

import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.checks import check_choice
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.kernels.fsa.dispatch import check_tokens_per_frame, fsa_fine_pallas
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference
from jaxpapers.fuxvit.routing import from_frames, to_frames

FSA_IMPLS: tuple[str, ...] = ("reference", "pallas")


class Routing(typing.NamedTuple):
    """One layer's routing: masked logits (−inf off the history), the selection and its counts."""

    logits: Float[Array, "B N T S"]
    sel: Int[Array, "B N T K"]
    num_sel: Int[Array, "B N T"]


def route(
    qbar: Float[Array, "B N T R"],
    kbar: Float[Array, "B N S R"],
    *,
    head_dim: int,
    k_frames: int,
    q_frames: Int[Array, "B T"],
    seg_q: Int[Array, "B T"],
    seg_k: Int[Array, "B S"],
    valid_k: Bool[Array, "B S"],
    force_first: bool = False,
    force_prev: bool = False,
    share_across_heads: bool = False,
) -> Routing:
    """Routing logits over allowed history frames (step 2) and the selection S_i (step 3).

    ``share_across_heads`` sums the logits over heads and gives every head the same selection
    (the coarse branch keeps per-head logits).
    """
    raw = routing.summary_logits(qbar, kbar, head_dim)
    allowed = routing.history_mask(q_frames, seg_q, seg_k, valid_k)[:, None]
    logits = jnp.where(allowed, raw, -jnp.inf)
    route_logits = logits.sum(axis=1, keepdims=True) if share_across_heads else logits
    first = routing.segment_first_frame(seg_q, seg_k, valid_k)
    sel, num_sel = routing.select_from_logits(
        route_logits, k_frames, q_frames, first, force_first=force_first, force_prev=force_prev
    )
    if share_across_heads:
        n = logits.shape[1]
        sel, num_sel = jnp.repeat(sel, n, axis=1), jnp.repeat(num_sel, n, axis=1)
    return Routing(logits, sel, num_sel)


def coarse_branch(logits: Float[Array, "B N T S"], vbar: Float[Array, "B N S H"]) -> Float[Array, "B N T H"]:
    """O_cmp[i] = Σ_{j<i} softmax_j(r_ij) V̄_j over the allowed history (step 5); 0 without history.

    Masked before the softmax: a row with no allowed frame would be a softmax over all −inf (NaN
    forward, NaN gradients through ``where``). The row maximum is replaced by 0 when it is −inf, the
    exponent is −inf exactly off the history (exp gives 0 with a zero gradient), and the normaliser
    is guarded, so such rows return exactly 0 with finite gradients.
    """
    allowed = jnp.isfinite(logits)
    m = jax.lax.stop_gradient(jnp.max(logits, axis=-1, keepdims=True))
    shifted = jnp.where(allowed, logits - jnp.where(jnp.isfinite(m), m, 0.0), -jnp.inf)
    e = jnp.exp(shifted)  # exactly 0 (with zero gradient) off the history
    denom = e.sum(axis=-1, keepdims=True)
    weights = e / jnp.where(denom > 0, denom, 1.0)
    return jnp.einsum("bnts,bnsh->bnth", weights, vbar.astype(jnp.float32))


def routed_attention(
    qs: Float[Array, "B TP N H"],
    k_all: Float[Array, "B SP N H"],
    v_all: Float[Array, "B SP N H"],
    kbar: Float[Array, "B N S R"],
    vbar: Float[Array, "B N S H"] | None,
    *,
    P: int,
    q_frames: Int[Array, "B T"],
    seg_q: Int[Array, "B T"],
    seg_k: Int[Array, "B S"],
    valid_k: Bool[Array, "B S"],
    k_frames: int,
    force_first: bool = False,
    force_prev: bool = False,
    share_across_heads: bool = False,
    impl: str = "reference",
    pool: str = "mean",
    chunk: int | None = None,
    coarse: bool = False,
) -> tuple[Float[Array, "B TP N H"], Int[Array, "B N T K"], Float[Array, "B N T H"] | None]:
    """Steps 2-5 of one layer: routes the query frames of ``qs`` against the key summaries K̄, runs the
    fine branch over the selected frames of K/V (``impl``) and, with ``coarse``, the coarse branch over
    V̄. Returns (O_fine, sel, O_cmp or None). Used by ``model.FSAttention`` and, per device, by
    ``kernels/fsa/context_parallel.py``.
    """
    r = route(
        routing.frame_summaries(qs, P, pool),
        kbar,
        head_dim=qs.shape[-1],
        k_frames=k_frames,
        q_frames=q_frames,
        seg_q=seg_q,
        seg_k=seg_k,
        valid_k=valid_k,
        force_first=force_first,
        force_prev=force_prev,
        share_across_heads=share_across_heads,
    )
    if impl == "pallas":
        out = fsa_fine_pallas(qs, k_all.astype(qs.dtype), v_all.astype(qs.dtype), r.sel, r.num_sel, P)
    else:
        out = fsa_fine_reference(qs, k_all, v_all, r.sel, P, chunk=chunk)
    return out, r.sel, coarse_branch(r.logits, vbar) if coarse else None


def fsa_attention(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B TP N H"],
    v: Float[Array, "B TP N H"],
    *,
    P: int,
    k_frames: int,
    seg: Int[Array, "B T"] | None = None,
    valid: Bool[Array, "B T"] | None = None,
    force_first: bool = False,
    force_prev: bool = False,
    impl: str = "reference",
    pool: str = "mean",
    share_routing_across_heads: bool = False,
    chunk: int | None = None,
) -> tuple[Float[Array, "B TP N H"], Int[Array, "B N T K"]]:
    """Frame Selective Attention, ``plain`` mode: routes each query frame to its own frame plus the
    k best earlier frames (by mean-pooled q̄·K̄) and attends over their union. Returns (out, sel).

    q, k, v are [B, T·P, N, H] with RoPE already applied (the ``jax.nn.dot_product_attention``
    layout). ``seg``/``valid`` [B, T] mask other packed segments and padding frames. ``impl="pallas"``
    runs the fine branch with the platform's Pallas kernel (interpreted on a CPU; P a multiple of 16).
    """
    check_choice("impl", impl, FSA_IMPLS)
    if impl == "pallas":
        check_tokens_per_frame(P)
    b, n_tok = q.shape[:2]
    t = n_tok // P
    seg, valid = routing.default_seg_valid(b, t, seg, valid)
    frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
    out, sel, _ = routed_attention(
        q,
        k,
        v,
        routing.frame_summaries(k, P, pool),
        None,
        P=P,
        q_frames=frames,
        seg_q=seg,
        seg_k=seg,
        valid_k=valid,
        k_frames=k_frames,
        force_first=force_first,
        force_prev=force_prev,
        share_across_heads=share_routing_across_heads,
        impl=impl,
        pool=pool,
        chunk=chunk,
    )
    return out, sel


def value_summaries(v: Float[Array, "B SP N H"], P: int) -> Float[Array, "B N S H"]:
    """V̄_j: the mean of each frame's values (no RoPE on values)."""
    return to_frames(v, P).astype(jnp.float32).mean(axis=3)


def frame_local_attention(
    q: Float[Array, "B TP N H"], k: Float[Array, "B TP N H"], v: Float[Array, "B TP N H"], P: int
) -> Float[Array, "B TP N H"]:
    """Attention within each frame only (``static``, k = 0): a per-frame ViT, no gather."""
    qf, kf, vf = to_frames(q, P), to_frames(k, P), to_frames(v, P)
    logits = jnp.einsum("bntph,bntqh->bntpq", qf, kf, preferred_element_type=jnp.float32) * q.shape[-1] ** -0.5
    weights = jax.nn.softmax(logits, axis=-1)
    out = jnp.einsum("bntpq,bntqh->bntph", weights.astype(vf.dtype), vf, preferred_element_type=jnp.float32)
    return from_frames(out.astype(q.dtype))
