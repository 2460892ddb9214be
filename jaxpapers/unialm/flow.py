"""The paper-faithful flow decoder (spec §1 "Decoder" and §2 recon step 6, ``decoder="flow"``).

"A DiT with adaLN timestep conditioning predicts the rectified-flow velocity ``u = x1 − (1−σ_min)·z`` on
``y_t = (1−(1−σ_min)·t)·z + t·x1`` … Inference uses Euler steps and CFG with a learned null condition"
(paper scale: 32 layers, width 1536, 24 heads, adaLN-single, σ_min = 1e-4, 10–20 Euler steps, CFG 1.5).

* :func:`flow_path`: the interpolant ``y_t`` and the target velocity ``u`` (spec §2 step 6).
* :class:`FlowDiT`: ``v_θ(y_t, t, c)`` over frames ``[B, T, F]``; the timestep enters through adaLN-single
  (one shared ``Dense(6D)`` of the timestep embedding plus a learned per-block table, PixArt-α), the
  frame-aligned condition ``c [B, T, C]`` is added to the input projection, and rows with ``drop`` use a
  learned null condition instead (what classifier-free guidance contrasts with). Gates start at zero, so an
  initial block is the identity.
* :func:`flow_matching_loss`: ``mean (v_θ(y_t, t, c) − u)²`` with ``t ~ U[0, 1)``, ``z ~ N(0, I)`` and the
  condition dropped for a fraction ``cond_drop`` of rows (training the null condition).
* :func:`euler_sample`: ``y ← y + v(y, t)/S`` for ``t = 0, 1/S, …``; :func:`cfg_velocity` gives
  ``v_u + s·(v_c − v_u)`` (``s = 1`` is the conditional velocity exactly).

Letters: B batch, T frames, F target features (e.g. log-mel bins or an AE latent), C condition width,
D model width, S Euler steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float

from jaxpapers.core.checks import check_range
from jaxpapers.unialm.layers import rope

SIGMA_MIN = 1e-4


def flow_path(
    z: Float[Array, "*b t f"], x1: Float[Array, "*b t f"], t: Float[Array, "*b"], sigma_min: float = SIGMA_MIN
) -> tuple[Float[Array, "*b t f"], Float[Array, "*b t f"]]:
    """``(y_t, u)``: ``y_t = (1 − (1−σ_min)t)·z + t·x1`` and ``u = dy_t/dt = x1 − (1−σ_min)·z`` (spec §2 step 6)."""
    tt = t[..., None, None]
    return (1 - (1 - sigma_min) * tt) * z + tt * x1, x1 - (1 - sigma_min) * z


def timestep_embedding(t: Float[Array, " b"], dim: int, max_period: float = 10_000.0) -> Float[Array, "b d"]:
    """Sinusoidal embedding of ``t ∈ [0, 1]`` (scaled by 1000 as in DiT): ``[cos(1000·t·f_i), sin(1000·t·f_i)]``."""
    half = dim // 2
    freqs = np.exp(-np.log(max_period) * np.arange(half) / half)
    ang = 1000.0 * t[:, None].astype(jnp.float32) * freqs[None, :]
    return jnp.concatenate([jnp.cos(ang), jnp.sin(ang)], axis=-1)


class DiTBlock(nn.Module):
    """Pre-LN (no affine) attention + MLP block, modulated by ``mod [B, 6, D]`` = (shift, scale, gate) × 2."""

    dim: int
    heads: int = 4

    @nn.compact
    def __call__(self, x: Float[Array, "b t d"], mod: Float[Array, "b 6 d"]) -> Float[Array, "b t d"]:
        b, t, d = x.shape
        e = d // self.heads
        table = self.param("mod_table", nn.initializers.zeros, (6, d))  # adaLN-single's per-block part
        sh1, sc1, g1, sh2, sc2, g2 = jnp.split(mod + table, 6, axis=1)  # each [B, 1, D]
        h = nn.LayerNorm(use_bias=False, use_scale=False, name="ln_attn")(x) * (1 + sc1) + sh1
        qkv = nn.DenseGeneral((3, self.heads, e), name="qkv")(h)
        q, k, v = rope(qkv[:, :, 0], jnp.arange(t)), rope(qkv[:, :, 1], jnp.arange(t)), qkv[:, :, 2]
        att = jax.nn.softmax(jnp.einsum("bthe,bshe->bhts", q, k) / np.sqrt(e), axis=-1)
        o = nn.DenseGeneral(d, axis=(-2, -1), name="out")(jnp.einsum("bhts,bshe->bthe", att, v))
        x = x + jnp.tanh(g1) * o
        h = nn.LayerNorm(use_bias=False, use_scale=False, name="ln_mlp")(x) * (1 + sc2) + sh2
        h = nn.Dense(d, name="mlp_down")(nn.gelu(nn.Dense(4 * d, name="mlp_up")(h)))
        return x + jnp.tanh(g2) * h


class FlowDiT(nn.Module):
    """``v_θ(y_t, t, c)``: the rectified-flow velocity over frames (spec §2 step 6). Output ``[B, T, F]``."""

    features: int
    dim: int = 64
    blocks: int = 2
    heads: int = 4

    @nn.compact
    def __call__(
        self,
        y: Float[Array, "b t f"],
        t: Float[Array, " b"],
        cond: Float[Array, "b t c"],
        drop: Bool[Array, " b"],
    ) -> Float[Array, "b t f"]:
        d = self.dim
        null = self.param("null_cond", nn.initializers.normal(0.02), (cond.shape[-1],))
        cond = jnp.where(drop[:, None, None], jnp.broadcast_to(null, cond.shape), cond)
        h = nn.Dense(d, name="in_proj")(y) + nn.Dense(d, name="cond_proj")(cond)
        temb = nn.Dense(d, name="t_mlp_2")(nn.silu(nn.Dense(d, name="t_mlp_1")(timestep_embedding(t, d))))
        # adaLN-single: one shared projection of the timestep; gates zero-initialised (blocks start as identity)
        mod = nn.Dense(6 * d, name="t_mod", kernel_init=nn.initializers.zeros)(nn.silu(temb)).reshape(-1, 6, d)
        for i in range(self.blocks):
            h = DiTBlock(d, self.heads, name=f"block_{i}")(h, mod)
        h = nn.LayerNorm(use_bias=False, use_scale=False, name="out_norm")(h)
        return nn.Dense(self.features, name="out_proj", kernel_init=nn.initializers.zeros)(h)


Velocity = Callable[[Float[Array, "b t f"], Float[Array, " b"]], Float[Array, "b t f"]]


def flow_matching_loss(
    velocity: Callable[..., Float[Array, "b t f"]],
    x1: Float[Array, "b t f"],
    cond: Any,
    key: jax.Array,
    *,
    sigma_min: float = SIGMA_MIN,
    cond_drop: float = 0.1,
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """``mean (v(y_t, t, c, drop) − u)²`` with ``t ~ U[0,1)``, ``z ~ N(0, I)``, ``drop ~ Bernoulli(cond_drop)``
    per row (spec §2 step 6). ``velocity(y, t, cond, drop)`` is e.g. ``partial(FlowDiT.apply, variables)``."""
    check_range("cond_drop", cond_drop, 0.0, 1.0)
    kz, kt, kd = jax.random.split(key, 3)
    b = x1.shape[0]
    z = jax.random.normal(kz, x1.shape, x1.dtype)
    t = jax.random.uniform(kt, (b,))
    drop = jax.random.uniform(kd, (b,)) < cond_drop
    y, u = flow_path(z, x1, t, sigma_min)
    err = (velocity(y, t, cond, drop) - u) ** 2
    return jnp.mean(err), {"flow_mse": jnp.mean(err), "flow_t": jnp.mean(t)}


def cfg_velocity(velocity: Callable[..., jax.Array], cond: Any, scale: float) -> Velocity:
    """``v(y, t) = v_u + s·(v_c − v_u)`` with the learned null condition as ``v_u``; ``s = 1``: ``v_c`` exactly."""

    def v(y, t):
        b = y.shape[0]
        v_c = velocity(y, t, cond, jnp.zeros((b,), bool))
        if scale == 1.0:
            return v_c
        v_u = velocity(y, t, cond, jnp.ones((b,), bool))
        return v_u + scale * (v_c - v_u)

    return v


def euler_sample(velocity: Velocity, z: Float[Array, "b t f"], steps: int) -> Float[Array, "b t f"]:
    """Integrates ``dy/dt = v(y, t)`` from ``y_0 = z`` at ``t = 0`` to ``t = 1`` with ``steps`` Euler steps."""
    check_range("steps", steps, 1)
    dt = 1.0 / steps

    def body(i, y):
        t = jnp.full((y.shape[0],), i * dt, jnp.float32)
        return y + dt * velocity(y, t)

    return jax.lax.fori_loop(0, steps, body, z)
