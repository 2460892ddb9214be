"""FM4: the exact references (float64): the floor, the Gaussian transport map and the GMM flow of v*.

* Floor: L* for N(0, I) → N(μ, I) by 10⁶-sample Monte Carlo against the closed form (full-MSE 2L*/d = π/2).
* Gaussian N(μ, Σ), non-identity Σ: RK4-50 flow of v* per point against the exact map x ↦ μ + Σ^{½}x.
* GMM: RK4-50 vs RK4-400 per point (solver self-consistency) and √N·max_j KS_j of the flowed sample projected on
  8 directions against the exact projected-mixture CDF. The negative control (FM4c) flows v* of the mixture with
  means scaled by ``control_scale`` and tests it against the unscaled CDF: the KS statistic must see it.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.flow_matching import metrics
from jaxpapers.flow_matching.config import GMMConfig, ReferencesConfig
from jaxpapers.flow_matching.sampler import integrate
from jaxpapers.flow_matching.targets import GaussianTarget, GMMTarget, floor_mc, gmm_v_star


@functools.partial(jax.jit, static_argnames=("steps",))
def flow_gmm(means, weights, s, x0, *, steps: int):
    """RK4 flow of the exact GMM v* from ``x0`` (means/weights are arguments: one program for target and control)."""
    return integrate(lambda x, t: gmm_v_star(means, weights, s, x, t), x0, steps, "rk4")


def study(target_cfg: GMMConfig, ref: ReferencesConfig, seed: int) -> dict:
    """All FM4 quantities (memoised: FM4 and its control share it)."""

    def run():
        key = jax.random.key(seed)
        dtype = jnp.result_type(float)
        mu = np.zeros(ref.floor_d)
        mu[0] = 1.0
        shift = GaussianTarget(mu, np.eye(ref.floor_d))
        floor, floor_se = floor_mc(shift, jax.random.fold_in(key, 0), ref.floor_samples)  # a few eager ops
        gauss = GaussianTarget(np.asarray(ref.gauss_mu), np.asarray(ref.gauss_sigma))
        x0 = jax.random.normal(jax.random.fold_in(key, 1), (ref.gauss_points, gauss.d), dtype)
        flowed = jax.jit(lambda x: integrate(gauss.v_star, x, ref.solver_steps, "rk4"))(x0)
        gauss_err = float(jnp.max(jnp.linalg.norm(flowed - gauss.transport_map(x0), axis=1)))
        gmm = GMMTarget.from_config(target_cfg)
        xg = jax.random.normal(jax.random.fold_in(key, 2), (ref.gmm_points, gmm.d), dtype)
        args = (jnp.asarray(gmm.weights, dtype), jnp.asarray(gmm.s, dtype))
        coarse = flow_gmm(jnp.asarray(gmm.means, dtype), *args, xg, steps=ref.solver_steps)
        fine = flow_gmm(jnp.asarray(gmm.means, dtype), *args, xg[: ref.fine_points], steps=ref.fine_steps)
        solver_err = float(jnp.max(jnp.linalg.norm(coarse[: ref.fine_points] - fine, axis=1)))
        control = flow_gmm(jnp.asarray(gmm.means * ref.control_scale, dtype), *args, xg, steps=ref.solver_steps)
        dirs = metrics.projection_directions(ref.projections)
        if gmm.d > 2:
            dirs = np.pad(dirs, ((0, 0), (0, gmm.d - 2)))
        root_n = math.sqrt(ref.gmm_points)
        ks = metrics.ks_projected(np.asarray(coarse), gmm, dirs) * root_n
        ks_control = metrics.ks_projected(np.asarray(control), gmm, dirs) * root_n
        return {
            "floor_per_dim": 2 * floor / ref.floor_d,
            "floor_per_dim_se": 2 * floor_se / ref.floor_d,
            "gauss_max_err": gauss_err,
            "solver_max_err": solver_err,
            "ks_sqrtN": ks,
            "ks_sqrtN_control": ks_control,
        }

    return memo.shared("flow_matching/references", target_cfg, ref, seed, jnp.result_type(float), fn=run)


def _groups(cfg):
    return to_dataclass(GMMConfig, cfg.target), to_dataclass(ReferencesConfig, cfg.ref)


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM4: floor per dimension (predicted π/2), Gaussian per-point error, RK4-50 vs 400, √N·max KS."""
    del key
    target, ref = _groups(cfg)
    r = study(target, ref, int(cfg.seed))
    return Measurement(
        measured={
            "floor_per_dim": r["floor_per_dim"],
            "gauss_max_err": r["gauss_max_err"],
            "solver_max_err": r["solver_max_err"],
            "ks_sqrtN_max": float(np.max(r["ks_sqrtN"])),
        },
        predicted={"floor_per_dim": math.pi / 2},
        stderr={"floor_per_dim": r["floor_per_dim_se"]},
        n=ref.floor_samples,
        details={"ks_sqrtN_per_direction": r["ks_sqrtN"].tolist(), "floor_samples": ref.floor_samples,
                 "gauss_points": ref.gauss_points, "gmm_points": ref.gmm_points},
    )


def measure_control(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM4c: √N·max KS of the flow of the wrong (means × ``control_scale``) mixture against the true CDF."""
    del key
    target, ref = _groups(cfg)
    r = study(target, ref, int(cfg.seed))
    return Measurement(
        measured={"ks_sqrtN_max": float(np.max(r["ks_sqrtN_control"]))},
        n=ref.gmm_points,
        details={"ks_sqrtN_per_direction": r["ks_sqrtN_control"].tolist(), "control_scale": ref.control_scale},
    )
