"""TinyLM: token embedding, RoPE, a causal TransformerStack, tied output logits.

Letters: B batch, S length, D model width, V vocabulary.

Layout rule: the model is a Linen module built from ``core.nn`` layers with logical axis names
(``core.axes``); it takes its typed config (``config.TinyLMConfig``), never a ConfigDict, and does no I/O,
printing or RNG of its own.
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core import axes
from jaxpapers.core import nn as jpnn
from jaxpapers.example.config import TinyLMConfig


class TinyLM(nn.Module):
    """A causal language model: ``tokens [B,S] -> logits [B,S,V]``."""

    config: TinyLMConfig

    @nn.compact
    def __call__(self, tokens: Int[ArrayLike, "B S"]) -> Float[Array, "B S V"]:
        c = self.config
        dtype = jnp.dtype(c.dtype)
        tokens = jnp.asarray(tokens)  # NumPy batches are welcome
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
