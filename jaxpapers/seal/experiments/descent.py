"""S1: the autonomous dynamics never increase E, for any parameters (spec "Energy-descent guarantee").

Random draws (c_k ~ N(0, 5²), random γ, a random ψ-MLP on the |R_k|² features, b ≠ 0) × random u₀ ~ N(0, 2²),
Euler in float64; E is evaluated from its formula (not from the hand-written FFT gradient). Also checks the
analytic dE/dt = −Σ g′(u)(∂E/∂r)² against a central finite difference along the flow and the hand-written
∂E/∂r against ``jax.grad`` of E, and probes larger dt for the first discrete-time increase.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.seal import figures
from jaxpapers.seal.config import LatticeConfig
from jaxpapers.seal.dynamics import rhs
from jaxpapers.seal.studies import model_of


@functools.partial(jax.jit, static_argnums=(0, 2, 3, 4))
def draw(model, key, num: int, psi_hidden: int, c_scale: float):
    """``num`` random parameter sets, stacked (vmapped ``init_params``)."""
    return jax.vmap(lambda k: model.init_params(k, c_scale=c_scale, psi_hidden=psi_hidden))(jax.random.split(key, num))


def max_increment(model, params, u0, dt, steps: int):
    """max_t [E(t+dt) − E(t)] / (1 + |E(t)|) along ``steps`` Euler steps from ``u0`` (one trajectory)."""

    def body(carry, _):
        u, e = carry
        u = u + dt * rhs(model, params, u)
        e2 = model.energy(params, u)
        return (u, e2), (e2 - e) / (1.0 + jnp.abs(e))

    _, inc = jax.lax.scan(body, (u0, model.energy(params, u0)), None, length=steps)
    return jnp.max(inc)


def derivative_checks(model, params, u, h: float = 1e-5):
    """(relative error of analytic dE/dt vs central FD along du/dt, ‖∂E/∂r − jax.grad E‖_∞) at state u."""
    v = rhs(model, params, u)
    analytic = -jnp.sum(model.g_prime(u) * model.grad_r(params, u) ** 2)
    fd = (model.energy(params, u + h * v) - model.energy(params, u - h * v)) / (2 * h)
    grad_ad = jax.grad(lambda r: model.energy(params, model.g_inv(r)))(model.g(u))
    return jnp.abs(fd - analytic) / jnp.abs(analytic), jnp.max(jnp.abs(grad_ad - model.grad_r(params, u)))


@functools.partial(jax.jit, static_argnames=("model", "steps"))
def descent_table(model, params, u0, dts, *, steps: int):
    """``[D, P, I]`` max relative increments over dts × parameter draws × initial states (one program)."""
    one = functools.partial(max_increment, model, steps=steps)
    over_u = jax.vmap(one, in_axes=(None, 0, None))
    over_p = jax.vmap(over_u, in_axes=(0, 0, None))
    return jax.vmap(over_p, in_axes=(None, None, 0))(params, u0, dts)


@functools.partial(jax.jit, static_argnames=("model",))
def check_table(model, params, u0):
    """``[P, I]`` derivative checks (see :func:`derivative_checks`)."""
    return jax.vmap(jax.vmap(functools.partial(derivative_checks, model), in_axes=(None, 0)))(params, u0)


def _one_lattice(cfg, lat: LatticeConfig, key):
    """Increments ``[D, P, I]``, dE/dt errors and gradient errors ``[P, I]`` on one lattice."""
    model = model_of(lat)
    kp, ku = jax.random.split(key)
    params = draw(model, kp, int(cfg.draws), int(cfg.psi_hidden), float(cfg.c_scale))
    u0 = cfg.u0_std * jax.random.normal(ku, (int(cfg.draws), int(cfg.inits), *model.shape), jnp.float64)
    dts = np.asarray([cfg.dt, *cfg.probe_dts], np.float64)
    inc = np.asarray(descent_table(model, params, u0, jnp.asarray(dts), steps=int(cfg.steps)))
    rel_err, grad_err = (np.asarray(x) for x in check_table(model, params, u0))
    return inc, rel_err, grad_err


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S1 on the ring (and, where the config has a ``torus`` group, on the torus too: the worst of both)."""
    for name in ("draws", "inits", "steps", "psi_hidden"):
        check_range(name, cfg[name], 1)
    lats = {"ring": to_dataclass(LatticeConfig, cfg.lattice)}
    if "torus" in cfg:
        lats["torus"] = to_dataclass(LatticeConfig, cfg.torus)
    keys = {"ring": key, "torus": jax.random.fold_in(key, 1)}
    runs = {g: _one_lattice(cfg, lat, keys[g]) for g, lat in lats.items()}
    dts = np.asarray([cfg.dt, *cfg.probe_dts], np.float64)
    inc = np.concatenate([r[0] for r in runs.values()], axis=1)
    rel_err = np.concatenate([r[1].ravel() for r in runs.values()])
    grad_err = np.concatenate([r[2].ravel() for r in runs.values()])
    worst = inc.max(axis=(1, 2))
    tol = 1e-10
    # first probed dt with any increase above the float64 tolerance used by the criterion
    bad = [float(d) for d, w in zip(dts[1:], worst[1:], strict=False) if w > tol]
    frac = [float((inc[i] > tol).mean()) for i in range(len(dts))]
    return Measurement(
        measured={
            "max_rel_increment": float(worst[0]),
            "dEdt_rel_err": float(rel_err.max()),
            "grad_err": float(grad_err.max()),
        },
        predicted={"max_rel_increment": 0.0, "dEdt_rel_err": 0.0, "grad_err": 0.0},
        n=int(inc[0].size),
        details={
            "dt": float(cfg.dt),
            "probe_dts": [float(d) for d in cfg.probe_dts],
            "lattices": {g: dataclasses.asdict(lat) for g, lat in lats.items()},
            "max_rel_increment_per_dt": worst.tolist(),
            "max_rel_increment_per_lattice": {g: float(r[0][0].max()) for g, r in runs.items()},
            "fraction_with_increase_per_dt": frac,
            "smallest_probed_dt_with_increase": bad[0] if bad else None,
            "steps": int(cfg.steps),
        },
        figures={"descent": figures.descent_figure(dts, worst, frac)},
        captions={"descent": figures.CAPTIONS["descent"]},
    )
