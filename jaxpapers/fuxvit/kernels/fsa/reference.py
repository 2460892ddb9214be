"""Pure-JAX Frame Selective Attention: the ground truth for the kernels (spec step 4, "Fine branch").

Letters: B batch, N heads, T query frames, S key frames, K selection slots, P query tokens per
frame, Q key tokens per frame (= P), H head dim. Public layouts are the ``jax.nn.dot_product_attention``
ones: q [B, T·P, N, H], k/v [B, S·P, N, H].

The fine branch gathers the K/V of whole selected frames into [B, N, T, K, P, H] and runs one
softmax per query token over the union of the selected frames; padded slots (−1) are masked with
−inf. Memory and FLOPs are O(T·K·P²) — linear in the number of frames — and no N×N mask is ever
built. ``lax.map`` over chunks of query frames bounds memory further (one chunk = no loop, which is
what XLA's cost analysis needs: it counts a loop body once). Logits and softmax are float32.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.routing import frame_mask, from_frames, to_frames


def _safe_softmax(logits: Float[Array, "... M"]) -> tuple[Float[Array, "... M"], Float[Array, "..."]]:
    """Softmax over the last axis and its log-sum-exp; an all −inf row gives weights 0 (not NaN), LSE −inf."""
    m = jax.lax.stop_gradient(jnp.max(logits, axis=-1, keepdims=True))
    m = jnp.where(jnp.isfinite(m), m, 0.0)
    e = jnp.exp(logits - m)
    denom = jnp.sum(e, axis=-1, keepdims=True)
    weights = e / jnp.where(denom > 0, denom, 1.0)
    lse = jnp.where(denom[..., 0] > 0, m[..., 0] + jnp.log(jnp.where(denom[..., 0] > 0, denom[..., 0], 1.0)), -jnp.inf)
    return weights, lse


def _attend_selected(
    qf: Float[Array, "B N T P H"],
    kf: Float[Array, "B N S Q H"],
    vf: Float[Array, "B N S Q H"],
    sel: Int[Array, "B N T K"],
) -> tuple[Float[Array, "B N T P H"], Float[Array, "B N T P"]]:
    """One softmax per query token over the tokens of its frame's selected key frames."""
    s = kf.shape[2]
    idx = jnp.clip(sel, 0, s - 1)  # −1 never reaches the gather; those slots are masked below
    gather = jax.vmap(jax.vmap(lambda x, i: x[i]))  # over B and N: [S,Q,H][T,K] → [T,K,Q,H]
    kg, vg = gather(kf, idx), gather(vf, idx)
    logits = jnp.einsum("bntph,bntkqh->bntpkq", qf, kg, preferred_element_type=jnp.float32)
    logits = logits * qf.shape[-1] ** -0.5
    logits = jnp.where((sel >= 0)[:, :, :, None, :, None], logits, -jnp.inf)
    b, n, t, p, k, q = logits.shape
    weights, lse = _safe_softmax(logits.reshape(b, n, t, p, k * q))
    out = jnp.einsum(
        "bntpkq,bntkqh->bntph", weights.reshape(logits.shape).astype(vf.dtype), vg, preferred_element_type=jnp.float32
    )
    return out.astype(qf.dtype), lse


def fsa_fine_reference(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B SP N H"],
    v: Float[Array, "B SP N H"],
    sel: Int[Array, "B N T K"],
    P: int,
    *,
    chunk: int | None = None,
    return_lse: bool = False,
) -> Float[Array, "B TP N H"] | tuple[Float[Array, "B TP N H"], Float[Array, "B N TP"]]:
    """O_fine[n] = Σ_{m ∈ ∪_{j∈S_i} F_j} softmax_m(q_n·k_m/√d) v_m for n ∈ F_i (spec step 4).

    Args:
      q: queries of T frames; k, v: keys/values of S frames (S = T for a whole clip, or a cache).
      sel: selected key frames per query frame, ascending, −1 padded (from ``select_frames``).
      P: tokens per frame.
      chunk: query frames per ``lax.map`` step (None or ≥ T: everything at once, no loop).
      return_lse: also return the natural-log LSE of each query row (−inf for an empty union).
    """
    qf, kf, vf = to_frames(q, P), to_frames(k, P), to_frames(v, P)
    b, n, t = qf.shape[:3]
    if sel.shape[:3] != (b, n, t):
        raise ConfigError(f"sel has shape {tuple(sel.shape)}; expected (B, N, T, slots) = ({b}, {n}, {t}, ·)")
    if chunk is not None and chunk < 1:
        raise ConfigError(f"chunk={chunk} must be ≥ 1 query frames (or None for one chunk)")
    if chunk is None or chunk >= t:
        out, lse = _attend_selected(qf, kf, vf, sel)
    else:

        def one_frame(xs):
            q1, s1 = xs  # [B,N,P,H], [B,N,K]
            o, l = _attend_selected(q1[:, :, None], kf, vf, s1[:, :, None])
            return o[:, :, 0], l[:, :, 0]

        out, lse = jax.lax.map(one_frame, (jnp.moveaxis(qf, 2, 0), jnp.moveaxis(sel, 2, 0)), batch_size=chunk)
        out, lse = jnp.moveaxis(out, 0, 2), jnp.moveaxis(lse, 0, 2)
    out = from_frames(out)
    return (out, lse.reshape(b, n, -1)) if return_lse else out


def dense_block_causal(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B TP N H"],
    v: Float[Array, "B TP N H"],
    P: int,
    seg: Int[Array, "B T"] | None = None,
    valid: Bool[Array, "B T"] | None = None,
) -> Float[Array, "B TP N H"]:
    """Dense frame-causal attention, the independent oracle: ``jax.nn.dot_product_attention`` (XLA
    implementation) with an explicit mask (bidirectional inside a frame, causal across frames)."""
    b, n_tok = q.shape[:2]
    frames = jnp.broadcast_to(jnp.arange(n_tok // P), (b, n_tok // P))
    mask = frame_mask(P, frames, n_tok // P, seg, seg, valid, causal=True)
    return jax.nn.dot_product_attention(q, k, v, mask=mask)


def dense_full(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B TP N H"],
    v: Float[Array, "B TP N H"],
    P: int,
    seg: Int[Array, "B T"] | None = None,
    valid: Bool[Array, "B T"] | None = None,
) -> Float[Array, "B TP N H"]:
    """Dense bidirectional attention within each segment over valid frames (``dense_full``)."""
    b, n_tok = q.shape[:2]
    if seg is None and valid is None:
        return jax.nn.dot_product_attention(q, k, v)
    frames = jnp.broadcast_to(jnp.arange(n_tok // P), (b, n_tok // P))
    mask = frame_mask(P, frames, n_tok // P, seg, seg, valid, causal=False)
    return jax.nn.dot_product_attention(q, k, v, mask=mask)
