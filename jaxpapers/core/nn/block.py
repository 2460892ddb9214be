"""Pre-norm transformer block and a stack of them (optionally ``nn.scan``-ned and rematerialised).

Letters: B batch, S length, D model width, N heads, H head dim.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float

from jaxpapers.core import axes
from jaxpapers.core.nn.attention import AttentionFn, MultiHeadAttention
from jaxpapers.core.nn.mlp import MlpBlock
from jaxpapers.core.nn.norm import layer_norm
from jaxpapers.core.nn.rotary import apply_rotary


class TransformerBlock(nn.Module):
    """x ← x + Attn(LN(x)); x ← x + MLP(LN(x)).

    ``angles`` [B,S,H/2 or fewer] (from :func:`rope_angles`, possibly concatenated over several
    axes) rotates q and k (RoPE); ``mask`` broadcastable to [B,N,S,S].
    """

    num_heads: int
    head_dim: int
    mlp_dim: int
    attn_impl: str | AttentionFn = "xla"
    qk_norm: bool = False
    is_causal: bool = False
    dropout: float = 0.0
    deterministic: bool = True
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "B S D"],
        mask: Bool[Array, "B N S S"] | None = None,
        angles: Float[Array, "B S R"] | None = None,
    ) -> Float[Array, "B S D"]:
        x = nn.with_logical_constraint(x, (axes.BATCH, axes.LENGTH, axes.EMBED))
        qk_fn = None
        if angles is not None:
            qk_fn = lambda q, k: (apply_rotary(q, angles), apply_rotary(k, angles))  # noqa: E731
        h = layer_norm("ln_attn", param_dtype=self.param_dtype)(x).astype(self.dtype)
        h = MultiHeadAttention(
            self.num_heads,
            self.head_dim,
            impl=self.attn_impl,
            qk_norm=self.qk_norm,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="attn",
        )(h, mask=mask, is_causal=self.is_causal, qk_fn=qk_fn)
        x = x + nn.Dropout(self.dropout)(h, deterministic=self.deterministic)
        h = layer_norm("ln_mlp", param_dtype=self.param_dtype)(x).astype(self.dtype)
        h = MlpBlock(self.mlp_dim, dropout=self.dropout, dtype=self.dtype, param_dtype=self.param_dtype, name="mlp")(
            h, deterministic=self.deterministic
        )
        x = x + nn.Dropout(self.dropout)(h, deterministic=self.deterministic)
        return nn.with_logical_constraint(x, (axes.BATCH, axes.LENGTH, axes.EMBED))


class _ScannedBlock(nn.Module):
    """Adapter giving TransformerBlock the (carry, x) -> (carry, y) signature of ``nn.scan``."""

    block: dict[str, Any]

    @nn.compact
    def __call__(self, x: jax.Array, mask: jax.Array | None, angles: jax.Array | None) -> tuple[jax.Array, None]:
        return TransformerBlock(**self.block, name="block")(x, mask, angles), None


class TransformerStack(nn.Module):
    """``depth`` TransformerBlocks named ``layer_0..`` (or one scanned ``layers`` module).

    ``scan_layers`` stacks the block params along a leading LAYERS axis (fast compile for deep
    models); ``remat`` recomputes block activations in the backward pass (``nn.remat``).
    """

    depth: int
    num_heads: int
    head_dim: int
    mlp_dim: int
    attn_impl: str | AttentionFn = "xla"
    qk_norm: bool = False
    is_causal: bool = False
    dropout: float = 0.0
    deterministic: bool = True
    scan_layers: bool = False
    remat: bool = False
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(
        self, x: Float[Array, "B S D"], mask: jax.Array | None = None, angles: jax.Array | None = None
    ) -> Float[Array, "B S D"]:
        block = dict(
            num_heads=self.num_heads,
            head_dim=self.head_dim,
            mlp_dim=self.mlp_dim,
            attn_impl=self.attn_impl,
            qk_norm=self.qk_norm,
            is_causal=self.is_causal,
            dropout=self.dropout,
            deterministic=self.deterministic,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
        )
        if self.scan_layers:
            cls = nn.remat(_ScannedBlock, prevent_cse=False) if self.remat else _ScannedBlock
            scanned = nn.scan(
                cls,
                variable_axes={"params": 0},
                split_rngs={"params": True, "dropout": True},
                in_axes=(nn.broadcast, nn.broadcast),
                length=self.depth,
                metadata_params={nn.PARTITION_NAME: axes.LAYERS},
            )
            x, _ = scanned(block, name="layers")(x, mask, angles)
            return x
        cls = nn.remat(TransformerBlock) if self.remat else TransformerBlock
        for i in range(self.depth):
            x = cls(**block, name=f"layer_{i}")(x, mask, angles)
        return x
