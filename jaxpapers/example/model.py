"""TinyLM: token embedding, RoPE, a causal TransformerStack, tied output logits.

Letters: B batch, S length, D model width, V vocabulary.
"""

from __future__ import annotations

import dataclasses

import flax.linen as nn
import jax.numpy as jnp
from jaxtyping import Array, Float, Int

from jaxpapers.core import axes
from jaxpapers.core import nn as jpnn
from jaxpapers.core.checks import check_choice, check_range


@dataclasses.dataclass(frozen=True)
class TinyLMConfig:
    """Model hyperparameters (built from ``cfg.model`` by ``core.config.to_dataclass``)."""

    vocab_size: int = 16
    dim: int = 64
    depth: int = 2
    num_heads: int = 4
    mlp_dim: int = 128
    attn_impl: str = "xla"
    scan_layers: bool = False
    remat: bool = False
    dtype: str = "float32"

    def __post_init__(self):
        check_range("model.vocab_size", self.vocab_size, 2)
        check_range("model.depth", self.depth, 1)
        check_choice("model.attn_impl", self.attn_impl, sorted(jpnn.ATTENTION_IMPLS))
        check_choice("model.dtype", self.dtype, ("float32", "bfloat16"))
        if self.dim % self.num_heads or (self.dim // self.num_heads) % 2:
            raise ValueError(f"model.dim={self.dim} must split into {self.num_heads} heads of even size (RoPE)")

    @property
    def head_dim(self) -> int:
        return self.dim // self.num_heads


class TinyLM(nn.Module):
    """A causal language model: ``tokens [B,S] -> logits [B,S,V]``."""

    config: TinyLMConfig

    @nn.compact
    def __call__(self, tokens: Int[Array, "B S"]) -> Float[Array, "B S V"]:
        c = self.config
        dtype = jnp.dtype(c.dtype)
        embed = jpnn.TokenEmbed(c.vocab_size, c.dim, dtype=dtype, name="embed")
        x = embed(tokens)
        positions = jnp.broadcast_to(jnp.arange(tokens.shape[1]), tokens.shape)
        angles = jpnn.rope_angles(positions, c.head_dim)
        x = jpnn.TransformerStack(
            depth=c.depth,
            num_heads=c.num_heads,
            head_dim=c.head_dim,
            mlp_dim=c.mlp_dim,
            attn_impl=c.attn_impl,
            is_causal=True,
            scan_layers=c.scan_layers,
            remat=c.remat,
            dtype=dtype,
            name="decoder",
        )(x, None, angles)
        x = jpnn.layer_norm("ln_final")(x)
        logits = embed.attend(x.astype(dtype)).astype(jnp.float32)
        return nn.with_logical_constraint(logits, (axes.BATCH, axes.LENGTH, axes.VOCAB))
