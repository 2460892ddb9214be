"""COMONet building blocks (Flax Linen): exponentiated weights and shape-preserving activations.

Letters: B batch, I input features of a layer, O output units.

* ``PosDense``: ``y = x exp(min(Ŵ, clamp))`` — non-negative weights by reparameterisation (SMNN's
  exponentiated unit, the abstract's "exponentiated weights"). The clamp keeps ``exp`` finite;
  ``exp(·) > 0`` whatever Ŵ is, so the guarantee does not depend on the clamp or on training.
* ``MonoUnit``: PosDense + σ_M (the monotone stream's exponentiated unit).
* ``ConfluenceUnit``: normal Dense + σ_M on free-stream features only (SMNN's confluence unit).
* ``ConvexLayer`` / ``ConcaveLayer``: one hidden layer of the convex (ICNN-like) or concave stream:
  ``σ±(h W⁺ + x_lin A + x_pos W⁺ + m W⁺ + c W⁺ + b)`` (spec "Layer equations", items 4-5).

Activations: σ_M(z) = (1-ε)·clip(z, 0, 1) + ε·z (strictly increasing, neither convex nor concave);
σ₊ = softplus_β or ReLU (convex nondecreasing); σ₋(z) = -σ₊(-z) (concave nondecreasing).
"""

from __future__ import annotations

import math
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax.linen.dtypes import promote_dtype
from jaxtyping import Array, Float

from jaxpapers.comonet.config import ACTS
from jaxpapers.core.checks import check_choice

EXP_CLAMP = 8.0
SIGMA_M_EPS = 0.01

Dtype = Any


# --------------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------------


def sigma_m(z: Array, eps: float = SIGMA_M_EPS) -> Array:
    """SMNN's clipped-leaky activation (1-ε)·clip(z, 0, 1) + ε·z: slope ≥ ε > 0 everywhere."""
    return (1.0 - eps) * jnp.clip(z, 0.0, 1.0) + eps * z


def convex_act(z: Array, act: str = "softplus", beta: float = 1.0) -> Array:
    """σ₊: convex and nondecreasing; softplus_β(z) = log(1 + e^{βz})/β, or ReLU."""
    if act == "softplus":
        return jax.nn.softplus(beta * z) / beta
    if act == "relu":
        return jax.nn.relu(z)
    check_choice("act", act, ACTS)
    raise AssertionError  # unreachable


def concave_act(z: Array, act: str = "softplus", beta: float = 1.0) -> Array:
    """σ₋(z) = -σ₊(-z): concave and nondecreasing (the mirror image of σ₊)."""
    return -convex_act(-z, act, beta)


# --------------------------------------------------------------------------------------------------
# Initialisers (spec "Initialisation and training"; our choice where SMNN does not fix them)
# --------------------------------------------------------------------------------------------------


def mono_raw_init(key: jax.Array, shape: tuple[int, ...], dtype: Dtype = jnp.float32) -> Array:
    """Monotone-stream raw weights Ŵ ~ U(-20, 2) (SMNN's public code)."""
    return jax.random.uniform(key, shape, dtype, minval=-20.0, maxval=2.0)


def curvature_raw_init(key: jax.Array, shape: tuple[int, ...], dtype: Dtype = jnp.float32) -> Array:
    """Convex/concave raw weights Ŵ ~ N(-log(fan_in) - 0.125, 0.5²), so E[exp(Ŵ)] = 1/fan_in."""
    fan_in = max(int(shape[0]), 1)
    return -math.log(fan_in) - 0.125 + 0.5 * jax.random.normal(key, shape, dtype)


mono_bias_init = nn.initializers.truncated_normal(stddev=0.5)
normal_kernel_init = nn.initializers.xavier_uniform()


# --------------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------------


class PosDense(nn.Module):
    """``y = x · exp(min(Ŵ, clamp)) (+ b)``: a dense layer whose effective weights are positive.

    ``positive=False`` replaces ``exp`` by the identity (the certifier's negative control only).
    """

    features: int
    use_bias: bool = False
    raw_init: Any = curvature_raw_init
    bias_init: Any = nn.initializers.zeros_init()
    clamp: float = EXP_CLAMP
    positive: bool = True
    dtype: Dtype | None = None
    param_dtype: Dtype = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B I"]) -> Float[Array, "B O"]:
        raw = self.param("raw_kernel", self.raw_init, (x.shape[-1], self.features), self.param_dtype)
        weight = jnp.exp(jnp.minimum(raw, self.clamp)) if self.positive else raw
        x, weight = promote_dtype(x, weight, dtype=self.dtype)
        y = jnp.einsum("bi,io->bo", x, weight)
        if self.use_bias:
            bias = self.param("bias", self.bias_init, (self.features,), self.param_dtype)
            y = y + promote_dtype(bias, dtype=y.dtype)[0]
        return y


class MonoUnit(nn.Module):
    """SMNN exponentiated unit: ``σ_M(x exp(Ŵ) + b)`` — nondecreasing in every input."""

    features: int
    dtype: Dtype | None = None
    param_dtype: Dtype = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B I"]) -> Float[Array, "B O"]:
        z = PosDense(
            self.features,
            use_bias=True,
            raw_init=mono_raw_init,
            bias_init=mono_bias_init,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="dense",
        )(x)
        return sigma_m(z)


class ConfluenceUnit(nn.Module):
    """SMNN confluence unit: ``σ_M(r W + b)`` with normal weights, fed by free-stream features only."""

    features: int
    dtype: Dtype | None = None
    param_dtype: Dtype = jnp.float32

    @nn.compact
    def __call__(self, r: Float[Array, "B I"]) -> Float[Array, "B O"]:
        z = nn.Dense(
            self.features,
            kernel_init=normal_kernel_init,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="dense",
        )(r)
        return sigma_m(z)


class _CurvatureLayer(nn.Module):
    """``σ(h W⁺ + x_lin A + x_pos W⁺ + m W⁺ + c W⁺ + b)``; absent (None or zero-width) inputs add nothing.

    ``x_lin`` enters through normal weights (affine in it: keeps convexity, allows any slope);
    everything else through exponentiated weights (keeps monotonicity and curvature).
    """

    features: int
    act: str = "softplus"
    beta: float = 1.0
    positive: bool = True  # False: identity in place of exp (negative control of the certifier)
    dtype: Dtype | None = None
    param_dtype: Dtype = jnp.float32

    def activation(self, z: Array) -> Array:  # pragma: no cover - overridden
        raise NotImplementedError

    @nn.compact
    def __call__(
        self,
        h: Float[Array, "B H"] | None = None,
        x_lin: Float[Array, "B I"] | None = None,
        x_pos: Float[Array, "B J"] | None = None,
        m: Float[Array, "B K"] | None = None,
        c: Float[Array, "B L"] | None = None,
    ) -> Float[Array, "B O"]:
        pos = dict(dtype=self.dtype, param_dtype=self.param_dtype, positive=self.positive)
        z = None
        for name, value in (("hidden", h), ("x_pos", x_pos), ("mono", m), ("conf", c)):
            if _present(value):
                term = PosDense(self.features, name=name, **pos)(value)
                z = term if z is None else z + term
        if _present(x_lin):
            term = nn.Dense(
                self.features,
                use_bias=False,
                kernel_init=normal_kernel_init,
                dtype=self.dtype,
                param_dtype=self.param_dtype,
                name="x_lin",
            )(x_lin)
            z = term if z is None else z + term
        if z is None:
            raise ValueError(f"{type(self).__name__} {self.name!r} received no inputs")
        bias = self.param("bias", nn.initializers.zeros_init(), (self.features,), self.param_dtype)
        z = z + promote_dtype(bias, dtype=z.dtype)[0]
        return self.activation(z)


class ConvexLayer(_CurvatureLayer):
    """One convex-stream layer: jointly convex in (x_lin, x_pos), nondecreasing in (h, x_pos, m, c)."""

    def activation(self, z: Array) -> Array:
        return convex_act(z, self.act, self.beta)


class ConcaveLayer(_CurvatureLayer):
    """One concave-stream layer: jointly concave in (x_lin, x_pos), nondecreasing in (h, x_pos, m, c)."""

    def activation(self, z: Array) -> Array:
        return concave_act(z, self.act, self.beta)


def _present(x: Array | None) -> bool:
    return x is not None and x.shape[-1] > 0
