"""Normalisation layers whose scale/bias carry the EMBED logical axis."""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from jaxpapers.core import axes


def layer_norm(
    name: str | None = None,
    *,
    dtype=jnp.float32,
    param_dtype=jnp.float32,
    axis_name: str = axes.EMBED,
    use_bias: bool = True,
) -> nn.LayerNorm:
    """``nn.LayerNorm`` with logically partitioned scale and bias (computed in float32)."""
    return nn.LayerNorm(
        name=name,
        dtype=dtype,
        param_dtype=param_dtype,
        use_bias=use_bias,
        scale_init=nn.with_logical_partitioning(nn.initializers.ones, (axis_name,)),
        bias_init=nn.with_logical_partitioning(nn.initializers.zeros, (axis_name,)),
    )


def rms_norm(
    name: str | None = None, *, dtype=jnp.float32, param_dtype=jnp.float32, axis_name: str = axes.EMBED
) -> nn.RMSNorm:
    """``nn.RMSNorm`` with a logically partitioned scale (e.g. per-head QK-norm with ``axis_name=KV``)."""
    return nn.RMSNorm(
        name=name,
        dtype=dtype,
        param_dtype=param_dtype,
        scale_init=nn.with_logical_partitioning(nn.initializers.ones, (axis_name,)),
    )
