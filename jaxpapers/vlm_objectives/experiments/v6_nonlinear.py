"""V6: the linear predictions with nonlinear encoders: (a) planted data through random mixers with MLP
towers trained by the seed trainer (quick: report only), and in the full preset (b) ShapesCaptions and
(c) precomputed real features through ``core.train.train_model``.

:func:`probe_sweep` is the jitted held-out probe R^2 of the semantic latent, vmapped over seeds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import plots
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ClaimSkipped
from jaxpapers.core.train import LoopConfig, OptimConfig
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import metrics
from jaxpapers.vlm_objectives.config import LossConfig, ModelConfig, SeedTrainConfig
from jaxpapers.vlm_objectives.data.features import center_features, load_features
from jaxpapers.vlm_objectives.data.shapes_captions import VOCAB, shapes_arrays
from jaxpapers.vlm_objectives.models import ObjectiveModel
from jaxpapers.vlm_objectives.train import center_pairs, fit_objective, train_seeds


@functools.cache
def probe_sweep(model: ObjectiveModel, side: str) -> Callable:
    """A jitted ``run(params [S], x_fit, s_fit, x_test, s_test) -> R^2 [S]``: the held-out linear-probe
    R^2 of ``s`` from the ``side`` (``image`` or ``text``) embedding of each seed's towers."""
    method = "encode_image" if side == "image" else "encode_text"

    def run(params, x_fit, s_fit, x_test, s_test):
        z_fit = model.apply({"params": params}, x_fit, method=method)
        z_test = model.apply({"params": params}, x_test, method=method)
        return metrics.probe_r2(z_fit, s_fit, z_test, s_test)

    return jax.jit(jax.vmap(run, in_axes=(0, None, None, None, None)))


def planted_probe_r2(cfg: ml_collections.ConfigDict, key: jax.Array, variant: str) -> dict[str, float]:
    """V6 (a): planted pairs through fixed random leaky-ReLU mixers, 2-layer MLP towers trained per
    objective by the seed trainer; held-out linear-probe R^2 of the semantic latent s from the image
    embedding (text embedding for text→image generation), mean over seeds."""
    c = cfg.nonlinear
    p = lm.planted_from_config(cfg.planted[variant], jnp.float32)
    k_rot, k_data, k_train = jax.random.split(key, 3)
    cov = jax.jit(lm.planted_covariances)(p, k_rot)
    x, y, s = lm.mixed_sampler(c.n + 2 * c.n_probe, c.mixer_hidden, c.d_mixed)(p, cov, k_data)
    x, y = x - x[: c.n].mean(0), y - y[: c.n].mean(0)  # center on the training mean
    xs = jnp.broadcast_to(x[: c.n], (c.seeds, c.n, x.shape[1]))
    ys = jnp.broadcast_to(y[: c.n], (c.seeds, c.n, y.shape[1]))
    fit, test = slice(c.n, c.n + c.n_probe), slice(c.n + c.n_probe, None)
    loss_cfg = to_dataclass(LossConfig, c.loss)
    optim = to_dataclass(OptimConfig, c.optim)
    trainer = to_dataclass(SeedTrainConfig, c.trainer)
    trained = {}
    for i, (objective, steps) in enumerate(c.steps.items()):  # dispatched asynchronously, then probed
        model = ObjectiveModel(
            to_dataclass(ModelConfig, c.model, objective=objective, k=p.k, d_x=c.d_mixed, d_y=c.d_mixed)
        )
        keys = jax.random.split(jax.random.fold_in(k_train, i), c.seeds)
        trained[objective] = (model, train_seeds(model, loss_cfg, optim, trainer, steps, keys, xs, ys).params)
    out = {}
    for objective, (model, params) in trained.items():
        side, data = ("text", y) if objective == "gen_y2x" else ("image", x)
        r2 = probe_sweep(model, side)(params, data[fit], s[fit], data[test], s[test])
        out[objective] = float(np.mean(np.asarray(r2)))
    return out


def _fit(model, block, arrays, cfg, description):
    loop = LoopConfig(steps=block.steps, batch_size=block.batch_size, log_every=max(block.steps // 10, 1))
    loss_cfg = to_dataclass(LossConfig, block.loss)
    return fit_objective(
        model, loss_cfg, to_dataclass(OptimConfig, block.optim), loop, arrays, seed=cfg.seed, description=description
    )


def shapes_probe_r2(cfg: ml_collections.ConfigDict, variant: str) -> dict[str, float]:
    """V6 (b): MLP towers on ShapesCaptions per objective (``core.train.train_model``); held-out
    linear-probe R^2 of the semantic labels from the image embedding."""
    c = cfg.nonlinear.shapes
    train, fit_set, test = center_pairs(
        shapes_arrays(c, variant, c.n_train, cfg.seed),
        shapes_arrays(c, variant, c.n_probe, cfg.seed + 1),
        shapes_arrays(c, variant, c.n_probe, cfg.seed + 2),
    )
    gen_loss = to_dataclass(LossConfig, c.loss).gen_loss
    out = {}
    for objective in c.objectives:
        decoder_out = len(VOCAB) if objective == "gen_x2y" and gen_loss == "ce" else 0
        model = ObjectiveModel(
            to_dataclass(
                ModelConfig,
                c.model,
                objective=objective,
                k=c.k,
                d_x=train["x"].shape[1],
                d_y=train["y"].shape[1],
                decoder_out=decoder_out,
            )
        )
        arrays = {k: v for k, v in train.items() if k in ("x", "y", "tokens")}
        params = _fit(model, c, arrays, cfg, f"shapes {variant} {objective}").state.params
        r2 = probe_sweep(model, "image")(
            jax.tree.map(lambda a: a[None], params), fit_set["x"], fit_set["s"], test["x"], test["s"]
        )
        out[objective] = float(r2[0])
    return out


def features_retrieval(cfg: ml_collections.ConfigDict) -> dict[str, float]:
    """V6 (c): linear heads on precomputed features (train split), R@1 on the test split for text
    queries (t2i) and image queries (i2t), every caption of an image counting as its partner."""
    c = cfg.nonlinear.features
    root = cfg.nonlinear.features_root
    train, test = center_features(load_features(root, c.train_split), load_features(root, c.test_split))
    x, y = train.pairs()
    positives = jnp.asarray(test.positives())  # (images, captions)
    out = {}
    for objective in ("clip", "jepa_x2y", "jepa_y2x"):
        model = ObjectiveModel(
            to_dataclass(ModelConfig, c.model, objective=objective, k=c.k, d_x=x.shape[1], d_y=y.shape[1])
        )
        params = _fit(model, c, {"x": x, "y": y}, cfg, f"features {objective}").state.params
        zx = model.apply({"params": params}, jnp.asarray(test.img), method="encode_image")
        zy = model.apply({"params": params}, jnp.asarray(test.txt), method="encode_text")
        if objective == "clip":
            fx, fy = zx / jnp.linalg.norm(zx, axis=1, keepdims=True), zy / jnp.linalg.norm(zy, axis=1, keepdims=True)
            scores = fx @ fy.T
        else:
            if objective == "jepa_x2y":
                zx = model.apply({"params": params}, zx, method="predict")
            else:
                zy = model.apply({"params": params}, zy, method="predict")
            scores = -(jnp.sum(zx**2, 1)[:, None] - 2 * zx @ zy.T + jnp.sum(zy**2, 1)[None, :])
        out[f"t2i_{objective}"] = float(metrics.recall_at_k(scores.T, 1, positives=positives.T))
        out[f"i2t_{objective}"] = float(metrics.recall_at_k(scores, 1, positives=positives))
    return out


def summary(measured: dict[str, float]) -> dict[str, float]:
    """The quantities V6's full criterion reads (computed on every data source present)."""
    out = {}
    for source in ("planted", "shapes"):
        clean = [v for n, v in measured.items() if n.startswith(f"{source}_clean/")]
        cont = {n.split("/")[1]: v for n, v in measured.items() if n.startswith(f"{source}_contaminated/")}
        if clean:
            out[f"{source}_clean_min_r2"] = float(min(clean))
        if {"gen_x2y", "clip", "siglip"} <= set(cont):
            out[f"{source}_captioning_margin"] = float(cont["gen_x2y"] - max(cont["clip"], cont["siglip"]))
    if "real/t2i_jepa_x2y" in measured:
        out["real_t2i_margin"] = float(measured["real/t2i_jepa_x2y"] - measured["real/t2i_clip"])
        out["real_i2t_margin"] = float(measured["real/i2t_jepa_y2x"] - measured["real/i2t_clip"])
    return out


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """V6: quick = (a) as a report; full = (a) at scale, (b) ShapesCaptions and (c) real features (GPU)."""
    c = cfg.nonlinear
    if cfg.preset == "full" and jax.default_backend() == "cpu":
        raise ClaimSkipped("the full V6 experiment (towers on ShapesCaptions and real features) needs a GPU")
    measured: dict[str, Any] = {}
    for variant in ("clean", "contaminated"):
        r2 = planted_probe_r2(cfg, jax.random.fold_in(key, 0 if variant == "clean" else 1), variant)
        for objective, v in r2.items():
            measured[f"planted_{variant}/{objective}"] = v
    if cfg.preset == "full":
        for variant in ("clean", "contaminated"):
            for objective, v in shapes_probe_r2(cfg, variant).items():
                measured[f"shapes_{variant}/{objective}"] = v
        if not c.features_root:
            raise ClaimSkipped("V6 (c) needs precomputed features: set --config.nonlinear.features_root=<dir>")
        for name, v in features_retrieval(cfg).items():
            measured[f"real/{name}"] = v
    summ = summary(measured)
    return Measurement(
        measured={**summ, **measured},
        n=c.seeds,
        details={"preset": cfg.preset, "criterion_inputs": sorted(measured), "summary": summ},
        figures={"probe_r2": figure(measured)},
        captions={
            "probe_r2": "Clean bars should clear the dashed 0.7 for every objective; on contaminated data "
            "captioning's bar should stay high while CLIP's and SigLIP's drop (checked only in the full preset)."
        },
    )


def figure(measured: dict[str, float]):
    """V6 (a): held-out probe R^2 per objective, clean and contaminated."""
    fig, ax = plots.figure(width=5.0)
    names = sorted({n.split("/")[1] for n in measured if n.startswith("planted_")})
    for j, variant in enumerate(("clean", "contaminated")):
        vals = [measured.get(f"planted_{variant}/{n}", np.nan) for n in names]
        ax.bar(np.arange(len(names)) + 0.4 * j, vals, width=0.4, label=variant)
    ax.set_xticks(np.arange(len(names)) + 0.2, names, fontsize=7)
    ax.set_ylabel("held-out probe R² of s (image embedding)")
    ax.set_xlabel("objective")
    ax.axhline(0.7, ls="--", color="gray", lw=1, label="full-preset threshold 0.7 (clean)")
    ax.legend(fontsize=7)
    ax.set_title("V6 (a): planted data through random mixers, MLP towers", fontsize=8)
    return fig
