"""Multi-head attention with a pluggable implementation.

Letters: B batch, S query length, T key length, N heads, H head dim, D model width.

An attention implementation is ``fn(q, k, v, *, mask=None, is_causal=False, **kw) -> out`` with
q [B,S,N,H], k/v [B,T,N,H], mask broadcastable to [B,N,S,T] (True = attend), out [B,S,N,H] (the
``jax.nn.dot_product_attention`` layout). Built in: ``"xla"`` (plain einsum + softmax in float32)
and ``"dot_product"`` (``jax.nn.dot_product_attention``, XLA implementation). Papers register
others (e.g. FuxViT's frame selective attention) with :func:`register_attention`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float

from jaxpapers.core import axes
from jaxpapers.core.errors import UnknownNameError
from jaxpapers.core.nn.norm import rms_norm

AttentionFn = Callable[..., jax.Array]


def xla_attention(
    q: Float[Array, "B S N H"],
    k: Float[Array, "B T N H"],
    v: Float[Array, "B T N H"],
    *,
    mask: Bool[Array, "B N S T"] | None = None,
    is_causal: bool = False,
) -> Float[Array, "B S N H"]:
    """softmax(q·kᵀ/√H) v with float32 logits; fully masked rows give 0, not NaN."""
    scale = q.shape[-1] ** -0.5
    logits = jnp.einsum("bsnh,btnh->bnst", q, k, preferred_element_type=jnp.float32) * scale
    allowed = jnp.ones(logits.shape, bool) if mask is None else jnp.broadcast_to(mask, logits.shape)
    if is_causal:
        s, t = logits.shape[-2:]
        allowed = allowed & (jnp.arange(s)[:, None] >= jnp.arange(t)[None, :])
    logits = jnp.where(allowed, logits, -jnp.inf)
    row_max = jnp.max(logits, axis=-1, keepdims=True)
    weights = jnp.exp(logits - jnp.where(jnp.isfinite(row_max), row_max, 0.0))
    weights = weights / jnp.maximum(jnp.sum(weights, axis=-1, keepdims=True), 1e-30)
    return jnp.einsum("bnst,btnh->bsnh", weights.astype(v.dtype), v)


def dot_product_attention(
    q: Float[Array, "B S N H"],
    k: Float[Array, "B T N H"],
    v: Float[Array, "B T N H"],
    *,
    mask: Bool[Array, "B N S T"] | None = None,
    is_causal: bool = False,
    implementation: str | None = None,
) -> Float[Array, "B S N H"]:
    """``jax.nn.dot_product_attention`` (XLA by default; ``implementation="cudnn"`` on a GPU)."""
    return jax.nn.dot_product_attention(q, k, v, mask=mask, is_causal=is_causal, implementation=implementation)


ATTENTION_IMPLS: dict[str, AttentionFn] = {"xla": xla_attention, "dot_product": dot_product_attention}


def register_attention(name: str, fn: AttentionFn) -> None:
    """Makes ``fn`` available as ``MultiHeadAttention(impl=name)``."""
    ATTENTION_IMPLS[name] = fn


def get_attention(impl: str | AttentionFn) -> AttentionFn:
    """Looks up an implementation by name (or passes a callable through)."""
    if callable(impl):
        return impl
    if impl not in ATTENTION_IMPLS:
        raise UnknownNameError(
            f"attention impl {impl!r} does not exist; choose one of {', '.join(sorted(ATTENTION_IMPLS))}"
        )
    return ATTENTION_IMPLS[impl]


class MultiHeadAttention(nn.Module):
    """Self-attention: q/k/v projections (EMBED → HEADS×KV), an implementation, output projection.

    ``qk_fn(q, k) -> (q, k)`` is applied after the optional per-head QK RMS-norm, e.g. to add RoPE.
    Extra keyword arguments of ``__call__`` go to the implementation.
    """

    num_heads: int
    head_dim: int
    impl: str | AttentionFn = "xla"
    qk_norm: bool = False
    use_bias: bool = False
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "B S D"],
        *,
        mask: Bool[Array, "B N S T"] | None = None,
        is_causal: bool = False,
        qk_fn: Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]] | None = None,
        **impl_kwargs: Any,
    ) -> Float[Array, "B S D"]:
        chex.assert_rank(x, 3)
        d_model = x.shape[-1]

        # Kernels are created at their true rank (not via nn.DenseGeneral, whose flattened init
        # breaks logical sharding constraints under a mesh); fan-in/out follow the head layout.
        in_init = nn.initializers.lecun_normal(in_axis=0, out_axis=(1, 2))
        out_init = nn.initializers.lecun_normal(in_axis=(0, 1), out_axis=2)

        def proj(name: str) -> jax.Array:
            w = self.param(
                f"{name}_kernel",
                nn.with_logical_partitioning(in_init, (axes.EMBED, axes.HEADS, axes.KV)),
                (d_model, self.num_heads, self.head_dim),
                self.param_dtype,
            )
            y = jnp.einsum("bsd,dnh->bsnh", x.astype(self.dtype), jnp.asarray(w, self.dtype))
            if self.use_bias:
                b = self.param(
                    f"{name}_bias",
                    nn.with_logical_partitioning(nn.initializers.zeros, (axes.HEADS, axes.KV)),
                    (self.num_heads, self.head_dim),
                    self.param_dtype,
                )
                y = y + jnp.asarray(b, self.dtype)
            return nn.with_logical_constraint(y, (axes.BATCH, axes.LENGTH, axes.HEADS, axes.KV))

        q, k, v = proj("query"), proj("key"), proj("value")
        if self.qk_norm:
            q = rms_norm("query_norm", dtype=self.dtype, param_dtype=self.param_dtype, axis_name=axes.KV)(q)
            k = rms_norm("key_norm", dtype=self.dtype, param_dtype=self.param_dtype, axis_name=axes.KV)(k)
        if qk_fn is not None:
            q, k = qk_fn(q, k)
        out = get_attention(self.impl)(q, k, v, mask=mask, is_causal=is_causal, **impl_kwargs)
        chex.assert_shape(out, (x.shape[0], x.shape[1], self.num_heads, self.head_dim))
        out = nn.with_logical_constraint(out, (axes.BATCH, axes.LENGTH, axes.HEADS, axes.KV))
        w_out = self.param(
            "out_kernel",
            nn.with_logical_partitioning(out_init, (axes.HEADS, axes.KV, axes.EMBED)),
            (self.num_heads, self.head_dim, d_model),
            self.param_dtype,
        )
        y = jnp.einsum("bsnh,nhd->bsd", out, jnp.asarray(w_out, self.dtype))
        if self.use_bias:
            y = y + jnp.asarray(
                self.param(
                    "out_bias",
                    nn.with_logical_partitioning(nn.initializers.zeros, (axes.EMBED,)),
                    (d_model,),
                    self.param_dtype,
                ),
                self.dtype,
            )
        return nn.with_logical_constraint(y, (axes.BATCH, axes.LENGTH, axes.EMBED))
