"""V1: the alignment family (linearised CLIP, SigLIP, JEPA-L2) gives the CCA subspace, generation does
not, and each closed form is a stationary point of its own linearised loss with the analytic optimum.

:func:`closed_form_checks` is every check on one covariance; :func:`random_sweep` and
:func:`planted_sweep` are its jitted sweeps over random Wishart covariances and the planted presets.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import plots, sim
from jaxpapers.core.claims import Measurement
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import losses, metrics


@dataclasses.dataclass(frozen=True)
class AlignmentGrid:
    """The hyperparameters V1 sweeps (static: part of the compiled function's identity)."""

    k: int
    clip_taus: tuple[float, ...]
    siglip_ts: tuple[float, ...]
    siglip_ns: tuple[int, ...]
    siglip_bs: tuple[float | None, ...]  # None: logit(1/N)

    def siglip_variants(self) -> list[tuple[float, int, float]]:
        out = []
        for t in self.siglip_ts:
            for n in self.siglip_ns:
                for b in self.siglip_bs:
                    out.append((t, n, math.log(1.0 / (n - 1)) if b is None else b))
        return out

    def variant_names(self) -> dict[str, list[str]]:
        """Labels of the rows of each family in :func:`closed_form_checks`."""
        sig = [f"t={t:g} N={n} b={b:.3g}" for t, n, b in self.siglip_variants()]
        return {
            "clip": [f"clip tau={t:g}" for t in self.clip_taus],
            "siglip": [f"siglip {s}" for s in sig],
            "siglip_finite_n": [f"siglip finite_n {s}" for s in sig],
            "jepa": ["jepa x2y", "jepa y2x"],
            "gen": ["gen x2y", "gen y2x"],
        }


def grid_from_config(c: ml_collections.ConfigDict) -> AlignmentGrid:
    """The grid of ``cfg.closed_forms`` (``siglip_bs`` entries ``"logit(1/N)"`` become None)."""
    return AlignmentGrid(
        k=c.k,
        clip_taus=tuple(c.clip_taus),
        siglip_ts=tuple(c.siglip_ts),
        siglip_ns=tuple(c.siglip_ns),
        siglip_bs=tuple(None if b == "logit(1/N)" else float(b) for b in c.siglip_bs),
    )


def _max_abs_grad(g: Any) -> jax.Array:
    return jnp.max(jnp.stack([jnp.max(jnp.abs(x)) for x in jax.tree.leaves(g)]))


def _stationarity(loss: Callable[[Any], jax.Array], params: Any, optimum: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(max |grad| / max(1, |L*|), |L - L*| / |L*|) of a closed form under its own loss."""
    value, grad = jax.value_and_grad(loss)(params)
    return _max_abs_grad(grad) / jnp.maximum(1.0, jnp.abs(optimum)), jnp.abs(value - optimum) / jnp.abs(optimum)


def closed_form_checks(cov: lm.Cov, grid: AlignmentGrid) -> dict[str, Any]:
    """Every V1 check on one covariance (vmap over a batch of covariances).

    Returns, per family (each vmapped over its hyperparameters), a triple: the max principal angle to
    CCA (worst of the image and text sides; for ``gen`` the image-side subspace distance to CCA), the
    max gradient of the objective's own linearised loss scaled by ``max(1, |L*|)``, and the relative
    error of the loss value against the analytic optimum.
    """
    k = grid.k
    dtype = cov.Sxx.dtype
    ref = cf.cca(cov, k)
    phi2 = jnp.sum(ref.spectrum[:k] ** 2)

    def angle(sol):
        return jnp.maximum(metrics.max_angle(ref.W_img, sol.W_img), metrics.max_angle(ref.W_txt, sol.W_txt))

    def clip_one(tau):
        sol = cf.clip_linear(cov, k, tau)
        g, v = _stationarity(
            lambda p: losses.clip_linearized(p, cov, tau), {"W": sol.W_img, "V": sol.W_txt}, -0.5 * tau * phi2
        )
        return angle(sol), g, v

    def siglip_one(t, n, b, finite_n):
        sol = cf.siglip_linear(cov, k, t, b, n, finite_n=finite_n)
        sig = jax.nn.sigmoid(b)
        const = -jax.nn.log_sigmoid(b) - (n - 1) * jax.nn.log_sigmoid(-b)
        tau_eff = 1.0 / ((n - 1) * sig * t)
        optimum = const - (1 - sig) * t * 0.5 * tau_eff * phi2  # (1-σ)t × CLIP's optimum at tau_eff
        g, v = _stationarity(
            lambda p: losses.siglip_linearized(p, cov, t, b, n, finite_n=finite_n),
            {"W": sol.W_img, "V": sol.W_txt},
            optimum,
        )
        return angle(sol), g, v

    def jepa_one(direction):
        sol = cf.jepa_l2(cov, k, direction)
        ctx, tgt = (sol.W_img, sol.W_txt) if direction == "x2y" else (sol.W_txt, sol.W_img)
        g, v = _stationarity(
            lambda p: losses.jepa_l2_linearized(p, cov, direction), {"W": ctx, "P": sol.predictor, "V": tgt}, k - phi2
        )
        return angle(sol), g, v

    def gen_one(direction):
        gen = cf.generation_rrr(cov, k, direction)
        enc = gen.W_img if direction == "x2y" else gen.W_txt
        s_tt = cov.Syy if direction == "x2y" else cov.Sxx
        g, v = _stationarity(
            lambda p: losses.generation_linearized(p, cov, direction),
            {"E": enc, "D": gen.decoder},
            jnp.trace(s_tt) - jnp.sum(gen.spectrum[:k] ** 2),
        )
        dist = metrics.subspace_distance(ref.W_img if direction == "x2y" else ref.W_txt, enc)
        return dist, g, v

    variants = grid.siglip_variants()
    t, n, b = (jnp.asarray([v[i] for v in variants], dtype) for i in range(3))
    return {
        "clip": jax.vmap(clip_one)(jnp.asarray(grid.clip_taus, dtype)),
        "siglip": jax.vmap(functools.partial(siglip_one, finite_n=False))(t, n, b),
        "siglip_finite_n": jax.vmap(functools.partial(siglip_one, finite_n=True))(t, n, b),
        "jepa": tuple(jnp.stack(x) for x in zip(jepa_one("x2y"), jepa_one("y2x"), strict=True)),
        "gen": tuple(jnp.stack(x) for x in zip(gen_one("x2y"), gen_one("y2x"), strict=True)),
    }


@functools.cache
def random_sweep(grid: AlignmentGrid, num_random: int, d_x: int, d_y: int, chunk_size: int | None) -> Callable:
    """A jitted ``run(key)``: ``num_random`` random Wishart covariances (``split(key, num_random)``,
    float64 under x64), then :func:`closed_form_checks` on each."""

    def run(key: jax.Array):
        dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
        covs = jax.vmap(lambda kk: lm.random_joint_cov(kk, d_x, d_y, dtype=dtype))(jax.random.split(key, num_random))
        return sim.vmap_chunked(lambda c: closed_form_checks(c, grid), covs, chunk_size=chunk_size)

    return jax.jit(run, compiler_options=sim.fast_compile_options())


@functools.cache
def planted_sweep(grid: AlignmentGrid) -> Callable:
    """A jitted ``run(params, key)``: the population covariances of a stack of planted models (rotations
    from ``key``), then :func:`closed_form_checks` on each."""

    def run(params: lm.PlantedParams, key: jax.Array):
        cov = jax.vmap(lambda p: lm.planted_covariances(p, key))(params)
        cov = cov.replace(Ux=None, Uy=None, Qx=None, Qy=None)
        return jax.vmap(lambda c: closed_form_checks(c, grid))(cov)

    return jax.jit(run, compiler_options=sim.fast_compile_options())


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """V1: closed forms on random joint covariances and the planted presets (float64)."""
    c = cfg.closed_forms
    grid = grid_from_config(c)
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    k_rand, k_plant = jax.random.split(key)  # the two halves of the claim use independent keys
    rand = jax.tree.map(np.asarray, random_sweep(grid, c.num_random, c.d_x, c.d_y, c.chunk_size)(k_rand))
    planted = [lm.planted_from_config(cfg.planted[v], dtype) for v in cfg.planted]
    stacked = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *planted)
    pgrid = dataclasses.replace(grid, k=planted[0].k)
    plant = jax.tree.map(np.asarray, planted_sweep(pgrid)(stacked, k_plant))

    angles, grads, values = {}, {}, {}
    for family, labels in grid.variant_names().items():
        for i, label in enumerate(labels):
            a, g, v = (
                max(float(np.max(rand[family][j][:, i])), float(np.max(plant[family][j][:, i]))) for j in range(3)
            )
            if family != "gen":
                angles[label] = a
            grads[label] = g
            if family != "siglip_finite_n":  # its optimum value is not in closed form (only stationarity)
                values[label] = v
    gx, gy = rand["gen"][0][:, 0], rand["gen"][0][:, 1]
    distinct = float(min(np.mean(gx > c.gen_min_distance), np.mean(gy > c.gen_min_distance)))
    return Measurement(
        measured={
            "max_angle_rad": max(angles.values()),
            "gen_distinct_fraction": distinct,
            "max_scaled_grad": max(grads.values()),
            "max_value_rel_err": max(values.values()),
        },
        predicted={
            "max_angle_rad": 0.0,
            "gen_distinct_fraction": 1.0,
            "max_scaled_grad": 0.0,
            "max_value_rel_err": 0.0,
        },
        n=c.num_random + len(planted),
        details={
            "max_angle_by_variant": angles,
            "scaled_grad_by_objective": grads,
            "value_rel_err_by_objective": values,
            "gen_vs_cca_distance_x2y": {"min": float(gx.min()), "median": float(np.median(gx)), "max": float(gx.max())},
            "gen_vs_cca_distance_y2x": {"min": float(gy.min()), "median": float(np.median(gy)), "max": float(gy.max())},
            "dtype": str(np.dtype(dtype)),
        },
        figures={"angles": figure(angles, grads, c.num_random)},
        captions={"angles": CAPTION},
    )


CAPTION = (
    "Every CCA-family objective should sit below the red tolerance in both panels (its closed form spans the CCA "
    "subspace and is a stationary point of its own loss); generation (RRR) is expected far above the left one."
)


def figure(angles: dict[str, float], grads: dict[str, float], num_random: int):
    """Max principal angle to CCA and scaled gradient per variant (log scale)."""
    fig, (ax1, ax2) = plots.figure(2, width=5.6, height=4.6)
    for ax, data, label, tol, title in (
        (ax1, angles, "max principal angle to CCA (rad)", 1e-6, "subspace vs CCA"),
        (ax2, grads, "max |grad| / max(1, |L*|)", 1e-9, "stationarity of the closed form"),
    ):
        ax.semilogy(
            range(len(data)), [max(v, 1e-18) for v in data.values()], "o", ms=4, label="worst case (0 at 1e-18)"
        )
        ax.axhline(tol, ls="--", color="C3", lw=1, label=f"claim tolerance {tol:g}")
        ax.set_xticks(range(len(data)), list(data), rotation=90, fontsize=6)
        ax.set_xlabel("objective / variant")
        ax.set_ylabel(label)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(f"V1: {num_random} random covariances + planted presets (float64)")
    return fig
