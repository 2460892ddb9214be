"""Input embeddings: tokens (VOCAB → EMBED) and image patches (PATCH → EMBED).

Letters: B batch, S length, D model width; images [B, Hpx, Wpx, C].
"""

from __future__ import annotations

from typing import Any

import chex
import einops
import flax.linen as nn
import jax.numpy as jnp
from jaxtyping import Array, Float, Int

from jaxpapers.core import axes


class TokenEmbed(nn.Module):
    """Token embedding table [VOCAB, EMBED] with ``attend`` for tied output logits."""

    vocab_size: int
    dim: int
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    def setup(self):
        self.table = self.param(
            "embedding",
            nn.with_logical_partitioning(nn.initializers.normal(stddev=1.0), (axes.VOCAB, axes.EMBED)),
            (self.vocab_size, self.dim),
            self.param_dtype,
        )

    def __call__(self, tokens: Int[Array, "B S"]) -> Float[Array, "B S D"]:
        x = jnp.asarray(self.table, self.dtype)[tokens]
        return nn.with_logical_constraint(x, (axes.BATCH, axes.LENGTH, axes.EMBED))

    def attend(self, x: Float[Array, "B S D"]) -> Float[Array, "B S V"]:
        """Logits against the embedding table (weight tying), scaled by 1/√D.

        With unit-variance embeddings and layer-normed ``x`` the raw dot products have variance D;
        the scale keeps initial logits O(1), so the untrained loss starts near ln V (as in Flax's lm1b).
        """
        return jnp.einsum("bsd,vd->bsv", x, jnp.asarray(self.table, self.dtype)) / jnp.sqrt(self.dim).astype(self.dtype)


class PatchEmbed(nn.Module):
    """Cuts images into ``patch``×``patch`` tiles and projects each flattened tile to ``dim``."""

    patch: int
    dim: int
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, images: Float[Array, "B Hpx Wpx C"]) -> Float[Array, "B S D"]:
        chex.assert_rank(images, 4)
        h, w = images.shape[1:3]
        if h % self.patch or w % self.patch:
            raise ValueError(f"image size {h}x{w} is not divisible by patch={self.patch}")
        tiles = einops.rearrange(images, "b (h p) (w q) c -> b (h w) (p q c)", p=self.patch, q=self.patch)
        x = nn.Dense(
            self.dim,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="proj",
            kernel_init=nn.with_logical_partitioning(nn.initializers.lecun_normal(), (axes.PATCH, axes.EMBED)),
            bias_init=nn.with_logical_partitioning(nn.initializers.zeros, (axes.EMBED,)),
        )(tiles)
        return nn.with_logical_constraint(x, (axes.BATCH, axes.LENGTH, axes.EMBED))
