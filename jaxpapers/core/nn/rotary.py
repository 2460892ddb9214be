"""Rotary position embeddings (RoPE, Su et al. 2021) on one axis; multi-axis RoPE splits channels.

Letters: B batch, S positions, N heads, H head dim, H2 rotated channel pairs; ``*batch`` any leading axes.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Float, Int


def rope_angles(positions: Int[Array, "*batch S"], dim: int, base: float = 10_000.0) -> Float[Array, "*batch S half"]:
    """Angles ``pos · base^(-2i/dim)`` for the ``dim/2`` channel pairs of standard RoPE."""
    if dim % 2:
        raise ValueError(f"rotary dim={dim} must be even (RoPE rotates channel pairs)")
    inv_freq = base ** (-jnp.arange(0, dim, 2, dtype=jnp.float32) / dim)
    return positions.astype(jnp.float32)[..., None] * inv_freq


def apply_rotary(x: Float[Array, "*#batch N H"], angles: Float[Array, "*#batch H2"]) -> Float[Array, "*#batch N H"]:
    """Rotates channel pairs (x[2i], x[2i+1]) of the first ``2·H2`` channels by ``angles``.

    ``x`` is [..., N, H] with any leading axes (e.g. [B, S] or FuxViT's [B, T, P]), ``angles``
    [..., H2] with leading axes that broadcast against them; ``angles`` broadcast over heads.
    Channels beyond ``2·H2`` pass through unchanged, so several axes can be rotated on disjoint
    channel slices (multi-axis RoPE).
    """
    half = angles.shape[-1]
    rot, rest = x[..., : 2 * half], x[..., 2 * half :]
    cos = jnp.cos(angles)[..., None, :]
    sin = jnp.sin(angles)[..., None, :]
    x1, x2 = rot[..., 0::2].astype(jnp.float32), rot[..., 1::2].astype(jnp.float32)
    out = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).reshape(rot.shape)
    return jnp.concatenate([out.astype(x.dtype), rest], axis=-1)
