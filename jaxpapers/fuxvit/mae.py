"""Joint image/video masked-autoencoder pretraining (spec "Joint spatiotemporal pretraining", our choice).

Letters: B batch, T frames, P tokens per frame, V visible tokens per frame (P_vis), D encoder width,
E decoder width, C tubelet features.

VideoMAE-style: tube masking (the same P_vis positions are visible in every frame of a row, so the
encoder runs FSA unchanged on [B, T, P_vis] tokens), a light decoder over the whole T·P grid (visible
tokens + a learned mask token) with frame-causal attention, and an MSE loss on per-patch-normalised
pixels of the masked tubelets of valid frames only.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core import axes
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn import layer_norm
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.config import FuxViTConfig, MAEConfig, visible_count
from jaxpapers.fuxvit.model import ACT, BlockStack, FuxViT, _init, clip_positions
from jaxpapers.fuxvit.tokenizer import check_clip_shape, patchify


def tube_mask(key: jax.Array, batch: int, tokens_per_frame: int, mask_ratio: float) -> Int[Array, "B V"]:
    """Visible positions [B, P_vis] (ascending) of a per-sample tube mask with ratio ρ.

    Each row draws its own random subset of P_vis = P − round(ρ·P) positions (VideoMAE's tube
    masking); every frame of the row shares it, so P_vis is a static shape for the whole batch.
    Random (non-tube) masking would break the [T, P_vis] layout FSA needs.
    """
    n_vis = visible_count(tokens_per_frame, mask_ratio)
    noise = jax.random.uniform(key, (batch, tokens_per_frame))
    return jnp.sort(jnp.argsort(noise, axis=-1)[:, :n_vis], axis=-1).astype(jnp.int32)


def masked_positions(visible: Int[Array, "B V"], tokens_per_frame: int) -> Bool[Array, "B P"]:
    """True at masked (not visible) positions."""
    return ~jnp.any(visible[:, :, None] == jnp.arange(tokens_per_frame), axis=1)


def decoder_config(encoder: FuxViTConfig, mae: MAEConfig) -> FuxViTConfig:
    """The decoder's block config: width E, ``mae.decoder_depth`` layers, ``mae.decoder_attn_impl``."""
    return encoder.replace(
        dim=mae.decoder_dim,
        depth=mae.decoder_depth,
        num_heads=mae.decoder_heads,
        mlp_dim=4 * mae.decoder_dim,
        attn_impl=mae.decoder_attn_impl,
    )


def normalised_targets(pixels: Float[Array, "B F Hpx Wpx ch"], tubelet: int, patch: int) -> Float[Array, "B T P C"]:
    """Per-tubelet normalised pixels (x − mean)/√(var + 1e-6) over each tubelet's C features (VideoMAE)."""
    tubes = patchify(pixels.astype(jnp.float32), tubelet, patch)
    mean = tubes.mean(axis=-1, keepdims=True)
    var = tubes.var(axis=-1, keepdims=True)
    return (tubes - mean) / jnp.sqrt(var + 1e-6)


class FuxViTMAE(nn.Module):
    """Encoder (FuxViT on the visible tubes) + decoder + pixel head.

    ``__call__(pixels, visible, frame_valid, frame_seg)`` → ``dict(pred [B,T,P,C], sel)`` where ``pred``
    reconstructs every tubelet; :func:`jaxpapers.fuxvit.losses.mae_loss` scores the masked ones.
    """

    encoder: FuxViTConfig
    mae: MAEConfig

    @nn.compact
    def __call__(
        self,
        pixels: Float[Array, "B F Hpx Wpx ch"],
        visible: Int[Array, "B V"],
        frame_valid: Bool[Array, "B T"] | None = None,
        frame_seg: Int[Array, "B T"] | None = None,
    ) -> dict[str, Any]:
        enc_cfg = self.encoder
        dec_cfg = decoder_config(enc_cfg, self.mae)
        t, rows, cols = check_clip_shape(pixels.shape, enc_cfg.tubelet, enc_cfg.patch)
        b, p = pixels.shape[0], rows * cols
        if visible.shape[-1] > p:
            raise ConfigError(f"visible lists {visible.shape[-1]} positions per frame; frames have only P={p}")
        out = FuxViT(enc_cfg, name="fuxvit")(pixels, frame_valid, frame_seg, visible)
        seg, valid = routing.default_seg_valid(b, t, frame_seg, frame_valid)

        x = nn.Dense(
            dec_cfg.dim,
            dtype=dec_cfg.jnp_dtype,
            param_dtype=dec_cfg.jnp_param_dtype,
            kernel_init=_init((None, axes.EMBED)),
            bias_init=_init((axes.EMBED,), nn.initializers.zeros),
            name="decoder_embed",
        )(out["tokens"])
        mask_token = self.param(
            "mask_token", _init((axes.EMBED,), nn.initializers.normal(0.02)), (dec_cfg.dim,), dec_cfg.jnp_param_dtype
        )
        grid = jnp.broadcast_to(jnp.asarray(mask_token, dec_cfg.jnp_dtype), (b, t, p, dec_cfg.dim))
        scatter = jax.vmap(lambda g, v, idx: g.at[:, idx].set(v))  # per row: [T,P,E] ← [T,V,E] at idx
        x = nn.with_logical_constraint(scatter(grid, x.astype(dec_cfg.jnp_dtype), visible), ACT)
        pos = clip_positions(b, t, rows, cols)
        frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
        x, _, _ = BlockStack(dec_cfg, name="decoder")(x, pos, frames, seg, seg, valid)
        x = layer_norm("decoder_ln", param_dtype=dec_cfg.jnp_param_dtype)(x)
        features = enc_cfg.tubelet * enc_cfg.patch**2 * enc_cfg.channels
        pred = nn.Dense(
            features,
            dtype=jnp.float32,
            param_dtype=dec_cfg.jnp_param_dtype,
            kernel_init=_init((axes.EMBED, axes.PATCH)),
            bias_init=_init((axes.PATCH,), nn.initializers.zeros),
            name="decoder_pred",
        )(x)
        return {"pred": pred, "sel": out["sel"], "pooled": out["pooled"]}
