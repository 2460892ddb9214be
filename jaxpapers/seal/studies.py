"""Studies several claims share (``core.memo.shared``): the learned ring energy (S2, S3, S5, S6, S7) and the
torus energies before/after learning (S4, S5)."""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp

from jaxpapers.core import memo
from jaxpapers.seal.config import LatticeConfig, LearnConfig
from jaxpapers.seal.energy import FourierHopfieldEnergy
from jaxpapers.seal.learn import fourier_construction, learn_energy, newton_fixed_point, target_bump


def model_of(lat: LatticeConfig) -> FourierHopfieldEnergy:
    return FourierHopfieldEnergy(lat.geometry, lat.n, lat.band, lat.beta)


@functools.partial(jax.jit, static_argnames=("model", "steps", "lr", "mu_target", "stat_weight", "learn"))
def _learn(model, params, u_star, *, steps, lr, mu_target, stat_weight, learn):
    return learn_energy(
        model, params, u_star, steps=steps, lr=lr, mu_target=mu_target, stat_weight=stat_weight, learn=learn
    )


@functools.partial(jax.jit, static_argnames=("model", "iters"))
def _newton(model, params, u0, *, iters):
    return newton_fixed_point(model, params, u0, iters)


def learned_energy(lat: LatticeConfig, lc: LearnConfig):
    """Target u*, the step-1 construction and the learned energy with its Newton fixed point u_fp.

    Returns a dict: ``model``, ``u_star``, ``init`` (construction params), ``params`` (learned), ``history``,
    ``u_fp``, ``residual`` (‖F(u_fp)‖).
    """

    def run():
        model = model_of(lat)
        u_star = target_bump(model, lat.kappa)
        ridge = 0.0 if lc.init == "exact" else lc.ridge
        init = fourier_construction(model, u_star, ridge=ridge)
        learn = ("c", "b", "gamma_raw") if lc.learn_gamma else ("c", "b")
        p0 = dict(init)
        if lc.learn_gamma:
            p0["gamma_raw"] = jnp.full(model.shape, -5.0, u_star.dtype)
        params, hist = _learn(
            model, p0, u_star, steps=lc.steps, lr=lc.lr, mu_target=lc.mu_target, stat_weight=lc.stat_weight, learn=learn
        )
        u_fp, res = _newton(model, params, u_star, iters=lc.newton_iters)
        return {
            "model": model,
            "u_star": u_star,
            "init": init,
            "params": params,
            "history": hist,
            "u_fp": u_fp,
            "residual": res,
        }

    return memo.shared("seal/learned_energy", dataclasses.asdict(lat), dataclasses.asdict(lc), fn=run)


def construction(lat: LatticeConfig, ridge: float):
    """The step-1 construction (no learning) and its Newton fixed point: dict like :func:`learned_energy`."""

    def run():
        model = model_of(lat)
        u_star = target_bump(model, lat.kappa)
        params = fourier_construction(model, u_star, ridge=ridge)
        u_fp, res = _newton(model, params, u_star, iters=20)
        return {"model": model, "u_star": u_star, "params": params, "u_fp": u_fp, "residual": res}

    return memo.shared("seal/construction", dataclasses.asdict(lat), ridge, fn=run)
