"""V3: the phase staircase over the nuisance correlation of the contaminated family.

:func:`staircase_distances` measures one covariance; :func:`staircase_sweep` is the jitted sweep over a
nu grid (population and n-sample covariances, common random numbers) with the predicted thresholds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import plots, sim
from jaxpapers.core.claims import Measurement
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import metrics, spectra
from jaxpapers.vlm_objectives.figures import staircase_figure

STAIRCASE_METHODS = {"cca": ("cca", "img"), "captioning": ("gen_x2y", "img"), "gen_t2i": ("gen_y2x", "txt")}


def staircase_distances(cov: lm.Cov, k: int) -> dict[str, jax.Array]:
    """Distances to the ground truth of the CCA family (image side), captioning (image→text generation,
    image side) and text→image generation (text side): the staircase values k'/k (spec Pitfalls:
    compare to Ux, not to a non-unique closed form)."""
    out = {}
    for name, (objective, side) in STAIRCASE_METHODS.items():
        sol = cf.solve(objective, cov, k)
        enc, truth = (sol.W_img, cov.Ux) if side == "img" else (sol.W_txt, cov.Uy)
        out[name] = metrics.subspace_distance(truth.T, enc)
    return out


def first_crossings(nu: ArrayLike, distance: ArrayLike, k: int) -> np.ndarray:
    """The first grid value at which ``distance`` reaches ``(n - 1/2)/k`` for n = 1..k (nan if never):
    the measured step locations of a staircase."""
    nu, distance = np.asarray(nu), np.asarray(distance)
    out = np.full(k, np.nan)
    for n in range(1, k + 1):
        hit = np.nonzero(distance >= (n - 0.5) / k)[0]
        if hit.size:
            out[n - 1] = nu[hit[0]]
    return out


@functools.cache
def staircase_sweep(k: int, n_sample: int, chunk_size: int | None) -> Callable:
    """A jitted ``run(p, nus, key) -> ((pop, sample), thresholds)``: population and n-sample staircase
    distances over a nu grid (one rotation and one draw of normals from ``key``, common to every nu)
    and the predicted thresholds of each method."""

    def one(p: lm.PlantedParams, rot: lm.Cov, czz: jax.Array):
        cov = lm.rotated_covariances(p, rot.Qx, rot.Qy)
        return staircase_distances(cov, k), staircase_distances(lm.cov_from_moments(p, cov, czz), k)

    def run(p: lm.PlantedParams, nus: jax.Array, key: jax.Array):
        k_rot, k_sample = jax.random.split(key)
        # one rotation and common random numbers across nu (the curves differ only through nu): the
        # n-sample covariance at every nu comes from the moments of one draw of normals (exact, see
        # latent_model.cov_from_moments)
        rot = lm.planted_covariances(p, k_rot)
        czz = lm.base_moments(p, k_sample, n_sample)
        dists = sim.vmap_chunked(lambda nu: one(spectra.with_common_nu(p, nu), rot, czz), nus, chunk_size=chunk_size)
        predicted = {m: spectra.staircase_thresholds(p, m) for m in spectra.METHODS}
        return dists, predicted

    return jax.jit(run, compiler_options=sim.fast_compile_options())


CAPTIONS = {
    "staircase": "Each solid line should step up exactly at the dotted vertical line of its colour (the predicted "
    "failure points: ν = ρ_i for the CCA family, 5ν = τ'_i for text→image generation); captioning stays at 0. "
    "Dots (n samples) should follow the lines within ±0.05.",
    "phase_diagram": "Population distance over (ν, image nuisance variance): the failure region of the CCA family "
    "should not depend on the nuisance variance, while generation's should.",
}


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """V3: sweep the common nuisance correlation of the contaminated family (population and sample)."""
    c = cfg.staircase
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    p = lm.planted_from_config(cfg.planted.contaminated, dtype)
    k = p.k
    nu = np.linspace(c.nu_min, c.nu_max, c.num_nu)
    (pop, smp), thresholds = staircase_sweep(k, c.n_sample, c.chunk_size)(p, jnp.asarray(nu, dtype), key)
    pop, smp, thresholds = (jax.tree.map(np.asarray, t) for t in (pop, smp, thresholds))
    predicted = {"cca": thresholds["cca"], "gen_t2i": thresholds["gen_y2x"]}
    details: dict[str, Any] = {
        "captioning_thresholds_predicted": thresholds["gen_x2y"],
        "grid_step": float(nu[1] - nu[0]),
        "n_sample": c.n_sample,
    }
    figures = {"staircase": staircase_figure(nu, pop, smp, predicted)}
    if c.phase_grid:
        figures["phase_diagram"], details["phase_diagram"] = phase_diagram(cfg, key)
    return Measurement(
        measured={
            "pop_cca": first_crossings(nu, pop["cca"], k),
            "pop_gen_t2i": first_crossings(nu, pop["gen_t2i"], k),
            "pop_captioning_max_distance": float(pop["captioning"].max()),
            "sample_cca": first_crossings(nu, smp["cca"], k),
            "sample_gen_t2i": first_crossings(nu, smp["gen_t2i"], k),
            "sample_captioning_max_distance": float(smp["captioning"].max()),
        },
        predicted={
            "pop_cca": predicted["cca"],
            "pop_gen_t2i": predicted["gen_t2i"],
            "pop_captioning_max_distance": 0.0,
            "sample_cca": predicted["cca"],
            "sample_gen_t2i": predicted["gen_t2i"],
            "sample_captioning_max_distance": 0.0,
        },
        n=c.num_nu,
        details=details,
        figures=figures,
        captions={name: CAPTIONS[name] for name in figures},
    )


def phase_diagram(cfg: ml_collections.ConfigDict, key: jax.Array):
    """2-D (nu, gxn) sweep of the population distances (full preset): one vmapped grid via core.sim."""
    c = cfg.staircase
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    p = lm.planted_from_config(cfg.planted.contaminated, dtype)
    nus = np.linspace(c.nu_min, c.nu_max, c.phase_grid)
    gxns = np.geomspace(c.phase_gxn_min, c.phase_gxn_max, c.phase_grid)
    k_rot = jax.random.split(key)[0]

    def point(nu, gxn):
        q = spectra.with_common_nu(p, nu).replace(gxn=jnp.full_like(p.gxn, gxn))
        return staircase_distances(lm.planted_covariances(q, k_rot), p.k)

    out = sim.grid(point, {"nu": jnp.asarray(nus, dtype), "gxn": jnp.asarray(gxns, dtype)}, chunk_size=c.chunk_size)
    out = {n: np.asarray(v) for n, v in out.items()}
    fig, axes = plots.figure(2, width=4.0)
    for ax, name in zip(axes, ("cca", "gen_t2i"), strict=True):
        im = ax.pcolormesh(nus, gxns, out[name].T, vmin=0, vmax=1, shading="auto")
        ax.set_yscale("log")
        ax.set_xlabel("ν")
        ax.set_ylabel("image nuisance variance gxn")
        ax.set_title({"cca": "CCA family", "gen_t2i": "text→image generation"}[name], fontsize=8)
    fig.colorbar(im, ax=axes, label="subspace distance to the semantic subspace")
    fig.suptitle("Phase diagram: failure region vs ν and image nuisance variance", fontsize=9)
    return fig, {
        "nu": nus,
        "gxn": gxns,
        "cca_mean": float(out["cca"].mean()),
        "gen_t2i_mean": float(out["gen_t2i"].mean()),
    }
