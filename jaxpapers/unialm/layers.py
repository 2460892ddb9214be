"""Shared Linen layers of the codec: ConvNeXt-1D blocks (Vocos) and pre-LN transformer blocks with RoPE.

Letters: B batch, T frames (time), D width, H heads, E head dim, S key length.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.unialm import audio


class ConvNeXt1D(nn.Module):
    """Depthwise conv (k=7) → LayerNorm → Dense 4D → GELU → Dense D → layer-scale, residual (Vocos block)."""

    dim: int
    kernel: int = 7
    scale_init: float = 0.1

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        h = nn.Conv(self.dim, (self.kernel,), padding="SAME", feature_group_count=self.dim, name="dwconv")(x)
        h = nn.LayerNorm(name="norm")(h)
        h = nn.gelu(nn.Dense(4 * self.dim, name="up")(h))
        h = nn.Dense(self.dim, name="down")(h)
        gamma = self.param("scale", nn.initializers.constant(self.scale_init), (self.dim,))
        return x + gamma * h


def rope(x: jax.Array, positions: jax.Array, theta: float = 10_000.0) -> jax.Array:
    """Rotary embedding on the last axis (pairs of halves) of ``x [B, T, H, E]``."""
    e = x.shape[-1]
    freqs = theta ** (-np.arange(0, e // 2) * 2.0 / e)
    ang = positions[:, None].astype(jnp.float32) * freqs[None, :]
    cos, sin = jnp.cos(ang)[None, :, None, :], jnp.sin(ang)[None, :, None, :]
    x1, x2 = x[..., : e // 2], x[..., e // 2 :]
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(x.dtype)


class TransformerBlock(nn.Module):
    """Pre-LN block: x + MHA(LN x) (RoPE, optional causal mask), then x + MLP(LN x) with width 4D."""

    dim: int
    heads: int = 4
    causal: bool = False

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        b, t, d = x.shape
        e = d // self.heads
        h = nn.LayerNorm(name="ln_attn")(x)
        qkv = nn.DenseGeneral((3, self.heads, e), name="qkv")(h)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        pos = jnp.arange(t)
        q, k = rope(q, pos), rope(k, pos)
        logits = jnp.einsum("bthe,bshe->bhts", q, k) / np.sqrt(e)
        if self.causal:
            logits = jnp.where(np.tril(np.ones((t, t), bool)), logits, -1e9)
        att = jax.nn.softmax(logits, axis=-1)
        o = jnp.einsum("bhts,bshe->bthe", att, v)
        x = x + nn.DenseGeneral(d, axis=(-2, -1), name="out")(o)
        h = nn.LayerNorm(name="ln_mlp")(x)
        h = nn.Dense(d, name="mlp_down")(nn.gelu(nn.Dense(4 * d, name="mlp_up")(h)))
        return x + h


def istft_head(module: nn.Module, h: jax.Array, n_fft: int, hop: int, logmag_min: float, logmag_max: float):
    """The Vocos iSTFT head inside ``module``'s compact scope (param ``head``): ``Dense(2K)`` → log|S| clipped
    to ``[logmag_min, logmag_max]`` before exp, phase φ → ``S = exp(log|S|)·e^{iφ}`` → iSTFT (spec §2 step 4)."""
    k = n_fft // 2 + 1
    out = nn.Dense(2 * k, name="head", parent=module)(h).astype(jnp.float32)
    logmag = jnp.clip(out[..., :k], logmag_min, logmag_max)  # clip before exp (spec Pitfall)
    phase = out[..., k:]
    spec = jnp.exp(logmag) * (jnp.cos(phase) + 1j * jnp.sin(phase))
    return audio.istft(spec, n_fft, hop)
