"""FuxViT: one ViT for images and long videos, with Frame Selective Attention (spec "Block", "FSA").

Letters: B batch, T frames (after the tubelet), P tokens per frame (visible ones under a tube mask),
S key frames (T, or the cache size when streaming), N heads, H head dim, D model width, F mlp width,
C tubelet features, K selection slots, L layers.

Pre-LN blocks: x ← x + FSA(LN(x)); x ← x + MLP(LN(x)); final LN; no CLS token (pooled = mean over
valid tokens). Built on ``core.nn``: ``Einsum`` projections, ``MlpBlock`` and ``stack_layers`` (params
``layers_{i}`` unrolled, ``layers`` scanned), all with the frame-major activation names ``ACT``; the
frame selection (routing, fine and coarse branches, gates, cache) is FuxViT's own ``FSAttention``.
``attn_impl`` picks the attention of every block:

* ``reference``: routing + pure-JAX fine branch (+ the coarse branch in ``gated`` mode);
* ``pallas``: routing + the fine branch by the platform's Pallas kernel (``kernels/fsa/dispatch.py``;
  interpreted on a CPU, P a multiple of 16);
* ``dense_causal`` / ``dense_full``: dense frame-causal / bidirectional attention (baselines, oracles);
* ``static``: own frame only (k = 0, no coarse branch): a per-frame ViT.

In ``gated`` mode every impl keeps the per-token, per-head gate g_f (so params are the same across
impls); only the routed impls have a coarse branch, weighted by g_c.

Context parallelism: when the active mesh context (``core.sharding.mesh_context``) maps FRAMES to a
mesh axis of size > 1 (the ``fsdp_tp_cp`` rules), a routed layer without a cache runs its routing and
both branches under ``shard_map`` (``kernels/fsa/context_parallel.py``: K/V all-gathered along
``sequence``, dK/dV reduce-scattered); everywhere else the compiler partitions the code below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int, Shaped

from jaxpapers.core import axes
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn import Einsum, MlpBlock, layer_norm, rms_norm, stack_layers
from jaxpapers.fuxvit import attention, routing
from jaxpapers.fuxvit.config import FuxViTConfig
from jaxpapers.fuxvit.kernels.fsa import context_parallel
from jaxpapers.fuxvit.tokenizer import check_clip_shape, grid_positions, patchify, rope3d

Positions = tuple[Int[Array, "B T P"], Int[Array, "B T P"], Int[Array, "B T P"]]
ACT = (axes.BATCH, axes.FRAMES, axes.LENGTH, axes.EMBED)
HEADS_ACT = (axes.BATCH, axes.FRAMES, axes.LENGTH, axes.HEADS, axes.KV)


# The q/k/v and gate kernels keep FuxViT's v1 init so the claims keep their numbers: LeCun normal with
# Flax's default axes, i.e. fan-in N·D for a (D, N, ·) kernel (``Einsum``'s default would use D).
_HEADS_INIT = nn.initializers.lecun_normal()


def _init(names: tuple[str | None, ...], init: Any = None) -> Any:
    return nn.with_logical_partitioning(init or nn.initializers.lecun_normal(), names)


def gate_bias_init(key: jax.Array, shape: tuple[int, ...], dtype: Any = jnp.float32) -> jax.Array:
    """(b_f, b_c) = (+2, −2) per head: gates start favouring the fine branch (σ(2) ≈ 0.88)."""
    del key
    return jnp.broadcast_to(jnp.asarray([2.0, -2.0], dtype), shape)


class FSAttention(nn.Module):
    """Frame Selective Attention with its projections, QK-RMSNorm, 3-D RoPE, gates and output (spec 1-6).

    ``cache`` (streaming) holds this layer's K, V [B, S·P, N, H] and summaries K̄ [B, N, S, R],
    V̄ [B, N, S, H] for S cached frames; the new frames are written at ``q_frames[:, 0]`` and the
    updated cache is returned. Without a cache the keys are the query frames themselves.
    """

    config: FuxViTConfig

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "B T P D"],
        pos: Positions,
        q_frames: Int[Array, "B T"],
        seg_q: Int[Array, "B T"],
        seg_k: Int[Array, "B S"],
        valid_k: Bool[Array, "B S"],
        cache: Mapping[str, jax.Array] | None = None,
    ) -> tuple[Float[Array, "B T P D"], Int[Array, "B N T K"] | None, dict[str, jax.Array] | None]:
        c = self.config
        b, t, p, d = x.shape
        n, h = c.num_heads, c.head_dim
        dtype, pdtype = c.jnp_dtype, c.jnp_param_dtype

        def proj(name: str) -> jax.Array:
            names = (axes.EMBED, axes.HEADS, axes.KV)
            kw = dict(kernel_init=_HEADS_INIT, dtype=dtype, param_dtype=pdtype, name=name)
            return nn.with_logical_constraint(Einsum((d, n, h), names, "...d,dnh->...nh", **kw)(x), HEADS_ACT)

        q, k, v = proj("query"), proj("key"), proj("value")
        # QK-RMSNorm per head before RoPE (stability at 64K tokens).
        if c.qk_norm:
            q = rms_norm("query_norm", dtype=dtype, param_dtype=pdtype, axis_name=axes.KV)(q)
            k = rms_norm("key_norm", dtype=dtype, param_dtype=pdtype, axis_name=axes.KV)(k)
        q, k = rope3d(q, k, *pos)
        q, k = nn.with_logical_constraint(q, HEADS_ACT), nn.with_logical_constraint(k, HEADS_ACT)
        qs, ks, vs = (z.reshape(b, t * p, n, h) for z in (q, k, v))  # [B, T·P, N, H]

        start = q_frames[0, 0]
        new_cache = None
        if cache is not None:
            if c.attn_impl == "dense_full":
                raise ConfigError("attn_impl='dense_full' is not frame-causal and cannot be streamed")
            k_all = jax.lax.dynamic_update_slice(cache["k"], ks.astype(cache["k"].dtype), (0, start * p, 0, 0))
            v_all = jax.lax.dynamic_update_slice(cache["v"], vs.astype(cache["v"].dtype), (0, start * p, 0, 0))
        else:
            k_all, v_all = ks, vs
        num_keys = k_all.shape[1] // p

        sel = None
        coarse = None
        routed_kw = dict(
            P=p,
            q_frames=q_frames,
            seg_q=seg_q,
            seg_k=seg_k,
            valid_k=valid_k,
            k_frames=c.k_frames,
            force_first=c.force_first,
            force_prev=c.force_prev,
            share_across_heads=c.share_routing_across_heads,
            impl=c.attn_impl,
            pool=c.router_pool,
            chunk=c.query_chunk,
            coarse=c.fsa_mode == "gated",
        )
        # Frames split over a mesh axis (the fsdp_tp_cp rules): the routed layer runs under shard_map.
        layout = context_parallel.context_layout() if c.routed and cache is None else None
        if layout is not None:
            out, sel, coarse = context_parallel.sharded_fsa_layer(qs, ks, vs, layout=layout, **routed_kw)
        elif c.routed:
            kbar = routing.frame_summaries(ks, p, c.router_pool)
            vbar = attention.value_summaries(vs, p)
            if cache is not None:
                kbar = jax.lax.dynamic_update_slice(cache["kbar"], kbar, (0, 0, start, 0))
                vbar = jax.lax.dynamic_update_slice(cache["vbar"], vbar, (0, 0, start, 0))
                new_cache = {"k": k_all, "v": v_all, "kbar": kbar, "vbar": vbar}
            out, sel, coarse = attention.routed_attention(qs, k_all, v_all, kbar, vbar, **routed_kw)
        else:
            if cache is not None:
                new_cache = {**cache, "k": k_all, "v": v_all}
            if c.attn_impl == "static":
                out = attention.frame_local_attention(qs, ks, vs, p)
            else:
                causal = c.attn_impl == "dense_causal"
                mask = routing.frame_mask(p, q_frames, num_keys, seg_q, seg_k, valid_k, causal=causal)
                out = jax.nn.dot_product_attention(qs, k_all.astype(qs.dtype), v_all.astype(qs.dtype), mask=mask)
        out = nn.with_logical_constraint(out.reshape(b, t, p, n, h), HEADS_ACT)

        if c.fsa_mode == "gated":
            gates = Einsum(
                (d, n, 2),
                (axes.EMBED, axes.HEADS, None),
                "...d,dng->...ng",
                use_bias=True,
                kernel_init=_HEADS_INIT,
                bias_init=gate_bias_init,
                param_dtype=pdtype,
                name="gate",
            )(x)
            g = jax.nn.sigmoid(gates)
            mixed = g[..., 0:1] * out.astype(jnp.float32)
            if coarse is not None:
                mixed = mixed + g[..., 1:2] * coarse.transpose(0, 2, 1, 3)[:, :, None]
            out = nn.with_logical_constraint(mixed.astype(dtype), HEADS_ACT)
        y = Einsum(
            (n, h, d), (axes.HEADS, axes.KV, axes.EMBED), "...nh,nhd->...d", dtype=dtype, param_dtype=pdtype, name="out"
        )(out)
        return nn.with_logical_constraint(y, ACT), sel, new_cache


class Block(nn.Module):
    """Pre-LN block: x ← x + FSA(LN(x)); x ← x + MLP(LN(x)) (the core ``MlpBlock`` on [B, T, P, D]).

    Returns (x, sel [B, N, T, K] or None, this layer's updated cache or None).
    """

    config: FuxViTConfig

    @nn.compact
    def __call__(self, x, pos, q_frames, seg_q, seg_k, valid_k, cache=None):  # as FSAttention's
        c = self.config
        x = nn.with_logical_constraint(x, ACT)
        h = layer_norm("ln_attn", param_dtype=c.jnp_param_dtype)(x).astype(c.jnp_dtype)
        h, sel, cache = FSAttention(c, name="attn")(h, pos, q_frames, seg_q, seg_k, valid_k, cache)
        x = x + h
        h = layer_norm("ln_mlp", param_dtype=c.jnp_param_dtype)(x).astype(c.jnp_dtype)
        x = x + MlpBlock(c.mlp_dim, act_axes=ACT, dtype=c.jnp_dtype, param_dtype=c.jnp_param_dtype, name="mlp")(h)
        return nn.with_logical_constraint(x, ACT), sel, cache


class BlockStack(nn.Module):
    """``depth`` blocks by the core naming rule: ``layers_0..`` unrolled, one ``layers`` (params stacked
    along LAYERS) with ``scan_layers`` (``core.nn.stack_layers``; ``remat`` rematerialises each block).

    ``caches`` (streaming) is a pytree with a leading L axis (:meth:`FuxViT.init_cache`). Returns the
    output, the per-layer selections [L, B, N, T, K] (None for unrouted impls) and the updated caches
    (leading L axis; None without ``caches``).
    """

    config: FuxViTConfig

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "B T P D"],
        pos: Positions,
        q_frames: Int[Array, "B T"],
        seg_q: Int[Array, "B T"],
        seg_k: Int[Array, "B S"],
        valid_k: Bool[Array, "B S"],
        caches: Mapping[str, jax.Array] | None = None,
    ) -> tuple[Float[Array, "B T P D"], Int[Array, "L B N T K"] | None, dict[str, jax.Array] | None]:
        c = self.config
        x, (sels, caches) = stack_layers(
            Block,
            {"config": c},
            x,
            pos,
            q_frames,
            seg_q,
            seg_k,
            valid_k,
            depth=c.depth,
            layer_inputs=(caches,),
            scan_layers=c.scan_layers,
            remat=c.remat,
        )
        return x, sels, caches


def clip_positions(batch: int, frames: int, rows: int, cols: int, first_frame: Any = 0) -> Positions:
    """(t, y, x) positions [B, T, P] of a clip's token grid, frames numbered from ``first_frame``."""
    t, y, x = (jnp.asarray(a, jnp.int32) for a in grid_positions(frames, rows, cols))
    t = t + jnp.asarray(first_frame, jnp.int32)
    return tuple(jnp.broadcast_to(a, (batch, *a.shape)) for a in (t, y, x))  # type: ignore[return-value]


def take_visible(x: Shaped[Array, "B T P ..."], visible: Int[Array, "B V"] | None) -> Shaped[Array, "B T V ..."]:
    """The visible tokens (the same positions in every frame: tube masking) of a [B, T, P, ...] array."""
    if visible is None:
        return x
    idx = visible.reshape(visible.shape[0], 1, visible.shape[1], *([1] * (x.ndim - 3)))
    return jnp.take_along_axis(x, idx, axis=2)


class FuxViT(nn.Module):
    """The encoder: tubelet embedding, ``depth`` FSA blocks, final LN.

    ``__call__(pixels, frame_valid, frame_seg, visible)`` → ``dict(tokens [B,T,P,D], pooled [B,D],
    sel [L,B,N,T,K] or None)``. ``pixels`` [B, t_p·T, Hpx, Wpx, ch]; ``frame_valid`` [B,T] masks
    padding frames; ``frame_seg`` [B,T] separates packed images/videos; ``visible`` [B, P_vis] int32
    lists the tube mask's visible positions (ascending), the same in every frame.
    """

    config: FuxViTConfig

    def setup(self):
        c = self.config
        self.embed = nn.Dense(
            c.dim,
            dtype=c.jnp_dtype,
            param_dtype=c.jnp_param_dtype,
            kernel_init=_init((axes.PATCH, axes.EMBED)),
            # A random (not zero) bias: an all-black or padding tubelet then embeds to a non-constant
            # vector, not to 0, where LayerNorm's gradient is scaled by 1/√eps (≈ 1e3 per norm).
            bias_init=_init((axes.EMBED,), nn.initializers.normal(0.02)),
            name="embed",
        )
        self.blocks = BlockStack(c, name="encoder")
        self.ln_final = layer_norm("ln_final", param_dtype=c.jnp_param_dtype)

    def _embed(self, pixels, visible, first_frame):
        c = self.config
        t, rows, cols = check_clip_shape(pixels.shape, c.tubelet, c.patch)
        if pixels.shape[-1] != c.channels:
            raise ConfigError(f"pixels have {pixels.shape[-1]} channels; the model expects {c.channels}")
        b = pixels.shape[0]
        pos = clip_positions(b, t, rows, cols, first_frame)
        if visible is not None:
            if visible.ndim != 2 or visible.shape[0] != b:
                raise ConfigError(f"visible has shape {tuple(visible.shape)}; expected (batch, P_vis) = ({b}, ·)")
            pos = tuple(take_visible(a, visible) for a in pos)
        # Pixels in [0, 1] are mapped to [−1, 1] (as SigLIP does): a zero-mean input keeps the patch
        # embedding from being dominated by one shared brightness direction.
        tubes = take_visible(patchify(pixels.astype(c.jnp_dtype) * 2.0 - 1.0, c.tubelet, c.patch), visible)
        return nn.with_logical_constraint(self.embed(tubes), ACT), pos, t

    def __call__(
        self,
        pixels: Float[Array, "B F Hpx Wpx ch"],
        frame_valid: Bool[Array, "B T"] | None = None,
        frame_seg: Int[Array, "B T"] | None = None,
        visible: Int[Array, "B V"] | None = None,
    ) -> dict[str, Any]:
        x, pos, t = self._embed(pixels, visible, 0)
        b = x.shape[0]
        seg, valid = routing.default_seg_valid(b, t, frame_seg, frame_valid)
        frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
        x, sels, _ = self.blocks(x, pos, frames, seg, seg, valid)
        x = self.ln_final(x)
        return {"tokens": x, "pooled": masked_token_mean(x, valid), "sel": sels}

    def init_cache(self, batch: int, max_frames: int, tokens_per_frame: int) -> dict[str, Any]:
        """An empty per-layer frame cache for :meth:`stream_step` (K, V, K̄, V̄ and frame validity)."""
        c = self.config
        n, h = c.num_heads, c.head_dim
        r = h * (2 if c.router_pool == "mean+max" else 1)
        layer = {
            "k": jnp.zeros((batch, max_frames * tokens_per_frame, n, h), c.jnp_dtype),
            "v": jnp.zeros((batch, max_frames * tokens_per_frame, n, h), c.jnp_dtype),
            "kbar": jnp.zeros((batch, n, max_frames, r), jnp.float32),
            "vbar": jnp.zeros((batch, n, max_frames, h), jnp.float32),
        }
        layers = jax.tree.map(lambda a: jnp.broadcast_to(a, (c.depth, *a.shape)), layer)  # leading L axis
        return {"layers": layers, "valid": jnp.zeros((batch, max_frames), bool), "length": jnp.zeros((), jnp.int32)}

    def stream_step(
        self, pixels: Float[Array, "B F Hpx Wpx ch"], cache: dict[str, Any]
    ) -> tuple[Float[Array, "B T P D"], dict[str, Any]]:
        """Encodes the next frames of a stream against the cache; returns their tokens and the new cache.

        Frame-level causality makes this exact: frames ≤ t never depend on frames > t.
        """
        start = cache["length"]
        x, pos, t = self._embed(pixels, None, start)
        b = x.shape[0]
        valid_k = jax.lax.dynamic_update_slice(cache["valid"], jnp.ones((b, t), bool), (0, start))
        seg_k = jnp.zeros(valid_k.shape, jnp.int32)
        frames = jnp.broadcast_to(start + jnp.arange(t, dtype=jnp.int32), (b, t))
        x, _, layers = self.blocks(x, pos, frames, jnp.zeros((b, t), jnp.int32), seg_k, valid_k, cache["layers"])
        return self.ln_final(x), {"layers": layers, "valid": valid_k, "length": start + t}


def masked_token_mean(x: Float[Array, "B T P D"], valid: Bool[Array, "B T"]) -> Float[Array, "B D"]:
    """Mean over the tokens of valid frames (padding frames excluded)."""
    w = valid.astype(jnp.float32)[:, :, None, None]
    return (x.astype(jnp.float32) * w).sum(axis=(1, 2)) / jnp.maximum(w.sum(axis=(1, 2)) * x.shape[2], 1.0)


class FuxViTClassifier(nn.Module):
    """FuxViT + a linear head on mean-pooled tokens: over all valid frames (``pool="all"``) or the last
    frame only (``pool="last_frame"``, the needle task). Returns (logits [B, classes], sel)."""

    config: FuxViTConfig
    num_classes: int
    pool: str = "all"

    @nn.compact
    def __call__(self, pixels, frame_valid=None, frame_seg=None):
        out = FuxViT(self.config, name="fuxvit")(pixels, frame_valid, frame_seg)
        tokens = out["tokens"]
        if self.pool == "last_frame":
            feats = tokens[:, -1].astype(jnp.float32).mean(axis=1)
        elif self.pool == "all":
            feats = out["pooled"]
        else:
            raise ConfigError(f"pool={self.pool!r} is not allowed; choose 'all' or 'last_frame'")
        logits = nn.Dense(
            self.num_classes,
            dtype=jnp.float32,
            param_dtype=self.config.jnp_param_dtype,
            kernel_init=_init((axes.EMBED, None), nn.initializers.zeros),
            bias_init=_init((None,), nn.initializers.zeros),
            name="head",
        )(feats)
        return logits, out["sel"]
