"""The velocity fields: a width-m two-layer ReLU net with NTK scaling and fixed ±1 heads (Du et al. 2019 style).

z = s·(x, t, 1) ∈ R^{d+2} (s = 1 for the d = 2 claims; s = 1/√(d+2) for images, spec Pitfall), and

    v_W(x, t) = m^{−1/2} Σ_{r=1}^m a_r ReLU(w_r · z),   w_r ~ N(0, I),  a_r ∈ {±1}^d fixed.

Each output coordinate is a task sharing W. The functional form (:func:`velocity`, :func:`init_params`) is what
the GD and sampling code use; :class:`TwoLayerReLU` is the same net as a Linen module (``a`` in the
non-trainable ``"heads"`` collection). A **masked max-width** net carries ``m_max`` neurons and a 0/1 mask: neuron
r counts iff r < m, and the scaling uses the true m, so one compiled program covers a grid of widths.
"""

from __future__ import annotations

import dataclasses
import math

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_choice, check_range


def features(x: Float[ArrayLike, "n d"], t, scale: float = 1.0) -> Float[Array, "n d+2"]:
    """z = scale·(x, t, 1): the bias coordinate keeps λ₀ > 0, t lets the field depend on time (spec Pitfalls)."""
    x = jnp.asarray(x)
    t = jnp.broadcast_to(jnp.asarray(t, x.dtype).reshape(-1) if jnp.ndim(t) else jnp.asarray(t, x.dtype), x.shape[:1])
    return scale * jnp.concatenate([x, t[:, None], jnp.ones_like(t)[:, None]], axis=-1)


def init_params(key: jax.Array, m: int, d: int, *, w_scale: float = 1.0) -> dict[str, Array]:
    """``{"W": [m, d+2] ~ N(0, w_scale² I), "a": [m, d] uniform ±1}`` (split of ``key``: W, then a)."""
    check_range("m", m, 1)
    check_range("d", d, 1)
    kw, ka = jax.random.split(key)
    dtype = jnp.result_type(float)
    w = w_scale * jax.random.normal(kw, (m, d + 2), dtype)
    a = jnp.where(jax.random.bernoulli(ka, 0.5, (m, d)), 1.0, -1.0).astype(dtype)
    return {"W": w, "a": a}


def neuron_mask(m_max: int, m) -> Array:
    """1{r < m} for r < m_max (``m`` may be traced)."""
    return (jnp.arange(m_max) < m).astype(jnp.result_type(float))


def velocity_z(
    w: Float[Array, "m p"], a: Float[Array, "m d"], z: Float[Array, "n p"], width=None, mask=None
) -> Float[Array, "n d"]:
    """m^{−1/2} ReLU(z Wᵀ) (a ⊙ mask) for features ``z``; ``width`` (default m) is the m of the scaling."""
    m = w.shape[0] if width is None else width
    heads = a if mask is None else a * mask[:, None]
    return jax.nn.relu(z @ w.T) @ heads / jnp.sqrt(jnp.asarray(m, z.dtype))


def velocity(
    params: dict, x: Float[ArrayLike, "n d"], t, *, z_scale: float = 1.0, width=None, mask=None
) -> Float[Array, "n d"]:
    """v_W(x, t) for ``params = {"W", "a"}`` (masked max-width net with ``width``/``mask``)."""
    return velocity_z(params["W"], params["a"], features(x, t, z_scale), width, mask)


def jacobian_x(
    params: dict, x: Float[ArrayLike, "n d"], t, *, z_scale: float = 1.0, width=None, mask=None
) -> Float[Array, "n d d"]:
    """Closed-form ∂_x v_W(x,t) = s·m^{−1/2} Σ_r a_r 1{w_r·z > 0} w_r[:d]ᵀ, one einsum (spec "Sampling and W2")."""
    x = jnp.asarray(x)
    w, a = params["W"], params["a"]
    m = w.shape[0] if width is None else width
    heads = a if mask is None else a * mask[:, None]
    act = (features(x, t, z_scale) @ w.T > 0).astype(x.dtype)
    d = x.shape[1]
    return z_scale * jnp.einsum("nr,rj,rk->njk", act, heads, w[:, :d]) / jnp.sqrt(jnp.asarray(m, x.dtype))


class TwoLayerReLU(nn.Module):
    """Linen form of :func:`velocity`: ``kernel [m, d+2]`` trainable, heads ``a [m, d_out]`` in collection
    ``"heads"`` (trainable only with ``train_second_layer``, then under ``params``).

    ``__call__(x, t)`` returns ``[n, d_out]``; ``ntk_scaling=False`` drops the m^{−1/2} factor (a variant the
    spec warns breaks the m-trends).
    """

    m: int
    d_out: int
    ntk_scaling: bool = True
    train_second_layer: bool = False
    z_scale: float = 1.0

    @nn.compact
    def __call__(self, x: Float[Array, "n d"], t) -> Float[Array, "n d_out"]:
        z = features(x, t, self.z_scale)
        w = self.param("kernel", nn.initializers.normal(1.0), (self.m, z.shape[-1]))

        def signs(key):
            return jnp.where(jax.random.bernoulli(key, 0.5, (self.m, self.d_out)), 1.0, -1.0)

        if self.train_second_layer:
            a = self.param("heads", signs)
        else:
            a = self.variable("heads", "a", lambda: signs(self.make_rng("params"))).value
        out = jax.nn.relu(z @ w.T) @ a.astype(z.dtype)
        return out / math.sqrt(self.m) if self.ntk_scaling else out


class MLPVelocity(nn.Module):
    """A deeper baseline field for images: MLP on (x, t) with ``depth`` hidden ReLU layers of ``width``."""

    width: int = 256
    depth: int = 2
    d_out: int = 2

    @nn.compact
    def __call__(self, x: Float[Array, "n d"], t) -> Float[Array, "n d_out"]:
        h = features(x, t)
        for i in range(self.depth):
            h = jax.nn.relu(nn.Dense(self.width, name=f"layers_{i}")(h))
        return nn.Dense(self.d_out, name="out")(h)


FIELD_KINDS = ("two_layer", "mlp")


@dataclasses.dataclass(frozen=True)
class ImageField:
    """A velocity field on flattened images as a pair of pure functions, hashable (a static ``jit`` argument).

    ``"two_layer"``: the paper's net of width ``width`` (:func:`init_params`, :func:`velocity_z` on
    z = ``z_scale``·(x, t, 1); the ±1 heads held fixed by ``stop_gradient``, so Adam leaves them unchanged).
    ``"mlp"``: :class:`MLPVelocity` with ``depth`` hidden ReLU layers of ``width`` (Flax's default LeCun-normal
    init, unscaled z), the deeper baseline for images (spec "What to build"), outside the paper's analysis.
    """

    kind: str
    width: int
    depth: int = 1
    z_scale: float = 1.0

    def __post_init__(self):
        check_choice("field.kind", self.kind, FIELD_KINDS)
        check_range("field.width", self.width, 1)
        check_range("field.depth", self.depth, 1)

    def init(self, key: jax.Array, d: int):
        """Initial parameters for images of ``d`` pixels."""
        if self.kind == "two_layer":
            return init_params(key, self.width, d)
        dtype = jnp.result_type(float)
        net = MLPVelocity(width=self.width, depth=self.depth, d_out=d)
        return net.init(key, jnp.zeros((1, d), dtype), jnp.zeros((1,), dtype))["params"]

    def __call__(self, params, x: Float[Array, "n d"], t) -> Float[Array, "n d"]:
        """v(x, t) for images ``x`` and times ``t`` (scalar or [n])."""
        if self.kind == "two_layer":
            return velocity_z(params["W"], jax.lax.stop_gradient(params["a"]), features(x, t, self.z_scale))
        net = MLPVelocity(width=self.width, depth=self.depth, d_out=x.shape[-1])
        return net.apply({"params": params}, x, t)
