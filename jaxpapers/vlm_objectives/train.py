"""Training the objective models: one loss function per objective, a vmapped scan trainer for the
simulations, and ``train(cfg, workdir)`` over the shared trainer for towers on real/synthetic data.

* :func:`make_loss_fn` — ``loss_fn(params, batch, key, *, train) -> (loss, aux)`` for
  ``core.train.make_train_step`` (batch: ``{"x", "y"}`` and, for token captioning, ``"tokens"``).
* :func:`scan_train` — the quick V2/V6 runs: one optax step (``core.train.make_train_step``) in a
  jitted ``lax.scan``, vmapped over seeds with ``core.sim.vmap_chunked``; parameters are snapshotted
  along the way so that objective gaps can be reported over training (spec Pitfalls: JEPA looks
  nuisance-robust early). Compiled once per (model, losses, optimiser) and shared between claims.
* :func:`train` — ``jaxpapers train --config configs/vlm_objectives/nonlinear.py``: towers trained by
  ``core.train.fit`` (checkpoints, resume, metrics) on planted, ShapesCaptions or feature data.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, Float

from jaxpapers.core import sim
from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import TrainState, make_train_step
from jaxpapers.vlm_objectives import latent_model, losses
from jaxpapers.vlm_objectives.models import ModelConfig, ObjectiveModel


@dataclasses.dataclass(frozen=True)
class LossConfig:
    """Loss hyperparameters: InfoNCE temperature and normalisation, JEPA whitening, generation loss."""

    tau: float = 5.0
    normalize: bool = False
    whiten_coef: float = 10.0
    gen_loss: str = "mse"  # mse on feature targets | ce on caption tokens (batch["tokens"])

    def __post_init__(self):
        check_range("loss.tau", self.tau, 0.0, lo_open=True)
        check_range("loss.whiten_coef", self.whiten_coef, 0.0)
        check_choice("loss.gen_loss", self.gen_loss, ("mse", "ce"))


@dataclasses.dataclass(frozen=True)
class OptimConfig:
    """Adam; ``schedule``: constant, cosine (decay to 0 over all steps) or ``stable_decay`` (constant,
    then a cosine to 0 over the last ``decay_fraction`` of the steps); ``snapshots`` evenly spaced
    parameter snapshots (scan trainer)."""

    steps: int = 1000
    batch_size: int = 512
    lr: float = 1e-2
    schedule: str = "stable_decay"
    decay_fraction: float = 0.3
    snapshots: int = 1

    def __post_init__(self):
        check_range("steps", self.steps, 1)
        check_range("batch_size", self.batch_size, 2)
        check_range("lr", self.lr, 0.0, lo_open=True)
        check_choice("schedule", self.schedule, ("constant", "cosine", "stable_decay"))
        check_range("decay_fraction", self.decay_fraction, 0.0, 1.0, lo_open=True)
        check_range("snapshots", self.snapshots, 1, self.steps)
        if self.steps % self.snapshots:
            raise ConfigError(f"steps={self.steps} is not a multiple of snapshots={self.snapshots}")


def make_loss_fn(model: ObjectiveModel, loss_cfg: LossConfig):
    """The objective's exact loss as ``loss_fn(params, batch, key, *, train) -> (loss, aux)``."""
    obj = model.config.objective

    def loss_fn(params: Any, batch: dict[str, Array], key: jax.Array, *, train: bool):
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


def make_optimizer(optim: OptimConfig) -> optax.GradientTransformation:
    """Adam at ``optim.lr`` with the configured schedule.

    A rate that ends at 0 is what makes stochastic training *converge*: at a constant 1e-2 Adam hovers
    in a noise ball around the optimum (subspace distance 0.06-0.16 on the contaminated image side),
    while decaying from the start slows the escape from the early, signal-aligned saddle (spec
    Pitfalls); ``stable_decay`` keeps the rate constant and decays it over the last part.
    """
    if optim.schedule == "constant":
        return optax.adam(optim.lr)
    if optim.schedule == "cosine":
        return optax.adam(optax.cosine_decay_schedule(optim.lr, optim.steps))
    decay = max(int(round(optim.decay_fraction * optim.steps)), 1)
    schedule = optax.join_schedules(
        [optax.constant_schedule(optim.lr), optax.cosine_decay_schedule(optim.lr, decay)], [optim.steps - decay]
    )
    return optax.adam(schedule)


def init_params(model: ObjectiveModel, key: jax.Array, d_x: int, d_y: int) -> Any:
    """Unboxed initial parameters of ``model`` (the logical-axis metadata stripped)."""
    x = jnp.zeros((1, d_x), model.param_dtype)
    y = jnp.zeros((1, d_y), model.param_dtype)
    return nn.unbox(model.init(key, x, y))["params"]


@functools.cache
def _scan_runner(model: ObjectiveModel, loss_cfg: LossConfig, optim: OptimConfig, chunk_size: int | None):
    loss_fn = make_loss_fn(model, loss_cfg)
    tx = make_optimizer(optim)
    step = make_train_step(loss_fn, tx)
    per_snapshot = optim.steps // optim.snapshots

    def one_seed(key: jax.Array, x: Array, y: Array):
        k_init, k_data, k_state = jax.random.split(key, 3)
        params = init_params(model, k_init, x.shape[-1], y.shape[-1])
        state = TrainState(
            step=jnp.zeros((), jnp.int32), params=params, opt_state=tx.init(params), rng=jax.random.key_data(k_state)
        )
        n = x.shape[0]

        def inner(state: TrainState, _):
            idx = jax.random.randint(jax.random.fold_in(k_data, state.step), (optim.batch_size,), 0, n)
            state, metrics = step(state, {"x": x[idx], "y": y[idx]})
            return state, metrics["loss"]

        def outer(state: TrainState, _):
            state, seg_losses = jax.lax.scan(inner, state, length=per_snapshot)
            return state, (state.params, jnp.mean(seg_losses))

        _, (snaps, seg_loss) = jax.lax.scan(outer, state, length=optim.snapshots)
        return snaps, seg_loss

    return jax.jit(lambda keys, xs, ys: sim.vmap_chunked(one_seed, keys, xs, ys, chunk_size=chunk_size))


def scan_train(
    model: ObjectiveModel,
    loss_cfg: LossConfig,
    optim: OptimConfig,
    keys: jax.Array,
    x: Float[Array, "S N D"],
    y: Float[Array, "S N E"],
    *,
    chunk_size: int | None = None,
) -> tuple[Any, Float[Array, "S T"]]:
    """Trains one model per seed (``keys``: (S,), data (S, N, ·)) by Adam on minibatches drawn with
    replacement; returns parameter snapshots (leading dims (S, T), T = ``optim.snapshots``, the last
    one final) and the mean loss over each segment.

    One jitted computation: ``vmap`` over seeds (chunked by ``chunk_size``) of a ``lax.scan`` over
    snapshots of a ``lax.scan`` over steps of ``core.train.make_train_step``'s step.
    """
    if x.ndim != 3 or y.ndim != 3 or x.shape[:2] != y.shape[:2] or keys.shape != x.shape[:1]:
        raise ConfigError(
            f"scan_train needs keys (S,), x (S, N, D), y (S, N, E); got {keys.shape}, {x.shape}, {y.shape}"
        )
    if x.shape[1] < optim.batch_size:
        raise ConfigError(f"batch_size={optim.batch_size} exceeds the {x.shape[1]} training pairs")
    return _scan_runner(model, loss_cfg, optim, chunk_size)(keys, x, y)


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
# Towers on real or synthetic data through the shared trainer (core.train.fit)
# --------------------------------------------------------------------------------------------------

DATA_SOURCES: tuple[str, ...] = ("planted", "shapes", "features")


def fit_objective(
    model: ObjectiveModel,
    loss_cfg: LossConfig,
    optim: OptimConfig,
    arrays: dict[str, np.ndarray],
    *,
    seed: int,
    workdir: str | None = None,
    mesh: jax.sharding.Mesh | None = None,
    strategy: str = "dp",
    log_every: int = 100,
    ckpt_every: int | None = None,
    progress: bool = False,
    description: str | None = None,
):
    """Trains ``model`` on ``arrays`` (``{"x", "y"[, "tokens"]}``, centered) with ``core.train.fit``:
    shuffled repeated grain batches, Adam with ``optim``'s schedule, checkpoints/resume in ``workdir``."""
    from jaxpapers.core.data import ArraySource, train_batches
    from jaxpapers.core.train import fit, init_state
    from jaxpapers.launch import rules as rules_lib

    rules = rules_lib.get("transformer", strategy)
    tx = make_optimizer(optim)
    x0 = jnp.zeros((1, arrays["x"].shape[1]), jnp.float32)
    y0 = jnp.zeros((1, arrays["y"].shape[1]), jnp.float32)
    state, shardings = init_state(
        lambda k: model.init(k, x0, y0)["params"], tx, jax.random.key(seed), mesh=mesh, rules=rules
    )
    batches = train_batches(ArraySource(arrays), optim.batch_size, seed=seed)
    return fit(
        state,
        make_train_step(make_loss_fn(model, loss_cfg), tx),
        batches,
        num_steps=optim.steps,
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        shardings=shardings,
        log_every=log_every,
        ckpt_every=ckpt_every,
        model_config=model.config,
        progress=progress,
        description=description or model.config.objective,
    )


def shapes_arrays(c: Any, variant: str, n: int, seed: int) -> dict[str, np.ndarray]:
    """ShapesCaptions as towers' inputs: flattened pixels ``x``, bag-of-words ``y``, caption ``tokens``
    and the one-hot semantic labels ``s`` (probe targets). Clean: style words independent of the image
    style; contaminated: they agree (``p_spurious``) and the style pattern is strong."""
    from jaxpapers.vlm_objectives.data.shapes_captions import bag_of_words, make_shapes_captions, semantic_targets

    check_choice("variant", variant, ("clean", "contaminated"))
    clean = variant == "clean"
    d = make_shapes_captions(
        n,
        seed=seed,
        p_spurious=0.0 if clean else c.p_spurious,
        style_amplitude=c.style_amplitude_clean if clean else c.style_amplitude,
        img_size=c.img_size,
    )
    return {
        "x": d["images"].reshape(n, -1),
        "y": bag_of_words(d["tokens"]),
        "tokens": d["tokens"],
        "s": semantic_targets(d),
    }


def _center(train: dict[str, np.ndarray], *others: dict[str, np.ndarray]) -> list[dict[str, np.ndarray]]:
    mx, my = train["x"].mean(0), train["y"].mean(0)
    return [{**a, "x": a["x"] - mx, "y": a["y"] - my} for a in (train, *others)]


def shapes_probe_r2(cfg: Any, variant: str, *, progress: bool = False) -> dict[str, float]:
    """V6 (b): MLP towers on ShapesCaptions per objective (``core.train.fit``); held-out linear-probe R^2
    of the semantic labels from the image embedding."""
    from jaxpapers.core.config import to_dataclass
    from jaxpapers.vlm_objectives import metrics
    from jaxpapers.vlm_objectives.data.shapes_captions import VOCAB

    c = cfg.nonlinear.shapes
    train, fit_set, test = _center(
        shapes_arrays(c, variant, c.n_train, cfg.seed),
        shapes_arrays(c, variant, c.n_probe, cfg.seed + 1),
        shapes_arrays(c, variant, c.n_probe, cfg.seed + 2),
    )
    loss_cfg = to_dataclass(LossConfig, c.loss)
    out = {}
    for objective in c.objectives:
        gen_ce = objective == "gen_x2y" and loss_cfg.gen_loss == "ce"
        model = ObjectiveModel(
            to_dataclass(
                ModelConfig,
                c.model,
                objective=objective,
                k=c.k,
                d_x=train["x"].shape[1],
                d_y=train["y"].shape[1],
                decoder_out=len(VOCAB) if gen_ce else 0,
            )
        )
        arrays = {k: v for k, v in train.items() if k in ("x", "y", "tokens")}
        result = fit_objective(
            model,
            loss_cfg,
            to_dataclass(OptimConfig, c.optim),
            arrays,
            seed=cfg.seed,
            progress=progress,
            description=f"shapes {variant} {objective}",
        )
        enc = jax.jit(lambda p, x, model=model: model.apply({"params": p}, x, method="encode_image"))
        params = result.state.params
        out[objective] = float(
            metrics.probe_r2(enc(params, fit_set["x"]), fit_set["s"], enc(params, test["x"]), test["s"])
        )
    return out


def features_retrieval(cfg: Any, *, progress: bool = False) -> dict[str, float]:
    """V6 (c): linear heads on precomputed features (train split), R@1 on the test split for text
    queries (t2i) and image queries (i2t), every caption of an image counting as its partner."""
    from jaxpapers.core.config import to_dataclass
    from jaxpapers.vlm_objectives import metrics
    from jaxpapers.vlm_objectives.data.features import center_features, load_features

    c = cfg.nonlinear.features
    root = cfg.nonlinear.features_root
    train, test = center_features(load_features(root, c.train_split), load_features(root, c.test_split))
    x, y = train.pairs()
    loss_cfg = to_dataclass(LossConfig, c.loss)
    positives = jnp.asarray(test.positives())  # (images, captions)
    out = {}
    for objective in ("clip", "jepa_x2y", "jepa_y2x"):
        model = ObjectiveModel(
            to_dataclass(ModelConfig, c.model, objective=objective, k=c.k, d_x=x.shape[1], d_y=y.shape[1])
        )
        result = fit_objective(
            model,
            loss_cfg,
            to_dataclass(OptimConfig, c.optim),
            {"x": x, "y": y},
            seed=cfg.seed,
            progress=progress,
            description=f"features {objective}",
        )
        params = result.state.params
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


def train(cfg: Any, workdir: str | None, *, mesh: jax.sharding.Mesh | None = None, progress: bool = True):
    """``jaxpapers train --config configs/vlm_objectives/nonlinear.py``: one objective's towers on the
    data named by ``cfg.train`` (planted through random mixers, ShapesCaptions, or features under
    ``cfg.nonlinear.features_root``) with ``core.train.fit``; resumes from ``workdir``."""
    from jaxpapers.core.config import to_dataclass

    if "train" not in cfg or "nonlinear" not in cfg:
        raise ConfigError(
            "this vlm_objectives config configures claims only: use `jaxpapers verify vlm_objectives`; "
            "`jaxpapers train` takes configs/vlm_objectives/nonlinear.py"
        )
    t = cfg.train
    check_choice("train.data", t.data, DATA_SOURCES)
    nl = cfg.nonlinear
    if t.data == "shapes":
        c = nl.shapes
        arrays = _center(shapes_arrays(c, t.variant, c.n_train, cfg.seed))[0]
        block = c
    elif t.data == "features":
        from jaxpapers.vlm_objectives.data.features import center_features, load_features

        c = nl.features
        (feats,) = center_features(load_features(nl.features_root, c.train_split))
        x, y = feats.pairs()
        arrays, block = {"x": x, "y": y}, c
    else:
        from jaxpapers.vlm_objectives import experiments

        p = experiments.planted_from_config(cfg.planted[t.variant], jnp.float32)
        k_rot, k_data = jax.random.split(jax.random.key(cfg.seed))
        cov = jax.jit(latent_model.planted_covariances)(p, k_rot)
        x, y, _ = experiments._mixed_sampler(nl.n, nl.mixer_hidden, nl.d_mixed)(p, cov, k_data)
        arrays = _center({"x": np.asarray(x), "y": np.asarray(y)})[0]
        block = nl
    loss_cfg = to_dataclass(LossConfig, block.loss)
    gen_ce = t.objective == "gen_x2y" and loss_cfg.gen_loss == "ce"
    from jaxpapers.vlm_objectives.data.shapes_captions import VOCAB

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
    steps = block.steps[t.objective] if "steps" in block and t.objective in block.steps else block.optim.steps
    optim = to_dataclass(OptimConfig, block.optim, steps=steps, snapshots=1)
    arrays = {k_: v for k_, v in arrays.items() if k_ in ("x", "y", "tokens")}
    return fit_objective(
        model,
        loss_cfg,
        optim,
        arrays,
        seed=cfg.seed,
        workdir=workdir,
        mesh=mesh,
        strategy=t.strategy,
        log_every=t.log_every,
        ckpt_every=t.ckpt_every,
        progress=progress,
        description=f"{t.data} {t.objective}",
    )
