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
from jaxpapers.core.errors import ConfigError, UnknownNameError
from jaxpapers.core.nn.einsum import SEQUENCE_ACT, Einsum, Initializer, constrain
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
    """Self-attention: q/k/v :class:`Einsum` projections (EMBED → HEADS×KV), an implementation, output
    projection (HEADS×KV → EMBED). Params: ``query``, ``key``, ``value``, ``out`` (each ``kernel``,
    plus ``bias`` with ``use_bias``) and ``query_norm``/``key_norm`` with ``qk_norm``.

    ``act_axes`` names the input's axes (default [B, S, D]); q/k/v and the attention output are
    constrained to ``(*act_axes[:-1], HEADS, KV)`` and the result to ``act_axes``. The implementation
    receives q/k/v in that layout, so inputs of rank > 3 need an implementation that understands them.
    ``qk_fn(q, k) -> (q, k)`` is applied after the optional per-head QK RMS-norm, e.g. to add RoPE.
    Extra keyword arguments of ``__call__`` go to the implementation.

    Grouped-query attention (Ainslie et al. 2023): ``num_kv_heads`` G < N key/value heads (N divisible by G),
    each shared by N/G consecutive query heads; ``key``/``value`` kernels are then [D, G, H] and are repeated to
    N heads before the implementation, so every implementation serves GQA unchanged. None: G = N.
    ``out_init`` replaces the output projection's initializer (``nn.initializers.zeros``: the layer adds
    nothing to a residual stream at initialisation).

    ``decode=True`` keeps a key/value cache in the ``"cache"`` collection (``cached_key``/``cached_value``
    [B, T, G, H] after the QK norm and ``qk_fn``, i.e. RoPE-rotated; ``cache_index`` the number of filled
    slots). The first call (``init``) sizes the cache by its input length T and attends as without a cache;
    each later call with x [B, S, D] writes its keys at slots [index, index + S) and lets query s attend to
    slots ≤ index + s (causal by construction; ``mask``, broadcastable to [B, N, S, T], further restricts).
    Positions for RoPE are the caller's (``qk_fn``). Without ``decode`` nothing of this runs.
    """

    num_heads: int
    head_dim: int
    num_kv_heads: int | None = None
    impl: str | AttentionFn = "xla"
    qk_norm: bool = False
    use_bias: bool = False
    out_init: Initializer | None = None
    act_axes: tuple[str, ...] = SEQUENCE_ACT
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32
    decode: bool = False

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "*batch D"],
        *,
        mask: Bool[Array, "..."] | None = None,
        is_causal: bool = False,
        qk_fn: Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]] | None = None,
        **impl_kwargs: Any,
    ) -> Float[Array, "*batch D"]:
        x = constrain(x, self.act_axes)
        d_model, n, h = x.shape[-1], self.num_heads, self.head_dim
        heads_act = (*self.act_axes[:-1], axes.HEADS, axes.KV)
        kw = dict(use_bias=self.use_bias, dtype=self.dtype, param_dtype=self.param_dtype)

        g = n if self.num_kv_heads is None else self.num_kv_heads
        if g < 1 or n % g:
            raise ConfigError(f"num_kv_heads={g} must be at least 1 and divide num_heads={n}")

        def proj(name: str, heads: int) -> jax.Array:
            y = Einsum((d_model, heads, h), (axes.EMBED, axes.HEADS, axes.KV), "...d,dnh->...nh", **kw, name=name)(x)
            return constrain(y, heads_act)

        q, k, v = proj("query", n), proj("key", g), proj("value", g)
        if self.decode:
            q, k, v, mask, is_causal = self._cached(q, k, v, mask, is_causal, qk_fn, heads_act)
        else:
            if g != n:  # each key/value head serves n // g consecutive query heads
                k, v = (constrain(jnp.repeat(t, n // g, axis=-2), heads_act) for t in (k, v))
            if self.qk_norm:
                q = rms_norm("query_norm", dtype=self.dtype, param_dtype=self.param_dtype, axis_name=axes.KV)(q)
                k = rms_norm("key_norm", dtype=self.dtype, param_dtype=self.param_dtype, axis_name=axes.KV)(k)
            if qk_fn is not None:
                q, k = qk_fn(q, k)
        out = get_attention(self.impl)(q, k, v, mask=mask, is_causal=is_causal, **impl_kwargs)
        chex.assert_shape(out, q.shape)
        out = constrain(out, heads_act)
        y = Einsum(
            (n, h, d_model),
            (axes.HEADS, axes.KV, axes.EMBED),
            "...nh,nhd->...d",
            **kw,
            kernel_init=self.out_init,
            name="out",
        )(out)
        return constrain(y, self.act_axes)

    def _cached(self, q, k, v, mask, is_causal, qk_fn, heads_act):
        """The ``decode`` path: QK norm and ``qk_fn`` on the G key heads, cache update, then GQA repeat."""
        if q.ndim != 4:
            raise ConfigError(f"decode=True needs x of shape [B, S, D]; got q of rank {q.ndim}")
        n, g = q.shape[-2], k.shape[-2]
        if self.qk_norm:
            q = rms_norm("query_norm", dtype=self.dtype, param_dtype=self.param_dtype, axis_name=axes.KV)(q)
            k = rms_norm("key_norm", dtype=self.dtype, param_dtype=self.param_dtype, axis_name=axes.KV)(k)
        if qk_fn is not None:  # RoPE acts per head, so rotating the G key heads equals rotating their repeats
            q, k = qk_fn(q, k)
        initialised = self.has_variable("cache", "cached_key")
        cached_key = self.variable("cache", "cached_key", jnp.zeros, k.shape, k.dtype)
        cached_value = self.variable("cache", "cached_value", jnp.zeros, v.shape, v.dtype)
        index = self.variable("cache", "cache_index", lambda: jnp.array(0, jnp.int32))
        if initialised:
            s, t = q.shape[1], cached_key.value.shape[1]
            i = index.value
            cached_key.value = jax.lax.dynamic_update_slice(
                cached_key.value, k.astype(cached_key.value.dtype), (0, i, 0, 0)
            )
            cached_value.value = jax.lax.dynamic_update_slice(
                cached_value.value, v.astype(cached_value.value.dtype), (0, i, 0, 0)
            )
            index.value = i + s
            k, v = cached_key.value, cached_value.value
            allowed = (jnp.arange(t)[None, :] <= i + jnp.arange(s)[:, None])[None, None]  # [1, 1, S, T]
            mask = allowed if mask is None else jnp.logical_and(mask, allowed)
            is_causal = False
        if mask is not None:
            mask = jnp.broadcast_to(mask, (q.shape[0], n, q.shape[1], k.shape[1]))
        if g != n:
            k, v = (constrain(jnp.repeat(a, n // g, axis=-2), heads_act) for a in (k, v))
        return q, k, v, mask, is_causal
