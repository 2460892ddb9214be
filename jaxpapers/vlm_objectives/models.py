"""Linen towers and the objective models that train them (spec "What to build: models.py").

``ObjectiveModel(objective=...)`` holds the towers one objective needs and returns, from a batch of
pairs, exactly what that objective's loss (:mod:`losses`) consumes:

=========== ======================================= ==========================================
objective   modules                                  outputs
=========== ======================================= ==========================================
clip        img, txt towers                           zx, zy
siglip      img, txt towers, log_t, b (learned)       zx, zy, t, b
jepa_x2y    img (context), predictor, txt (target)   zx, zy, pred = P(zx), target = zy
jepa_y2x    txt (context), predictor, img (target)   zx, zy, pred = P(zy), target = zx
gen_x2y     img encoder, decoder to d_y              zx, recon (of y)
gen_y2x     txt encoder, decoder to d_x              zy, recon (of x)
=========== ======================================= ==========================================

Letters: B batch, D image features, E text features, K embedding dim, H hidden width, O decoder output.
"""

from __future__ import annotations

import math
from typing import Any

import flax.linen as nn
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core import axes
from jaxpapers.vlm_objectives import config as config_lib
from jaxpapers.vlm_objectives.config import ModelConfig

ACTIVATIONS = {"leaky_relu": nn.leaky_relu, "gelu": nn.gelu, "relu": nn.relu, "tanh": nn.tanh}
assert tuple(ACTIVATIONS) == config_lib.ACTIVATIONS  # the names ModelConfig validates against


def _dense(
    features: int,
    names: tuple[str | None, str | None],
    *,
    use_bias: bool,
    dtype,
    param_dtype,
    name: str,
    init_std: float = 0.0,
):
    base = nn.initializers.normal(init_std) if init_std > 0 else nn.initializers.lecun_normal()
    init = nn.with_logical_partitioning(base, names)
    bias_init = nn.with_logical_partitioning(nn.initializers.zeros, (names[1],))
    return nn.Dense(
        features,
        use_bias=use_bias,
        kernel_init=init,
        bias_init=bias_init,
        dtype=dtype,
        param_dtype=param_dtype,
        name=name,
    )


class LinearTower(nn.Module):
    """``z = W x`` without bias (the features are centered; the theory's linear encoder).

    ``init_std > 0`` draws W from N(0, init_std^2), else LeCun normal.
    """

    k: int
    init_std: float = 0.0
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[ArrayLike, "B D"]) -> Float[Array, "B K"]:
        kw = dict(use_bias=False, dtype=self.dtype, param_dtype=self.param_dtype, init_std=self.init_std)
        return _dense(self.k, (axes.EMBED, None), name="proj", **kw)(x)


class MLPTower(nn.Module):
    """Two-layer tower ``z = W2 act(W1 x + b1) + b2``."""

    k: int
    hidden: int = 64
    act: str = "leaky_relu"
    init_std: float = 0.0
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[ArrayLike, "B D"]) -> Float[Array, "B K"]:
        kw = dict(use_bias=True, dtype=self.dtype, param_dtype=self.param_dtype, init_std=self.init_std)
        h = _dense(self.hidden, (axes.EMBED, axes.MLP), name="hidden", **kw)(x)
        h = nn.with_logical_constraint(ACTIVATIONS[self.act](h), (axes.BATCH, axes.MLP))
        return _dense(self.k, (axes.MLP, None), name="proj", **kw)(h)


class Predictor(nn.Module):
    """JEPA predictor ``P z`` (k×k, linear: the closed form's predictor)."""

    k: int
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, z: Float[Array, "B K"]) -> Float[Array, "B K"]:
        return _dense(self.k, (None, None), use_bias=False, dtype=self.dtype, param_dtype=self.param_dtype, name="P")(z)


class Decoder(nn.Module):
    """Generation decoder ``D z`` to the target modality (``d_out`` features or vocabulary logits)."""

    d_out: int
    use_bias: bool = False
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, z: Float[Array, "B K"]) -> Float[Array, "B O"]:
        return _dense(
            self.d_out,
            (None, axes.EMBED),
            use_bias=self.use_bias,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            name="D",
        )(z)


class ObjectiveModel(nn.Module):
    """The towers (and predictor, decoder, SigLIP scale/bias) of one objective; see the module table."""

    config: ModelConfig
    param_dtype: Any = jnp.float32

    def _tower(self, name: str) -> nn.Module:
        c = self.config
        dtype = jnp.dtype(c.dtype)
        if c.tower == "linear":
            return LinearTower(c.k, c.init_std, dtype=dtype, param_dtype=self.param_dtype, name=name)
        return MLPTower(c.k, c.hidden, c.act, c.init_std, dtype=dtype, param_dtype=self.param_dtype, name=name)

    def setup(self):
        c = self.config
        obj = c.objective
        dtype = jnp.dtype(c.dtype)
        if obj in ("clip", "siglip") or obj.startswith("jepa"):
            self.img = self._tower("img")
            self.txt = self._tower("txt")
        if obj == "siglip":
            self.log_t = self.param("log_t", nn.initializers.constant(math.log(c.init_t)), (), self.param_dtype)
            self.b = self.param("b", nn.initializers.constant(c.init_b), (), self.param_dtype)
        if obj.startswith("jepa"):
            self.predictor = Predictor(c.k, dtype=dtype, param_dtype=self.param_dtype)
        if obj == "gen_x2y":
            self.img = self._tower("img")
            self.decoder = Decoder(c.decoder_out or c.d_y, dtype=dtype, param_dtype=self.param_dtype)
        if obj == "gen_y2x":
            self.txt = self._tower("txt")
            self.decoder = Decoder(c.decoder_out or c.d_x, dtype=dtype, param_dtype=self.param_dtype)

    def encode_image(self, x: Float[ArrayLike, "B D"]) -> Float[Array, "B K"]:
        return self.img(x)

    def encode_text(self, y: Float[ArrayLike, "B E"]) -> Float[Array, "B K"]:
        return self.txt(y)

    def predict(self, z: Float[Array, "B K"]) -> Float[Array, "B K"]:
        """The JEPA predictor applied to a context embedding."""
        return self.predictor(z)

    def __call__(self, x: Float[ArrayLike, "B D"], y: Float[ArrayLike, "B E"]) -> dict[str, Array]:
        obj = self.config.objective
        if obj == "gen_x2y":
            zx = self.img(x)
            return {"zx": zx, "recon": self.decoder(zx)}
        if obj == "gen_y2x":
            zy = self.txt(y)
            return {"zy": zy, "recon": self.decoder(zy)}
        zx, zy = self.img(x), self.txt(y)
        out = {"zx": zx, "zy": zy}
        if obj == "siglip":
            out.update(t=jnp.exp(self.log_t), b=self.b)
        if obj == "jepa_x2y":
            out.update(pred=self.predictor(zx), target=zy)
        if obj == "jepa_y2x":
            out.update(pred=self.predictor(zy), target=zx)
        return out
