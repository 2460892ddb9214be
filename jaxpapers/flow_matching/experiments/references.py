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
from jaxpapers.core.sim import fast_compile_options
from jaxpapers.flow_matching import metrics
from jaxpapers.flow_matching.config import GMMConfig, ReferencesConfig
from jaxpapers.flow_matching.sampler import integrate
from jaxpapers.flow_matching.targets import GaussianTarget, GMMTarget, gmm_v_star
from jaxpapers.flow_matching.train import make_triples


@functools.partial(jax.jit, static_argnames=("steps",))
def flow_gmm(means, weights, s, x0, *, steps: int):
    """RK4 flow of the exact GMM v* from ``x0`` (means/weights are arguments: one program for target and control)."""
    return integrate(lambda x, t: gmm_v_star(means, weights, s, x, t), x0, steps, "rk4")


def study(target_cfg: GMMConfig, ref: ReferencesConfig, seed: int) -> dict:
    """All FM4 quantities (memoised: FM4 and its control share it). The JAX side is **one** program (the floor's
    Monte Carlo, the Gaussian flow and the three GMM flows); the KS statistics are NumPy."""

    def run():
        key = jax.random.key(seed)
        dtype = jnp.result_type(float)
        mu = np.zeros(ref.floor_d)
        mu[0] = 1.0
        shift = GaussianTarget(mu, np.eye(ref.floor_d))
        gauss = GaussianTarget(np.asarray(ref.gauss_mu), np.asarray(ref.gauss_sigma))
        gmm = GMMTarget.from_config(target_cfg)
        batches = 20

        @functools.partial(jax.jit, compiler_options=fast_compile_options(1))
        def program(means, weights, s, control_means):
            tr = make_triples(jax.random.fold_in(key, 0), shift, ref.floor_samples)
            per = 0.5 * jnp.sum((tr["u"] - shift.v_star(tr["x"], tr["t"])) ** 2, axis=-1)
            per = per[: (ref.floor_samples // batches) * batches].reshape(batches, -1).mean(1)
            x0 = jax.random.normal(jax.random.fold_in(key, 1), (ref.gauss_points, gauss.d), dtype)
            flowed = integrate(gauss.v_star, x0, ref.solver_steps, "rk4")
            gauss_err = jnp.max(jnp.linalg.norm(flowed - gauss.transport_map(x0), axis=1))
            xg = jax.random.normal(jax.random.fold_in(key, 2), (ref.gmm_points, gmm.d), dtype)
            coarse = flow_gmm.__wrapped__(means, weights, s, xg, steps=ref.solver_steps)
            fine = flow_gmm.__wrapped__(means, weights, s, xg[: ref.fine_points], steps=ref.fine_steps)
            solver_err = jnp.max(jnp.linalg.norm(coarse[: ref.fine_points] - fine, axis=1))
            control = flow_gmm.__wrapped__(control_means, weights, s, xg, steps=ref.solver_steps)
            return per, gauss_err, solver_err, coarse, control

        out = program(jnp.asarray(gmm.means, dtype), jnp.asarray(gmm.weights, dtype), jnp.asarray(gmm.s, dtype),
                      jnp.asarray(gmm.means * ref.control_scale, dtype))
        per, gauss_err, solver_err, coarse, control = (np.asarray(v, np.float64) for v in out)
        floor, floor_se = float(per.mean()), float(per.std(ddof=1) / math.sqrt(batches))
        dirs = metrics.projection_directions(ref.projections)
        if gmm.d > 2:
            dirs = np.pad(dirs, ((0, 0), (0, gmm.d - 2)))
        root_n = math.sqrt(ref.gmm_points)
        ks = metrics.ks_projected(coarse, gmm, dirs) * root_n
        ks_control = metrics.ks_projected(control, gmm, dirs) * root_n
        return {
            "floor_per_dim": 2 * floor / ref.floor_d,
            "floor_per_dim_se": 2 * floor_se / ref.floor_d,
            "gauss_max_err": float(gauss_err),
            "solver_max_err": float(solver_err),
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
