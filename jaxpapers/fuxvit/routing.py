"""Frame routing of Frame Selective Attention (spec "Frame Selective Attention", steps 1-3).

Letters: B batch, N heads, T query frames, S key frames (= T for a whole clip; the cache size when
streaming), P tokens per frame, H head dim, K selection slots (S_max = 1 + |Forced| + k).

Routing is computed once per layer, outside any attention kernel, on device and without gradient
through the *choice* of frames: ``sel`` is int32 and ``lax.top_k`` sees ``stop_gradient`` logits.
The logits themselves stay differentiable, because the gated coarse branch uses them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import ArrayLike, Bool, Float, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.config import ROUTER_POOLS


def to_frames(x: Float[ArrayLike, "B TP N H"], P: int) -> Float[ArrayLike, "B N T P H"]:
    """[B, T·P, N, H] → [B, N, T, P, H] (frame-major tokens)."""
    b, n_tok, n, h = x.shape
    if n_tok % P:
        raise ConfigError(f"sequence length {n_tok} is not a multiple of P={P} tokens per frame")
    return x.reshape(b, n_tok // P, P, n, h).transpose(0, 3, 1, 2, 4)


def from_frames(x: Float[ArrayLike, "B N T P H"]) -> Float[ArrayLike, "B TP N H"]:
    """[B, N, T, P, H] → [B, T·P, N, H] (the inverse of :func:`to_frames`)."""
    b, n, t, p, h = x.shape
    return x.transpose(0, 2, 3, 1, 4).reshape(b, t * p, n, h)


def frame_summaries(x: Float[ArrayLike, "B TP N H"], P: int, pool: str = "mean") -> Float[ArrayLike, "B N T R"]:
    """Per-frame summaries (step 1): the mean over each frame's P tokens (MoBA), R = H.

    ``pool="mean+max"`` concatenates the channel-wise max to the mean (R = 2H), which keeps a
    sharp feature of one token visible when P is large (FlashMoBA's SNR argument; our choice).
    """
    check_choice("pool", pool, ROUTER_POOLS)
    xf = to_frames(x, P).astype(jnp.float32)
    mean = xf.mean(axis=3)
    return mean if pool == "mean" else jnp.concatenate([mean, xf.max(axis=3)], axis=-1)


def history_mask(
    q_frames: Int[ArrayLike, "B T"],
    seg_q: Int[ArrayLike, "B T"],
    seg_k: Int[ArrayLike, "B S"],
    valid_k: Bool[ArrayLike, "B S"],
) -> Bool[ArrayLike, "B T S"]:
    """allowed[i, j] = j < i (frame-causal, strict), same segment and key frame j valid (step 2).

    ``q_frames`` holds each query frame's index on the key axis (``arange(T)`` for a whole clip).
    """
    j = jnp.arange(seg_k.shape[-1])
    return (j[None, None, :] < q_frames[:, :, None]) & (seg_q[:, :, None] == seg_k[:, None, :]) & valid_k[:, None, :]


def frame_mask(
    P: int,
    q_frames: Int[ArrayLike, "B T"],
    num_keys: int,
    seg_q: Int[ArrayLike, "B T"] | None = None,
    seg_k: Int[ArrayLike, "B S"] | None = None,
    valid_k: Bool[ArrayLike, "B S"] | None = None,
    *,
    causal: bool = True,
) -> Bool[ArrayLike, "B 1 TP SP"]:
    """Token mask for the dense impls and oracles: own frame always; other frames j if (j < i when
    ``causal``), same segment and valid. Built with N×N entries: for small N only."""
    b, t = q_frames.shape
    seg_q = jnp.zeros((b, t), jnp.int32) if seg_q is None else seg_q
    seg_k = jnp.zeros((b, num_keys), jnp.int32) if seg_k is None else seg_k
    valid_k = jnp.ones((b, num_keys), bool) if valid_k is None else valid_k
    j = jnp.arange(num_keys)
    own = q_frames[:, :, None] == j[None, None, :]
    other = (seg_q[:, :, None] == seg_k[:, None, :]) & valid_k[:, None, :]
    if causal:
        other &= j[None, None, :] < q_frames[:, :, None]
    allowed = own | other  # [B, T, S] at frame level
    return jnp.repeat(jnp.repeat(allowed, P, axis=1), P, axis=2)[:, None]


def summary_logits(
    qbar: Float[ArrayLike, "B N T R"], kbar: Float[ArrayLike, "B N S R"], head_dim: int
) -> Float[ArrayLike, "B N T S"]:
    """Unmasked routing logits r_ij = q̄_i·K̄_j/√d in float32."""
    return jnp.einsum("bntr,bnsr->bnts", qbar, kbar, preferred_element_type=jnp.float32) * head_dim**-0.5


def routing_logits(
    q: Float[ArrayLike, "B TP N H"],
    k: Float[ArrayLike, "B TP N H"],
    P: int,
    seg: Int[ArrayLike, "B T"] | None = None,
    valid: Bool[ArrayLike, "B T"] | None = None,
    *,
    pool: str = "mean",
) -> Float[ArrayLike, "B N T T"]:
    """Routing logits (step 2): q̄_i·K̄_j/√d for history frames j < i of the same segment with
    ``valid[j]``; −inf elsewhere (including the diagonal: the own frame is added by selection)."""
    b, n_tok = q.shape[:2]
    t = n_tok // P
    seg, valid = default_seg_valid(b, t, seg, valid)
    logits = summary_logits(frame_summaries(q, P, pool), frame_summaries(k, P, pool), q.shape[-1])
    frames = jnp.broadcast_to(jnp.arange(t), (b, t))
    allowed = history_mask(frames, seg, seg, valid)
    return jnp.where(allowed[:, None], logits, -jnp.inf)


def default_seg_valid(
    batch: int, frames: int, seg: Int[ArrayLike, "B T"] | None, valid: Bool[ArrayLike, "B T"] | None
) -> tuple[Int[ArrayLike, "B T"], Bool[ArrayLike, "B T"]]:
    """One segment and all frames valid unless given; shapes are checked."""
    seg = jnp.zeros((batch, frames), jnp.int32) if seg is None else jnp.asarray(seg, jnp.int32)
    valid = jnp.ones((batch, frames), bool) if valid is None else jnp.asarray(valid, bool)
    for name, x in (("frame_seg", seg), ("frame_valid", valid)):
        if x.shape != (batch, frames):
            raise ConfigError(f"{name} has shape {tuple(x.shape)}; expected (batch, frames) = ({batch}, {frames})")
    return seg, valid


def segment_first_frame(
    seg_q: Int[ArrayLike, "B T"], seg_k: Int[ArrayLike, "B S"], valid_k: Bool[ArrayLike, "B S"]
) -> Int[ArrayLike, "B T"]:
    """Index on the key axis of the first valid frame of each query frame's segment (S if none)."""
    s = seg_k.shape[-1]
    same = (seg_q[:, :, None] == seg_k[:, None, :]) & valid_k[:, None, :]
    return jnp.min(jnp.where(same, jnp.arange(s)[None, None, :], s), axis=-1)


def select_from_logits(
    logits: Float[ArrayLike, "B N T S"],
    k_frames: int,
    q_frames: Int[ArrayLike, "B T"],
    first: Int[ArrayLike, "B T"],
    *,
    force_first: bool = False,
    force_prev: bool = False,
) -> tuple[Int[ArrayLike, "B N T K"], Int[ArrayLike, "B N T"]]:
    """Selection S_i = {i} ∪ Forced_i ∪ TopK_{j ∉ Forced_i}(r_i·, k) on a general key axis (step 3).

    ``logits`` are −inf where j is not an allowed history frame. Forced frames are taken only when
    allowed, and a frame forced twice counts once. A top-k slot whose logit is not finite becomes −1
    (decided by value: ``lax.top_k`` returns an index even for −inf). Rows are sorted ascending with
    −1 last; ties follow ``lax.top_k`` (the lower index wins).
    """
    check_range("k_frames", k_frames, 0)
    b, n, t, s = logits.shape
    logits = jax.lax.stop_gradient(logits)
    qf = jnp.broadcast_to(q_frames[:, None, :], (b, n, t))
    take = lambda idx: jnp.take_along_axis(logits, jnp.clip(idx, 0, s - 1)[..., None], axis=-1)[..., 0]  # noqa: E731
    slots = [qf]
    forced = jnp.zeros(logits.shape, bool)
    first_taken = jnp.full((b, n, t), -1, jnp.int32)
    if force_first:
        f = jnp.broadcast_to(first[:, None, :], (b, n, t))
        ok = (f < s) & jnp.isfinite(take(f))
        first_taken = jnp.where(ok, f, -1)
        slots.append(first_taken)
        forced |= ok[..., None] & (jnp.arange(s) == f[..., None])
    if force_prev:
        p = qf - 1
        ok = (p >= 0) & jnp.isfinite(take(p)) & (p != first_taken)  # i−1 = the segment's first: counted once
        slots.append(jnp.where(ok, p, -1))
        forced |= ok[..., None] & (jnp.arange(s) == p[..., None])
    k_eff = min(k_frames, max(s - 1, 0))
    if k_eff > 0:
        vals, idx = jax.lax.top_k(jnp.where(forced, -jnp.inf, logits), k_eff)
        slots.append(jnp.where(jnp.isfinite(vals), idx, -1).astype(jnp.int32))
    sel = jnp.concatenate([x[..., None] if x.ndim == 3 else x for x in slots], axis=-1).astype(jnp.int32)
    sel = jnp.sort(jnp.where(sel < 0, s, sel), axis=-1)
    sel = jnp.where(sel >= s, -1, sel)
    return sel, jnp.sum(sel >= 0, axis=-1).astype(jnp.int32)


def select_frames(
    logits: Float[ArrayLike, "B N T T"],
    k: int,
    seg: Int[ArrayLike, "B T"] | None = None,
    force_first: bool = False,
    force_prev: bool = False,
    *,
    valid: Bool[ArrayLike, "B T"] | None = None,
) -> tuple[Int[ArrayLike, "B N T K"], Int[ArrayLike, "B N T"]]:
    """``sel`` [B,N,T,S_max] int32 (ascending, −1 padded) and ``num_sel`` [B,N,T] for a whole clip.

    ``seg`` finds each segment's first frame for ``force_first`` (``valid`` skips padding frames).
    """
    b, _, t, t2 = logits.shape
    if t != t2:
        raise ConfigError(f"logits have shape {tuple(logits.shape)}; expected square (..., T, T)")
    seg, valid = default_seg_valid(b, t, seg, valid)
    frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
    first = segment_first_frame(seg, seg, valid)
    return select_from_logits(logits, k, frames, first, force_first=force_first, force_prev=force_prev)


def inverse_selection(
    sel: Int[ArrayLike, "B N T K"], T: int
) -> tuple[Int[ArrayLike, "B N S T"], Int[ArrayLike, "B N S"]]:
    """For each of the ``T`` key frames j: the query frames that selected it, ascending, −1 padded,
    and their count (S = ``T`` key frames; the query axis is ``sel``'s, T for a whole clip).

    ``inv[b, n, j, r]`` is the r-th query frame i with j ∈ S_i (r < ``inv_cnt[b, n, j]``). Computed in
    jnp on device (routing is decided at run time), for the backward dK/dV kernel.
    """
    t_q = sel.shape[2]
    chosen = jnp.any(sel[..., None] == jnp.arange(T), axis=-2)  # [B,N,Tq,S]: j ∈ S_i
    chosen_t = jnp.swapaxes(chosen, -1, -2)  # [B,N,S,Tq]
    order = jnp.sort(jnp.where(chosen_t, jnp.arange(t_q), t_q), axis=-1)
    inv = jnp.where(order >= t_q, -1, order).astype(jnp.int32)
    return inv, jnp.sum(chosen_t, axis=-1).astype(jnp.int32)


def selection_membership(sel: Int[ArrayLike, "B N T K"], num_keys: int) -> Bool[ArrayLike, "B N T S"]:
    """member[..., i, j] = j ∈ S_i (padding slots never match)."""
    return jnp.any(sel[..., None] == jnp.arange(num_keys), axis=-2)


def routing_entropy(sel: Int[ArrayLike, "B N T K"], T: int) -> Float[ArrayLike, ""]:
    """Normalised entropy of the selected-history-frame histogram, averaged over query frames i ≥ 2.

    Histograms count, over batch and heads, how often each earlier frame j < i is selected by frame i
    (own frame and padding excluded). 1 = uniform routing, 0 = every query picks the same frame
    (the routing-collapse monitor for ``plain`` mode).
    """
    member = selection_membership(sel, T) & (jnp.arange(T)[None, :] < jnp.arange(T)[:, None])  # j < i only
    counts = member.sum(axis=(0, 1)).astype(jnp.float32)  # [T, T]
    p = counts / jnp.maximum(counts.sum(-1, keepdims=True), 1.0)
    ent = -jnp.sum(jnp.where(p > 0, p * jnp.log(p), 0.0), axis=-1)
    rows = jnp.arange(T)
    norm = jnp.log(jnp.maximum(rows, 2).astype(jnp.float32))
    use = (rows >= 2) & (counts.sum(-1) > 0)
    return jnp.sum(jnp.where(use, ent / norm, 0.0)) / jnp.maximum(use.sum(), 1)


def routing_recall(
    sel: Int[ArrayLike, "B N T K"], target_frame: Int[ArrayLike, " B"], query_frame: int = -1
) -> Float[ArrayLike, ""]:
    """Fraction of examples whose ``target_frame`` is selected by ``query_frame`` in any head."""
    row = sel[:, :, query_frame, :]  # [B,N,K]
    return jnp.mean(jnp.any(row == target_frame[:, None, None], axis=(1, 2)).astype(jnp.float32))


def recall_chance(k_frames: int, history: int, heads: int) -> float:
    """Chance recall of a uniformly random router: 1 − (1 − k/history)^heads."""
    return 1.0 - (1.0 - min(k_frames, history) / history) ** heads
