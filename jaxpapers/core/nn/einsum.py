"""An einsum projection whose kernel has its true shape and logical axis names (like Gemma's ``Einsum``).

``Einsum(shape=(D, N, H), names=(EMBED, HEADS, KV), equation="...d,dnh->...nh")`` is a q/k/v
projection for activations of any rank; ``"...nh,nhd->...d"`` the output projection. The kernel is
created at its full rank (not as ``nn.DenseGeneral``'s flattened 2-D kernel, whose reshape breaks
logical sharding constraints under an active mesh).

Default init: LeCun normal with fan-in = the product of the kernel axes contracted with the input
(letters of the kernel that are absent from the output) and fan-out = the kernel axes kept in the
output, so a ``(D, N, H)`` projection has fan-in D. The optional bias spans the kernel axes kept in
the output (they must be the output's trailing axes, in the same order) with their logical names.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core import axes

# The default ``act_axes`` of the sequence layers: [B, S, D].
SEQUENCE_ACT: tuple[str, ...] = (axes.BATCH, axes.LENGTH, axes.EMBED)

Initializer = Any  # jax.nn.initializers.Initializer: (key, shape, dtype) -> array


def parse_equation(equation: str) -> tuple[str, str, str]:
    """``"...d,dnh->...nh"`` → ("...d", "dnh", "...nh"); the kernel spec has no ellipsis."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    x_spec, comma, w_spec = lhs.partition(",")
    if not arrow or not comma or "," in w_spec or "." in w_spec or not w_spec.isalpha():
        raise ValueError(
            f"einsum equation {equation!r} must read '<input>,<kernel>-><output>' with a letters-only kernel spec"
        )
    return x_spec, w_spec, out


def kernel_axes(equation: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(contracted kernel axes, kernel axes kept in the output) of ``equation``, by position in the kernel."""
    x_spec, w_spec, out = parse_equation(equation)
    kept = tuple(i for i, c in enumerate(w_spec) if c in out)
    contracted = tuple(i for i, c in enumerate(w_spec) if c not in out and c in x_spec)
    return contracted, kept


class Einsum(nn.Module):
    """``y = einsum(equation, x, kernel) (+ bias)`` with a kernel of ``shape`` named ``names``.

    Params: ``kernel`` (and ``bias`` with ``use_bias``), both logically partitioned. ``x`` may have
    any rank the equation allows (use ``...`` for leading batch axes).
    """

    shape: tuple[int, ...]
    names: tuple[str | None, ...]
    equation: str
    use_bias: bool = False
    kernel_init: Initializer | None = None
    bias_init: Initializer = nn.initializers.zeros
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "..."]) -> Float[Array, "..."]:
        _, w_spec, out = parse_equation(self.equation)
        if not (len(w_spec) == len(self.shape) == len(self.names)):
            raise ValueError(
                f"Einsum kernel spec {w_spec!r} has {len(w_spec)} axes but shape={self.shape} and "
                f"names={self.names} have {len(self.shape)} and {len(self.names)}"
            )
        contracted, kept = kernel_axes(self.equation)
        init = self.kernel_init or nn.initializers.lecun_normal(in_axis=contracted, out_axis=kept)
        kernel = self.param("kernel", nn.with_logical_partitioning(init, self.names), self.shape, self.param_dtype)
        y = jnp.einsum(self.equation, x.astype(self.dtype), jnp.asarray(kernel, self.dtype))
        if self.use_bias:
            kept_letters = "".join(w_spec[i] for i in kept)
            if not out.endswith(kept_letters):
                raise ValueError(
                    f"Einsum bias needs the kernel's output axes {kept_letters!r} to end the output {out!r}"
                )
            bias = self.param(
                "bias",
                nn.with_logical_partitioning(self.bias_init, tuple(self.names[i] for i in kept)),
                tuple(self.shape[i] for i in kept),
                self.param_dtype,
            )
            y = y + jnp.asarray(bias, self.dtype)
        return y


def constrain(x: jax.Array, names: tuple[str | None, ...]) -> jax.Array:
    """``nn.with_logical_constraint`` that first checks the rank (a wrong rank is a silent no-op otherwise)."""
    if x.ndim != len(names):
        raise ValueError(f"activation of shape {tuple(x.shape)} cannot take the {len(names)} logical axes {names}")
    return nn.with_logical_constraint(x, names)
