"""Feed-forward block: Einsum(EMBED→MLP), activation, Einsum(MLP→EMBED), for activations of any rank.

Letters: D model width, F mlp width; ``...`` the leading axes named by ``act_axes[:-1]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core import axes
from jaxpapers.core.nn.einsum import SEQUENCE_ACT, Einsum, Initializer, constrain


class MlpBlock(nn.Module):
    """``wi: D→F → act → dropout → wo: F→(out_dim or D)`` with logical axis names.

    ``act_axes`` names the input's axes (the last one is the feature axis, EMBED): the hidden
    activation is constrained to ``(*act_axes[:-1], MLP)`` and the output to ``act_axes``, so
    [B, S, D] (the default) and e.g. FuxViT's [B, T, P, D] (BATCH, FRAMES, LENGTH, EMBED) both work.
    """

    mlp_dim: int
    out_dim: int | None = None
    act: Callable[[jax.Array], jax.Array] = nn.gelu
    dropout: float = 0.0
    act_axes: tuple[str, ...] = SEQUENCE_ACT
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "*batch D"], *, deterministic: bool = True) -> Float[Array, "*batch E"]:
        lead = self.act_axes[:-1]
        d, out = x.shape[-1], self.out_dim or x.shape[-1]
        init = nn.initializers.xavier_uniform()
        kw = dict(kernel_init=init, use_bias=True, dtype=self.dtype, param_dtype=self.param_dtype)
        x = constrain(x, self.act_axes)
        h = Einsum((d, self.mlp_dim), (axes.EMBED, axes.MLP), "...d,df->...f", **kw, name="wi")(x)
        h = constrain(self.act(h), (*lead, axes.MLP))
        h = nn.Dropout(self.dropout)(h, deterministic=deterministic)
        y = Einsum((self.mlp_dim, out), (axes.MLP, axes.EMBED), "...f,fd->...d", **kw, name="wo")(h)
        return constrain(y, self.act_axes)


class SwiGLU(nn.Module):
    """``down(silu(gate(x)) ⊙ up(x))`` (Shazeer 2020, "GLU Variants Improve Transformer", eq. 6; Llama's MLP).

    Params ``gate`` and ``up`` [EMBED, MLP], ``down`` [MLP, EMBED], no biases; ``act_axes`` as in :class:`MlpBlock`.
    ``down_init`` replaces the ``down`` initializer (zeros: the block outputs 0 at initialisation).
    """

    mlp_dim: int
    down_init: Initializer | None = None
    act_axes: tuple[str, ...] = SEQUENCE_ACT
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "*batch D"]) -> Float[Array, "*batch D"]:
        lead, d = self.act_axes[:-1], x.shape[-1]
        kw = dict(kernel_init=nn.initializers.xavier_uniform(), dtype=self.dtype, param_dtype=self.param_dtype)
        x = constrain(x, self.act_axes)

        def proj(name: str) -> jax.Array:
            h = Einsum((d, self.mlp_dim), (axes.EMBED, axes.MLP), "...d,df->...f", **kw, name=name)(x)
            return constrain(h, (*lead, axes.MLP))

        h = nn.silu(proj("gate")) * proj("up")
        down_kw = kw if self.down_init is None else {**kw, "kernel_init": self.down_init}
        y = Einsum((self.mlp_dim, d), (axes.MLP, axes.EMBED), "...f,fd->...d", **down_kw, name="down")(h)
        return constrain(y, self.act_axes)
