"""Feed-forward block: Dense(EMBED→MLP), activation, Dense(MLP→EMBED).

Letters: B batch, S length, D model width, F mlp width.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core import axes


class MlpBlock(nn.Module):
    """``Dense(mlp_dim) → act → dropout → Dense(out_dim or D)`` with logical axis names."""

    mlp_dim: int
    out_dim: int | None = None
    act: Callable[[jax.Array], jax.Array] = nn.gelu
    dropout: float = 0.0
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B S D"], *, deterministic: bool = True) -> Float[Array, "B S D"]:
        init = nn.initializers.xavier_uniform()
        h = nn.Dense(
            self.mlp_dim,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="wi",
            kernel_init=nn.with_logical_partitioning(init, (axes.EMBED, axes.MLP)),
            bias_init=nn.with_logical_partitioning(nn.initializers.zeros, (axes.MLP,)),
        )(x)
        h = nn.with_logical_constraint(self.act(h), (axes.BATCH, axes.LENGTH, axes.MLP))
        h = nn.Dropout(self.dropout)(h, deterministic=deterministic)
        y = nn.Dense(
            self.out_dim or x.shape[-1],
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="wo",
            kernel_init=nn.with_logical_partitioning(init, (axes.MLP, axes.EMBED)),
            bias_init=nn.with_logical_partitioning(nn.initializers.zeros, (axes.EMBED,)),
        )(h)
        return nn.with_logical_constraint(y, (axes.BATCH, axes.LENGTH, axes.EMBED))
