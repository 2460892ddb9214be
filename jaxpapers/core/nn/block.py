"""Pre-norm transformer block and a stack of repeated blocks (optionally ``nn.scan``-ned and rematerialised).

Letters: B batch, S length, D model width, N heads, H head dim, L layers.

Naming rule for repeated blocks (every model): unrolled layers are ``layers_0 .. layers_{L-1}``;
scanned layers are one module ``layers`` whose params are those of one block stacked along a
leading LAYERS axis, so ``stack(layers_0, .., layers_{L-1})`` *is* the scanned tree (no wrapper
level). :func:`stack_layers` implements both for any block class; under ``nn.scan`` the
rematerialised block uses ``prevent_cse=False`` (the scan already keeps XLA from fusing the
recomputation away), unrolled it keeps the default.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float

from jaxpapers.core import axes
from jaxpapers.core.nn.attention import AttentionFn, MultiHeadAttention
from jaxpapers.core.nn.einsum import SEQUENCE_ACT, constrain
from jaxpapers.core.nn.mlp import MlpBlock, SwiGLU
from jaxpapers.core.nn.norm import layer_norm, rms_norm
from jaxpapers.core.nn.rotary import apply_rotary


class TransformerBlock(nn.Module):
    """x ← x + Attn(LN(x)); x ← x + MLP(LN(x)).

    ``angles`` [B,S,H/2 or fewer] (from :func:`rope_angles`, possibly concatenated over several
    axes) rotates q and k (RoPE); ``mask`` broadcastable to [B,N,S,S]. ``act_axes`` names the
    activation axes (see :class:`MlpBlock`); with more than 3 axes ``attn_impl`` must accept
    q/k/v of that rank.
    """

    num_heads: int
    head_dim: int
    mlp_dim: int
    attn_impl: str | AttentionFn = "xla"
    qk_norm: bool = False
    is_causal: bool = False
    dropout: float = 0.0
    deterministic: bool = True
    act_axes: tuple[str, ...] = SEQUENCE_ACT
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "*batch D"],
        mask: Bool[Array, "..."] | None = None,
        angles: Float[Array, "..."] | None = None,
    ) -> Float[Array, "*batch D"]:
        x = constrain(x, self.act_axes)
        qk_fn = None
        if angles is not None:
            qk_fn = lambda q, k: (apply_rotary(q, angles), apply_rotary(k, angles))  # noqa: E731
        h = layer_norm("ln_attn", param_dtype=self.param_dtype)(x).astype(self.dtype)
        h = MultiHeadAttention(
            self.num_heads,
            self.head_dim,
            impl=self.attn_impl,
            qk_norm=self.qk_norm,
            act_axes=self.act_axes,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="attn",
        )(h, mask=mask, is_causal=self.is_causal, qk_fn=qk_fn)
        x = x + nn.Dropout(self.dropout)(h, deterministic=self.deterministic)
        h = layer_norm("ln_mlp", param_dtype=self.param_dtype)(x).astype(self.dtype)
        h = MlpBlock(
            self.mlp_dim,
            dropout=self.dropout,
            act_axes=self.act_axes,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="mlp",
        )(h, deterministic=self.deterministic)
        x = x + nn.Dropout(self.dropout)(h, deterministic=self.deterministic)
        return constrain(x, self.act_axes)


class DecoderBlock(nn.Module):
    """The Llama decoder block: x ← x + Attn(RMSNorm(x)); x ← x + SwiGLU(RMSNorm(x)).

    Grouped-query attention with ``num_kv_heads`` key/value heads (None: one per query head), RoPE by
    ``angles`` (:func:`rope_angles` of the positions), causal unless ``is_causal=False``; ``mask``
    (broadcastable to [B, N, S, S]; x is [B, S, D]) further restricts the admissible keys.
    ``zero_init_residual`` zeroes the attention-output and MLP-down kernels, so the block is exactly the
    identity at initialisation (a layer inserted into a trained model leaves its outputs unchanged). Params
    ``attn_norm``, ``attn``, ``mlp_norm``, ``mlp``.

    ``decode=True`` gives the attention a key/value cache (see :class:`MultiHeadAttention`): x [B, S, D] are
    the next S positions, ``angles`` their RoPE angles, ``mask`` broadcastable to [B, N, S, T] over the T
    cache slots.
    """

    num_heads: int
    head_dim: int
    mlp_dim: int
    num_kv_heads: int | None = None
    attn_impl: str | AttentionFn = "xla"
    is_causal: bool = True
    zero_init_residual: bool = False
    act_axes: tuple[str, ...] = SEQUENCE_ACT
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32
    decode: bool = False

    @nn.compact
    def __call__(
        self,
        x: Float[Array, "*batch D"],
        mask: Bool[Array, "..."] | None = None,
        angles: Float[Array, "..."] | None = None,
    ) -> Float[Array, "*batch D"]:
        x = constrain(x, self.act_axes)
        zero = nn.initializers.zeros if self.zero_init_residual else None
        kw = dict(act_axes=self.act_axes, dtype=self.dtype, param_dtype=self.param_dtype)
        qk_fn = None
        if angles is not None:
            qk_fn = lambda q, k: (apply_rotary(q, angles), apply_rotary(k, angles))  # noqa: E731
        if mask is not None:  # [B or 1, N or 1, S, S] -> [B, N, S, S], the layout implementations take
            keys = mask.shape[-1] if self.decode else x.shape[-2]
            mask = jnp.broadcast_to(mask, (x.shape[0], self.num_heads, x.shape[-2], keys))
        h = rms_norm("attn_norm", param_dtype=self.param_dtype)(x).astype(self.dtype)
        h = MultiHeadAttention(
            self.num_heads,
            self.head_dim,
            num_kv_heads=self.num_kv_heads,
            impl=self.attn_impl,
            out_init=zero,
            decode=self.decode,
            **kw,
            name="attn",
        )(h, mask=mask, is_causal=self.is_causal, qk_fn=qk_fn)
        x = x + h
        h = rms_norm("mlp_norm", param_dtype=self.param_dtype)(x).astype(self.dtype)
        x = x + SwiGLU(self.mlp_dim, down_init=zero, **kw, name="mlp")(h)
        return constrain(x, self.act_axes)


def _split_output(out: Any) -> tuple[jax.Array, tuple[Any, ...]]:
    """A block returns ``x`` or ``(x, *extras)``."""
    return (out[0], tuple(out[1:])) if isinstance(out, tuple) else (out, ())


@functools.cache
def _scan_body(block: type[nn.Module]) -> type[nn.Module]:
    """``block`` with the ``nn.scan`` signature (x, layer_inputs, *shared) → (x, extras).

    A subclass (not a wrapper module), so the scanned params carry no extra name level.
    """

    class ScanBody(block):  # type: ignore[misc, valid-type]
        def __call__(self, x, layer_inputs, *shared):
            return _split_output(block.__call__(self, x, *shared, *layer_inputs))

    ScanBody.__name__ = ScanBody.__qualname__ = f"Scanned{block.__name__}"
    return ScanBody


def stack_layers(
    block: type[nn.Module],
    block_kwargs: Mapping[str, Any],
    x: jax.Array,
    *shared: Any,
    depth: int,
    layer_inputs: tuple[Any, ...] = (),
    scan_layers: bool = False,
    remat: bool = False,
    name: str = "layers",
) -> tuple[jax.Array, tuple[Any, ...]]:
    """``depth`` blocks ``block(**block_kwargs)`` applied in turn to ``x``; call it inside a compact method.

    Each block is called as ``block(x, *shared, *layer_inputs_i)`` and returns ``x`` or
    ``(x, *extras)``. ``shared`` go to every layer unchanged; ``layer_inputs`` are pytrees with a
    leading ``depth`` axis (layer i gets index i; None for none). Returns ``(x, extras)`` with every
    extra stacked along a leading ``depth`` axis (``()`` when the block returns ``x`` only). Params
    follow the naming rule of this module: ``{name}_{i}`` unrolled, one ``{name}`` scanned.
    """
    if scan_layers:
        body = _scan_body(block)
        body = nn.remat(body, prevent_cse=False) if remat else body
        scanned = nn.scan(
            body,
            variable_axes={"params": 0, "cache": 0},
            split_rngs={"params": True, "dropout": True},
            in_axes=(0, *[nn.broadcast] * len(shared)),
            length=depth,
            metadata_params={nn.PARTITION_NAME: axes.LAYERS},
        )
        return scanned(**block_kwargs, name=name)(x, layer_inputs, *shared)
    cls = nn.remat(block) if remat else block
    extras = []
    for i in range(depth):
        inputs_i = jax.tree.map(lambda a: a[i], layer_inputs)  # noqa: B023 (used at once)
        x, extra = _split_output(cls(**block_kwargs, name=f"{name}_{i}")(x, *shared, *inputs_i))
        extras.append(extra)
    return x, jax.tree.map(lambda *a: jnp.stack(a), *extras)


class TransformerStack(nn.Module):
    """``depth`` TransformerBlocks: ``layers_0..`` unrolled, or one scanned ``layers`` (see :func:`stack_layers`).

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
    act_axes: tuple[str, ...] = SEQUENCE_ACT
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(
        self, x: Float[Array, "*batch D"], mask: jax.Array | None = None, angles: jax.Array | None = None
    ) -> Float[Array, "*batch D"]:
        block = dict(
            num_heads=self.num_heads,
            head_dim=self.head_dim,
            mlp_dim=self.mlp_dim,
            attn_impl=self.attn_impl,
            qk_norm=self.qk_norm,
            is_causal=self.is_causal,
            dropout=self.dropout,
            deterministic=self.deterministic,
            act_axes=self.act_axes,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
        )
        x, _ = stack_layers(
            TransformerBlock,
            block,
            x,
            mask,
            angles,
            depth=self.depth,
            scan_layers=self.scan_layers,
            remat=self.remat,
        )
        return x
