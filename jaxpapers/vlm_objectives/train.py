"""Training the objective models: one loss function per objective, the on-device seed trainer for the
simulations, and ``train(cfg, workdir)`` over the shared trainer for towers on real/synthetic data.

* :func:`make_loss_fn` — ``loss_fn(params, batch, key, *, train) -> (loss, aux)`` for the core
  trainers (batch: ``{"x", "y"}`` and, for token captioning, ``"tokens"``).
* :func:`seed_trainer` / :func:`train_seeds` — the V2/V6 (a) runs: ``core.train.make_seed_trainer``
  (one jitted ``lax.scan`` per run, vmapped over seeds) with parameter snapshots, so that objective gaps
  can be reported over training (spec Pitfalls: JEPA looks nuisance-robust early). Compiled once per
  (model, loss, optimiser, length) and shared between claims.
* :func:`fit_objective` and :func:`train` — towers through ``core.train.train_model`` (checkpoints,
  resume, metrics); ``train`` is ``jaxpapers train --config configs/vlm_objectives/nonlinear.py``.

The optimiser is ``core.train.make_optimizer``: Adam (AdamW with weight decay 0) whose rate is held,
then cosine-decayed to 0 over the last ``decay_frac`` of the steps (``stable_decay``). A rate that ends
at 0 is what makes stochastic training converge; decaying from the start slows the escape from the
early, signal-aligned saddle (spec Pitfalls; measurements in the README).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_choice
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import (
    FitResult,
    LoopConfig,
    OptimConfig,
    ScanFitResult,
    make_optimizer,
    make_seed_trainer,
    train_model,
    uniform_batch,
)
from jaxpapers.vlm_objectives import latent_model, losses
from jaxpapers.vlm_objectives.config import DATA_SOURCES, LossConfig, ModelConfig, SeedTrainConfig
from jaxpapers.vlm_objectives.data.features import center_features, load_features
from jaxpapers.vlm_objectives.data.shapes_captions import VOCAB, shapes_arrays
from jaxpapers.vlm_objectives.models import ObjectiveModel


def make_loss_fn(model: ObjectiveModel, loss_cfg: LossConfig) -> Callable[..., tuple[Array, dict[str, Array]]]:
    """The objective's exact loss as ``loss_fn(params, batch, key, *, train) -> (loss, aux)``."""
    obj = model.config.objective

    def loss_fn(params: Any, batch: Mapping[str, Array], key: jax.Array, *, train: bool):
        del key, train  # deterministic towers
        out = model.apply({"params": params}, batch["x"], batch["y"])
        if obj == "clip":
            return losses.infonce(out["zx"], out["zy"], 1.0 / loss_cfg.tau, loss_cfg.normalize), {}
        if obj == "siglip":
            loss = losses.sigmoid_pairwise(out["zx"], out["zy"], out["t"], out["b"])
            return loss, {"t": out["t"], "b": out["b"]}
        if obj.startswith("jepa"):
            return losses.jepa_l2(out["pred"], out["target"], loss_cfg.whiten_coef)
        target = batch["y"] if obj == "gen_x2y" else batch["x"]
        if loss_cfg.gen_loss == "ce":
            if obj != "gen_x2y" or "tokens" not in batch:
                raise ConfigError("loss.gen_loss='ce' needs objective gen_x2y and caption tokens in the batch")
            return losses.token_generation_ce(out["recon"], batch["tokens"]), {}
        return losses.token_generation_mse(out["recon"], target), {}

    return loss_fn


def init_params(model: ObjectiveModel, key: jax.Array, d_x: int, d_y: int) -> Any:
    """Unboxed initial parameters of ``model`` (the logical-axis metadata stripped)."""
    x = jnp.zeros((1, d_x), model.param_dtype)
    y = jnp.zeros((1, d_y), model.param_dtype)
    return nn.unbox(model.init(key, x, y))["params"]


@functools.cache
def seed_trainer(
    model: ObjectiveModel, loss_cfg: LossConfig, optim: OptimConfig, trainer: SeedTrainConfig, steps: int
) -> Callable[[jax.Array, dict[str, Array]], ScanFitResult]:
    """``core.train.make_seed_trainer`` for ``model``: a jitted ``run(keys [S], {"x": [S, N, D], "y": [S, N, E]})``
    training one model per seed by Adam on minibatches drawn with replacement (cached per configuration)."""
    return make_seed_trainer(
        lambda key, data: init_params(model, key, data["x"].shape[-1], data["y"].shape[-1]),
        make_loss_fn(model, loss_cfg),
        make_optimizer(optim, steps),
        uniform_batch(trainer.batch_size),
        steps=steps,
        snapshots=trainer.snapshots,
        chunk_size=trainer.chunk_size,
    )


def train_seeds(
    model: ObjectiveModel,
    loss_cfg: LossConfig,
    optim: OptimConfig,
    trainer: SeedTrainConfig,
    steps: int,
    keys: jax.Array,
    x: Float[Array, "S N D"],
    y: Float[Array, "S N E"],
) -> ScanFitResult:
    """Trains one model per seed (``keys``: (S,), data (S, N, ·)); returns the final parameters, the loss
    at every step ``[S, steps]`` and ``trainer.snapshots`` parameter snapshots (leading dims (S, T), the
    last one final). Randomness per seed: ``init, state, data = split(key, 3)`` (core)."""
    if x.ndim != 3 or y.ndim != 3 or x.shape[:2] != y.shape[:2] or keys.shape != x.shape[:1]:
        raise ConfigError(
            f"train_seeds needs keys (S,), x (S, N, D), y (S, N, E); got {keys.shape}, {x.shape}, {y.shape}"
        )
    if x.shape[1] < trainer.batch_size:
        raise ConfigError(f"batch_size={trainer.batch_size} exceeds the {x.shape[1]} training pairs")
    if steps % trainer.snapshots:
        raise ConfigError(f"steps={steps} is not a multiple of snapshots={trainer.snapshots}")
    return seed_trainer(model, loss_cfg, optim, trainer, steps)(keys, {"x": x, "y": y})


def linear_encoders(params: Any, objective: str) -> dict[str, Array]:
    """Encoder matrices of linear towers (any leading batch dims): ``W_img`` (k, d_x), ``W_txt``
    (k, d_y), the JEPA ``predictor`` (k, k) and context/target roles, the generation ``decoder``.

    For JEPA, ``W_img``/``W_txt`` of the *context* modality is predictor∘encoder (``W' = P W``, the
    spec's representation) and ``context`` holds the bare context encoder.
    """
    t = lambda a: jnp.swapaxes(a, -1, -2)  # Dense computes z @ kernel
    out: dict[str, Array] = {}
    if "img" in params:
        out["W_img"] = t(params["img"]["proj"]["kernel"])
    if "txt" in params:
        out["W_txt"] = t(params["txt"]["proj"]["kernel"])
    if objective.startswith("jepa"):
        p = t(params["predictor"]["P"]["kernel"])
        out["predictor"] = p
        ctx = "W_img" if objective == "jepa_x2y" else "W_txt"
        out["context"] = out[ctx]
        out[ctx] = p @ out[ctx]
    if objective.startswith("gen"):
        out["decoder"] = t(params["decoder"]["D"]["kernel"])
    if objective == "siglip":
        out["t"], out["b"] = jnp.exp(params["log_t"]), params["b"]
    return out


# --------------------------------------------------------------------------------------------------
# Towers on real or synthetic data through the shared trainer (core.train.train_model)
# --------------------------------------------------------------------------------------------------


def center_pairs(train: Mapping[str, np.ndarray], *others: Mapping[str, np.ndarray]) -> list[dict[str, np.ndarray]]:
    """``train`` and ``others`` with ``x`` and ``y`` centered on the training means (spec Pitfalls)."""
    mx, my = train["x"].mean(0), train["y"].mean(0)
    return [{**a, "x": a["x"] - mx, "y": a["y"] - my} for a in (train, *others)]


def fit_objective(
    model: ObjectiveModel,
    loss_cfg: LossConfig,
    optim: OptimConfig,
    loop: LoopConfig,
    arrays: Mapping[str, ArrayLike],
    *,
    seed: int,
    workdir: str | None = None,
    mesh: jax.sharding.Mesh | None = None,
    rules: Any = None,
    progress: bool = False,
    description: str | None = None,
) -> FitResult:
    """Trains ``model`` on ``arrays`` (``{"x", "y"[, "tokens"]}``, centered) with ``core.train.train_model``:
    shuffled repeated grain batches of ``loop.batch_size``, Adam with ``optim``'s schedule over
    ``loop.steps``, checkpoints/resume in ``workdir``."""
    x0 = jnp.zeros((1, np.shape(arrays["x"])[1]), jnp.float32)
    y0 = jnp.zeros((1, np.shape(arrays["y"])[1]), jnp.float32)
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    return train_model(
        lambda k: model.init(k, x0, y0)["params"],
        make_loss_fn(model, loss_cfg),
        make_optimizer(optim, loop.steps),
        train_batches(ArraySource(arrays), loop.batch_size, seed=seed),
        loop=loop,
        key=jax.random.key(seed),
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        model_config=model.config,
        progress=progress,
        description=description or model.config.objective,
    )


def train(
    cfg: Any, workdir: str | None, *, mesh: jax.sharding.Mesh | None = None, rules: Any = None, progress: bool = True
) -> FitResult:
    """``jaxpapers train --config configs/vlm_objectives/nonlinear.py``: the towers of ``cfg.task.objective``
    on the data ``cfg.task.data`` names (planted through random mixers, ShapesCaptions, or features under
    ``cfg.nonlinear.features_root``) with ``core.train.train_model`` for ``cfg.train`` (a
    ``core.train.LoopConfig``); ``rules`` come from ``launch/`` (``cfg.rules_family``); resumes from
    ``workdir``."""
    if "task" not in cfg or "nonlinear" not in cfg:
        raise ConfigError(
            "this vlm_objectives config configures claims only: use `jaxpapers verify vlm_objectives`; "
            "`jaxpapers train` takes configs/vlm_objectives/nonlinear.py"
        )
    t = cfg.task
    check_choice("task.data", t.data, DATA_SOURCES)
    nl = cfg.nonlinear
    if t.data == "shapes":
        block = nl.shapes
        arrays = center_pairs(shapes_arrays(block, t.variant, block.n_train, cfg.seed))[0]
    elif t.data == "features":
        block = nl.features
        (feats,) = center_features(load_features(nl.features_root, block.train_split))
        x, y = feats.pairs()
        arrays = {"x": x, "y": y}
    else:
        block = nl
        p = latent_model.planted_from_config(cfg.planted[t.variant], jnp.float32)
        k_rot, k_data = jax.random.split(jax.random.key(cfg.seed))
        cov = jax.jit(latent_model.planted_covariances)(p, k_rot)
        x, y, _ = latent_model.mixed_sampler(nl.n, nl.mixer_hidden, nl.d_mixed)(p, cov, k_data)
        arrays = center_pairs({"x": np.asarray(x), "y": np.asarray(y)})[0]
    loss_cfg = to_dataclass(LossConfig, block.loss)
    gen_ce = t.objective == "gen_x2y" and loss_cfg.gen_loss == "ce"
    k = block.k if "k" in block else cfg.planted[t.variant].k
    model = ObjectiveModel(
        to_dataclass(
            ModelConfig,
            block.model,
            objective=t.objective,
            k=k,
            d_x=arrays["x"].shape[1],
            d_y=arrays["y"].shape[1],
            decoder_out=len(VOCAB) if gen_ce else 0,
        )
    )
    return fit_objective(
        model,
        loss_cfg,
        to_dataclass(OptimConfig, block.optim),
        to_dataclass(LoopConfig, cfg.train),
        {k_: v for k_, v in arrays.items() if k_ in ("x", "y", "tokens")},
        seed=cfg.seed,
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        progress=progress,
        description=f"{t.data} {t.objective}",
    )
