"""Baselines: an unconstrained MLP, an independent SMNN, an exp-reparameterised ICNN and a penalty MLP.

Letters: B batch, D input variables, M monotone inputs, N free inputs, H hidden units, K outputs.

* ``MLP``: ReLU MLP (2 hidden layers of 64 by default, ≈ 4.9k parameters at d = 9).
* ``SMNN``: Scalable Monotonic Neural Network (Kim & Lee, ICLR 2024), written from its equations —
  exponentiated unit, ReLU unit, confluence unit, exp-weighted output — with its own parameter
  layout and no COMONet code, so that CO3 compares two implementations.
  ``smnn_params_from_comonet`` copies a {free, inc/dec} COMONet's parameters into it.
* ``ICNN``: input-convex network (Amos, Xu, Kolter 2017) with exp-reparameterised non-negative
  hidden weights: fully convex (FICNN) without free inputs, and with free inputs the additive-bias
  partially convex variant (PICNN) that COMONet's convex stream reduces to (our choice).
  ``icnn_params_from_comonet`` maps a {cvx, free} COMONet into it.
* ``PenaltyMLP``: an unconstrained MLP trained with the soft shape penalty of :func:`shape_penalty`
  ("penalty, no guarantee": it can look shape-consistent on data and violate elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen.dtypes import promote_dtype
from jaxtyping import Array, Float

from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.core.checks import check_range, check_shape
from jaxpapers.core.errors import ConfigError

_XAVIER = nn.initializers.xavier_uniform()


def _columns(x: Array, idx: list[int]) -> Array | None:
    # static column selection (slices, not a gather)
    if not idx:
        return None
    return jnp.concatenate([x[:, j : j + 1] for j in idx], axis=1)


class MLP(nn.Module):
    """Unconstrained ReLU MLP: ``x [B, D] -> y [B, K]``."""

    hidden: tuple[int, ...] = (64, 64)
    n_out: int = 1
    dtype: Any = None
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B D"]) -> Float[Array, "B K"]:
        if x.ndim != 2:
            raise ConfigError(f"x has shape {tuple(x.shape)}; expected (batch, features)")
        kw = dict(dtype=self.dtype, param_dtype=self.param_dtype, kernel_init=_XAVIER)
        for i, width in enumerate(self.hidden):
            x = nn.relu(nn.Dense(width, name=f"dense_{i}", **kw)(x))
        return nn.Dense(self.n_out, name="out", **kw)(x)


class PenaltyMLP(MLP):
    """An MLP trained with ``lam · shape_penalty`` on ``n_points`` fresh uniform points per step.

    The penalty (see :func:`shape_penalty`) is added by ``train.make_loss_fn``; the network itself
    is an ordinary MLP and carries no guarantee.
    """

    regimes: tuple[str, ...] = ()
    lam: float = 1.0
    h: float = 0.1
    n_points: int = 128
    box: tuple[float, float] = (-1.0, 1.0)

    def __post_init__(self):
        object.__setattr__(self, "regimes", parse_regimes(tuple(self.regimes)).regimes if self.regimes else ())
        check_range("lam", self.lam, 0.0)
        check_range("h", self.h, 0.0, lo_open=True)
        check_range("n_points", self.n_points, 1)
        if not self.box[0] < self.box[1]:
            raise ConfigError(f"box={tuple(self.box)!r} must be (low, high) with low < high")
        super().__post_init__()


def shape_penalty(
    f: Callable[[Array], Array], x: Float[Array, "B D"], regimes: GroupSpec | tuple[str, ...], h: float = 0.1
) -> Array:
    """Soft shape penalty on points ``x``: mean relu(-s_j ∂f/∂x_j) + mean relu(-c_j Δ²_h f / h²).

    ``f`` maps ``[B, D] -> [B]``. The first term averages over points and monotone variables, the
    second (second differences f(x+h e_j) + f(x-h e_j) - 2 f(x), in units of a second derivative)
    over points and curvature-constrained variables. Zero for a function that has every shape.
    """
    spec = regimes if isinstance(regimes, GroupSpec) else parse_regimes(regimes)
    check_shape("x", x.shape, (None, spec.num_features))
    mono = np.asarray(spec.mono_sign, np.float64)
    curv_idx = [j for j, c in enumerate(spec.curv_sign) if c]
    total = jnp.zeros((), x.dtype)
    if np.any(mono):
        grads = jax.grad(lambda z: jnp.sum(f(z)))(x)  # points are independent: row i is ∇f(x_i)
        viol = jax.nn.relu(-jnp.asarray(mono, x.dtype) * grads)  # 0 for unconstrained columns
        total = total + jnp.sum(viol) / (x.shape[0] * np.count_nonzero(mono))
    if curv_idx:
        basis = jnp.asarray(np.eye(spec.num_features)[curv_idx], x.dtype)  # [C, D]
        shifted = jnp.concatenate([x[:, None, :] + h * basis, x[:, None, :] - h * basis], axis=1)
        b, c = x.shape[0], len(curv_idx)
        values = f(shifted.reshape(b * 2 * c, -1)).reshape(b, 2, c)
        d2 = values[:, 0] + values[:, 1] - 2.0 * f(x)[:, None]
        signs = jnp.asarray([spec.curv_sign[j] for j in curv_idx], x.dtype)
        total = total + jnp.mean(jax.nn.relu(-signs * d2)) / h**2
    return total


# --------------------------------------------------------------------------------------------------
# SMNN, written independently from its equations
# --------------------------------------------------------------------------------------------------


def _smnn_act(z: Array, eps: float = 0.01) -> Array:
    # SMNN's clipped-leaky activation, written as ε·z + (1-ε)·min(max(z, 0), 1)
    return eps * z + (1.0 - eps) * jnp.minimum(jnp.maximum(z, 0.0), 1.0)


class SMNN(nn.Module):
    """Scalable Monotonic Neural Network: ``x [B, D] -> y [B, K]``, monotone in ``mono_features``.

    Per layer l: confluence ``q = act(u W_q + b_q)`` from the ReLU unit's previous state; exponentiated
    unit ``a = act(a e^{V_a} + q e^{V_q} + b_a)``; ReLU unit ``u = relu(u W_u + b_u)``. Output
    ``a e^{v} + u w + b``. Inputs listed in ``mono_features`` with sign -1 are negated first.
    Plain ``exp`` (no clamp): identical to COMONet wherever raw weights are ≤ 8.
    """

    mono_features: tuple[int, ...]
    mono_signs: tuple[int, ...] | None = None
    exp_units: int = 16
    relu_units: int = 16
    conf_units: int = 16
    depth: int = 2
    n_out: int = 1
    dtype: Any = None
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B D"]) -> Float[Array, "B K"]:
        d = x.shape[-1]
        mono = list(self.mono_features)
        free = [j for j in range(d) if j not in mono]
        signs = jnp.asarray(self.mono_signs or (1,) * len(mono), x.dtype)
        a = _columns(x, mono) * signs
        u = _columns(x, free)
        p = lambda name, shape, init: self.param(name, init, shape, self.param_dtype)
        uniform = lambda k, s, t: jax.random.uniform(k, s, t, -20.0, 2.0)
        tnorm = nn.initializers.truncated_normal(0.5)
        zeros = nn.initializers.zeros_init()
        for l in range(self.depth):
            pre = jnp.einsum(
                "bm,mh->bh", *promote_dtype(a, jnp.exp(p(f"V_a{l}", (a.shape[-1], self.exp_units), uniform)))
            )
            if u is not None:
                w_q, b_q = (
                    p(f"W_q{l}", (u.shape[-1], self.conf_units), _XAVIER),
                    p(f"b_q{l}", (self.conf_units,), zeros),
                )
                q = _smnn_act(jnp.einsum("bn,nq->bq", *promote_dtype(u, w_q)) + b_q)
                v_q = jnp.exp(p(f"V_q{l}", (self.conf_units, self.exp_units), uniform))
                pre = pre + jnp.einsum("bq,qh->bh", *promote_dtype(q, v_q))
                w_u, b_u = (
                    p(f"W_u{l}", (u.shape[-1], self.relu_units), _XAVIER),
                    p(f"b_u{l}", (self.relu_units,), zeros),
                )
                u_next = jax.nn.relu(jnp.einsum("bn,nh->bh", *promote_dtype(u, w_u)) + b_u)
            a = _smnn_act(pre + p(f"b_a{l}", (self.exp_units,), tnorm))
            if u is not None:
                u = u_next
        y = jnp.einsum("bh,hk->bk", *promote_dtype(a, jnp.exp(p("v_out", (self.exp_units, self.n_out), uniform))))
        if u is not None:
            y = y + jnp.einsum("bh,hk->bk", *promote_dtype(u, p("w_out", (u.shape[-1], self.n_out), _XAVIER)))
        return y + p("b_out", (self.n_out,), zeros)


def smnn_params_from_comonet(params: dict, regimes: GroupSpec | tuple[str, ...], depth: int) -> dict:
    """Copies a {free, inc/dec} COMONet's parameters into the :class:`SMNN` layout (CO3)."""
    spec = regimes if isinstance(regimes, GroupSpec) else parse_regimes(regimes)
    extra = set(spec.regimes) - {"free", "inc", "dec"}
    if extra:
        raise ConfigError(f"SMNN covers only free, inc and dec variables; regimes also hold {sorted(extra)}")
    out = {}
    has_free = bool(spec.group("U"))
    for l in range(depth):
        mono = params[f"mono_{l}"]["dense"]
        kernel = mono["raw_kernel"]
        n_prev = len(spec.group("M")) if l == 0 else kernel.shape[1]
        out[f"V_a{l}"] = kernel[:n_prev]
        out[f"b_a{l}"] = mono["bias"]
        if has_free:
            out[f"V_q{l}"] = kernel[n_prev:]
            conf = params[f"conf_mono_{l}"]["dense"]
            out[f"W_q{l}"], out[f"b_q{l}"] = conf["kernel"], conf["bias"]
            free = params[f"free_{l}"]
            out[f"W_u{l}"], out[f"b_u{l}"] = free["kernel"], free["bias"]
    out["v_out"] = params["out_mono"]["raw_kernel"]
    if has_free:
        out["w_out"] = params["out_free"]["kernel"]
    out["b_out"] = params["bias"]
    return out


# --------------------------------------------------------------------------------------------------
# ICNN with exp-reparameterised non-negative weights
# --------------------------------------------------------------------------------------------------


class ICNN(nn.Module):
    """Input-convex network, convex in ``convex_features`` (all other inputs are free).

    ``z_l = σ₊(z_{l-1} e^{W_z} + x_c A_l + s_l e^{W_s} + b_l)`` with the free-path signal
    ``s_l = σ_M(u_{l-1} W_s' + b_s')`` and ``u_l = relu(u_{l-1} W_u + b_u)``; output
    ``z_L e^{w} + x_c a + u_L w_u + b``. Without free inputs this is a FICNN.
    """

    convex_features: tuple[int, ...]
    hidden: int = 16
    side: int = 16
    depth: int = 2
    act: str = "softplus"
    n_out: int = 1
    dtype: Any = None
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B D"]) -> Float[Array, "B K"]:
        d = x.shape[-1]
        cvx = list(self.convex_features)
        free = [j for j in range(d) if j not in cvx]
        x_c = _columns(x, cvx)
        u = _columns(x, free)
        sigma = jax.nn.softplus if self.act == "softplus" else jax.nn.relu
        p = lambda name, shape, init: self.param(name, init, shape, self.param_dtype)

        def raw(k, s, t):
            return -jnp.log(s[0]) - 0.125 + 0.5 * jax.random.normal(k, s, t)

        zeros = nn.initializers.zeros_init()
        dot = lambda a, b: jnp.einsum("bi,ih->bh", *promote_dtype(a, b))
        z = None
        for l in range(self.depth):
            pre = dot(x_c, p(f"A{l}", (len(cvx), self.hidden), _XAVIER))
            if z is not None:
                pre = pre + dot(z, jnp.exp(p(f"Wz{l}", (self.hidden, self.hidden), raw)))
            if u is not None:
                s = _smnn_act(dot(u, p(f"Ws{l}", (u.shape[-1], self.side), _XAVIER)) + p(f"bs{l}", (self.side,), zeros))
                pre = pre + dot(s, jnp.exp(p(f"Wsz{l}", (self.side, self.hidden), raw)))
                u = jax.nn.relu(
                    dot(u, p(f"Wu{l}", (u.shape[-1], self.side), _XAVIER)) + p(f"bu{l}", (self.side,), zeros)
                )
            z = sigma(pre + p(f"b{l}", (self.hidden,), zeros))
        y = dot(z, jnp.exp(p("w_out", (self.hidden, self.n_out), raw))) + dot(
            x_c, p("a_out", (len(cvx), self.n_out), _XAVIER)
        )
        if u is not None:
            y = y + dot(u, p("wu_out", (u.shape[-1], self.n_out), _XAVIER))
        return y + p("b_out", (self.n_out,), zeros)


def icnn_params_from_comonet(params: dict, regimes: GroupSpec | tuple[str, ...], depth: int) -> dict:
    """Maps a {cvx, free} COMONet (free/confluence widths equal) into the :class:`ICNN` layout."""
    spec = regimes if isinstance(regimes, GroupSpec) else parse_regimes(regimes)
    extra = set(spec.regimes) - {"free", "cvx"}
    if extra:
        raise ConfigError(f"ICNN covers only cvx and free variables; regimes also hold {sorted(extra)}")
    out = {}
    has_free = bool(spec.group("U"))
    for l in range(depth):
        layer = params[f"convex_{l}"]
        out[f"A{l}"] = layer["x_lin"]["kernel"]
        out[f"b{l}"] = layer["bias"]
        if l > 0:
            out[f"Wz{l}"] = layer["hidden"]["raw_kernel"]
        if has_free:
            conf = params[f"conf_convex_{l}"]["dense"]
            out[f"Ws{l}"], out[f"bs{l}"] = conf["kernel"], conf["bias"]
            out[f"Wsz{l}"] = layer["conf"]["raw_kernel"]
            free = params[f"free_{l}"]
            out[f"Wu{l}"], out[f"bu{l}"] = free["kernel"], free["bias"]
    out["w_out"] = params["out_convex"]["raw_kernel"]
    out["a_out"] = params["skip_c"]["kernel"]
    if has_free:
        out["wu_out"] = params["out_free"]["kernel"]
    out["b_out"] = params["bias"]
    return out
