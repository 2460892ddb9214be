"""V2: gradient-trained exact losses reach their closed forms (linear towers, planted data).

Each seed is one independent draw of (rotation, n training pairs, initialisation). Training runs in
float32 on device (:func:`jaxpapers.vlm_objectives.train.train_seeds`); :func:`snapshot_evaluator`
then measures every parameter snapshot in float64 against the closed form of the same sample
covariance (jitted, vmapped over seeds and snapshots).
"""

from __future__ import annotations

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
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.train import OptimConfig
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import metrics
from jaxpapers.vlm_objectives.config import LossConfig, ModelConfig, SeedTrainConfig
from jaxpapers.vlm_objectives.models import ObjectiveModel
from jaxpapers.vlm_objectives.train import linear_encoders, train_seeds

# the closed form each trained objective is compared with
TRAINED_REFERENCE = {
    "clip": "cca",
    "siglip": "cca",
    "jepa_x2y": "jepa_x2y",
    "jepa_y2x": "jepa_y2x",
    "gen_x2y": "gen_x2y",
    "gen_y2x": "gen_y2x",
}


def evaluate_encoders(
    enc: dict[str, jax.Array], objective: str, k: int, scov: lm.Cov, ux: jax.Array, uy: jax.Array
) -> dict[str, jax.Array]:
    """One trained encoder set (:func:`linear_encoders`) against the closed form of ``scov``: image- and
    text-side subspace distances to it and to the ground truth ``Ux``/``Uy`` (columns), and for JEPA the
    constrained objective (re-whitened, predictor refitted), its optimum and their relative gap."""
    ref = cf.solve(TRAINED_REFERENCE[objective], scov, k)
    out = {}
    if "W_img" in enc:
        out["distance_img"] = metrics.subspace_distance(ref.W_img, enc["W_img"])
        out["distance_img_to_signal"] = metrics.subspace_distance(ux.T, enc["W_img"])
    if "W_txt" in enc:
        out["distance_txt"] = metrics.subspace_distance(ref.W_txt, enc["W_txt"])
        out["distance_txt_to_signal"] = metrics.subspace_distance(uy.T, enc["W_txt"])
    if objective.startswith("jepa"):
        direction = objective.split("_")[1]
        target = enc["W_txt"] if direction == "x2y" else enc["W_img"]
        value = metrics.jepa_constrained_objective(enc["context"], target, scov, direction)
        optimum = k - jnp.sum(ref.spectrum[:k] ** 2)
        out["jepa_objective"] = value
        out["jepa_optimum"] = optimum
        out["jepa_gap"] = metrics.objective_gap(value, optimum)
    return out


@functools.cache
def snapshot_evaluator(objective: str, k: int) -> Callable:
    """A jitted ``run(snapshots [S, T, ...], scov [S], ux [S], uy [S]) -> {name: [S, T]}``:
    :func:`evaluate_encoders` on every seed and snapshot."""

    def one_seed(params, scov: lm.Cov, ux, uy):
        enc = linear_encoders(params, objective)  # leading dim: snapshots
        return jax.vmap(lambda e: evaluate_encoders(e, objective, k, scov, ux, uy))(enc)

    return jax.jit(jax.vmap(one_seed), compiler_options=sim.fast_compile_options())


@functools.cache
def planted_data(n: int) -> Callable:
    """A jitted ``sample(p, keys [S])``: per seed key a rotation (the population ``Cov``) and ``n`` pairs
    centered on their own mean (spec Pitfalls: otherwise the CCA equivalence breaks)."""

    def one(p: lm.PlantedParams, key: jax.Array):
        k_rot, k_data = jax.random.split(key)
        cov = lm.planted_covariances(p, k_rot)
        x, y, _ = lm.sample_pairs(p, cov, k_data, n)
        return cov, x - x.mean(0), y - y.mean(0)

    return jax.jit(jax.vmap(one, in_axes=(None, 0)))


def train_objectives(cfg: ml_collections.ConfigDict, key: jax.Array, variant: str) -> dict[str, Any]:
    """Trains every objective of ``cfg.train_linear.steps`` on n planted pairs per seed (float32), then
    evaluates each snapshot against the float64 closed form of the same sample covariance.

    Seed ``s`` (of ``split(key, seeds)``) splits into (data, train) keys: the data key draws the
    rotation and the pairs, ``fold_in(train, i)`` the i-th objective's initialisation and batches.
    """
    c = cfg.train_linear
    trainer = to_dataclass(SeedTrainConfig, c.trainer)
    optim = to_dataclass(OptimConfig, c.optim)
    loss_cfg = to_dataclass(LossConfig, c.loss)
    seed_keys = jax.random.split(key, c.seeds)
    with jax.enable_x64(False):
        p = lm.planted_from_config(cfg.planted[variant], jnp.float32)
        k_data, k_train = jax.vmap(jax.random.split, out_axes=1)(seed_keys)
        cov, x, y = planted_data(c.n)(p, k_data)
        runs = {}
        for i, (objective, steps) in enumerate(c.steps.items()):
            model = ObjectiveModel(to_dataclass(ModelConfig, c.model, objective=objective, k=p.k, d_x=p.d_x, d_y=p.d_y))
            keys = jax.vmap(lambda kk, i=i: jax.random.fold_in(kk, i))(k_train)
            # dispatched asynchronously: the objectives' scans can overlap on the host's cores
            runs[objective] = (train_seeds(model, loss_cfg, optim, trainer, steps, keys, x, y), steps)
        runs = {o: (jax.tree.map(np.asarray, r), steps) for o, (r, steps) in runs.items()}
    with jax.enable_x64(True):
        # the training data's own (centered) covariances, in float64 on the device
        xs, ys = jnp.asarray(np.asarray(x, np.float64)), jnp.asarray(np.asarray(y, np.float64))
        second = jax.jit(lambda a, b: jnp.einsum("snd,sne->sde", a, b) / a.shape[1])
        scov = lm.Cov(Sxx=second(xs, xs), Syy=second(ys, ys), Sxy=second(xs, ys))
        ux, uy = (jnp.asarray(np.asarray(u, np.float64)) for u in (cov.Ux, cov.Uy))
        out = {}
        for objective, (r, steps) in runs.items():
            snaps = jax.tree.map(lambda a: jnp.asarray(np.asarray(a, np.float64)), r.snapshots)
            ev = snapshot_evaluator(objective, p.k)(snaps, scov, ux, uy)
            per = steps // trainer.snapshots
            out[objective] = {
                "eval": {n: np.asarray(v) for n, v in ev.items()},
                "loss": r.losses.reshape(c.seeds, trainer.snapshots, per).mean(-1),  # mean over each segment
                "steps": np.arange(1, trainer.snapshots + 1) * per,
                "params": r.params,
            }
    return out


def measure(cfg: ml_collections.ConfigDict, key: jax.Array, variant: str) -> Measurement:
    """V2 on ``variant``: the worst seed's final image-side distance per objective and JEPA gap."""
    runs = train_objectives(cfg, key, variant)
    measured, details = {}, {}
    for objective, r in runs.items():
        ev = r["eval"]
        measured[f"{objective}_distance"] = float(ev["distance_img"][:, -1].max())
        det: dict[str, Any] = {n: float(v[:, -1].max()) for n, v in ev.items()}
        det["distance_img_per_seed"] = ev["distance_img"][:, -1]
        det["distance_img_trajectory"] = ev["distance_img"].mean(0)
        det["final_loss"] = float(r["loss"][:, -1].mean())
        if objective.startswith("jepa"):
            measured["jepa_gap"] = float(ev["jepa_gap"][:, -1].max())
            det["jepa_gap_per_seed"] = ev["jepa_gap"][:, -1]
            det["jepa_gap_trajectory"] = ev["jepa_gap"].mean(0)
            det["distance_img_to_signal_trajectory"] = ev["distance_img_to_signal"].mean(0)
        if objective == "siglip":
            det["learned_b"] = float(np.mean(r["params"]["b"]))
            det["learned_t"] = float(np.mean(np.exp(r["params"]["log_t"])))
            det["logit_1_over_N"] = math.log(1.0 / (cfg.train_linear.trainer.batch_size - 1))
        details[objective] = det
    predicted = {n: 0.0 for n in measured}
    return Measurement(
        measured=measured,
        predicted=predicted,
        n=cfg.train_linear.seeds,
        details={"variant": variant, "seeds": cfg.train_linear.seeds, **details},
        figures={f"training_{variant}": figure(runs, variant)},
        captions={f"training_{variant}": CAPTION},
    )


def measure_clean(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """V2a: the clean preset."""
    return measure(cfg, key, "clean")


def measure_contaminated(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """V2b: the contaminated preset."""
    return measure(cfg, key, "contaminated")


CAPTION = (
    "Left: each objective's image-side subspace distance to its closed form over training (mean over seeds); "
    "every curve should end below the dashed 0.05 line the claim judges. Right (JEPA): the objective's gap to "
    "its constrained optimum should end below 0.02, while its distance to the semantic subspace can look small "
    "early, before the encoder settles (the apparent nuisance robustness is transient)."
)


def figure(runs: dict[str, Any], variant: str):
    """Distance to the closed form over training (mean over seeds), with the claim's 0.05 line; JEPA:
    objective gap (claim line 0.02) vs apparent nuisance robustness (spec Pitfalls)."""
    fig, (ax1, ax2) = plots.figure(2, width=4.3)
    for objective, r in runs.items():
        ax1.semilogy(r["steps"], np.maximum(r["eval"]["distance_img"].mean(0), 1e-6), "-o", ms=3, label=objective)
        if objective.startswith("jepa"):
            for name, marker, label in (
                ("jepa_gap", "-o", "gap to optimum"),
                ("distance_img_to_signal", "-s", "distance to the semantic subspace"),
                ("distance_img", "-^", "distance to the closed form"),
            ):
                ax2.semilogy(r["steps"], np.maximum(r["eval"][name].mean(0), 1e-6), marker, ms=3, label=label)
    ax1.axhline(0.05, color="red", ls="--", lw=1, label="claim: distance 0.05")
    ax2.axhline(0.02, color="red", ls="--", lw=1, label="claim: JEPA gap 0.02")
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("step")
        ax.legend(fontsize=7)
    ax1.set_ylabel("image-side distance to the closed form")
    ax1.set_title("distance to the closed form", fontsize=8)
    ax2.set_ylabel("gap / distance (mean over seeds)")
    ax2.set_title("JEPA: objective gap vs apparent nuisance robustness", fontsize=8)
    fig.suptitle(f"V2 ({variant})")
    return fig
