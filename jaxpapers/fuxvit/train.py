"""Training FuxViT through the shared trainer: joint MAE pretraining and the synthetic classification tasks.

``train(cfg, workdir, *, mesh)`` is the entry point of ``jaxpapers train`` for every
``configs/fuxvit/*.py`` that trains (``cfg.task`` = ``pretrain`` or ``classify``). Losses are pure
``loss_fn(params, batch, key, *, train)`` functions; batches are numpy dicts from grain with uint8
pixels (converted to [0, 1] floats on device).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax

from jaxpapers.core import config as config_lib
from jaxpapers.core.checks import check_choice
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import FitResult, fit, init_state, make_train_step
from jaxpapers.fuxvit import data as data_lib
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.config import FuxViTConfig, MAEConfig, visible_count
from jaxpapers.fuxvit.losses import classification_loss, mae_loss
from jaxpapers.fuxvit.mae import FuxViTMAE, tube_mask
from jaxpapers.fuxvit.model import FuxViTClassifier
from jaxpapers.launch import rules as rules_lib

TASKS = ("pretrain", "classify")


def model_config(cfg: ml_collections.ConfigDict) -> FuxViTConfig:
    """The encoder config from ``cfg.model`` (every FuxViTConfig field, validated)."""
    return config_lib.to_dataclass(FuxViTConfig, cfg.model)


def _fields(c: Any) -> dict[str, Any]:
    return dataclasses.asdict(c)


def make_optimizer(optim: ml_collections.ConfigDict, steps: int) -> optax.GradientTransformation:
    """AdamW (β = 0.9, 0.95 by default) with linear warm-up over ``warmup_frac`` of the steps, cosine decay
    and global-norm clipping (spec "Optimiser")."""
    warmup = max(1, int(optim.warmup_frac * steps))
    # The warm-up starts at lr/warmup (not 0), so that every step, the first included, moves the params.
    schedule = optax.warmup_cosine_decay_schedule(optim.lr / warmup, optim.lr, warmup, max(steps, warmup + 1))
    return optax.chain(
        optax.clip_by_global_norm(optim.clip),
        optax.adamw(schedule, b1=optim.b1, b2=optim.b2, weight_decay=optim.weight_decay),
    )


def pixels_of(batch: dict[str, Any]) -> jax.Array:
    """uint8 pixels → float32 in [0, 1] (float inputs pass through)."""
    x = jnp.asarray(batch["pixels"])
    return x.astype(jnp.float32) / 255.0 if x.dtype == jnp.uint8 else x.astype(jnp.float32)


# --------------------------------------------------------------------------------------------------
# Pretraining (joint image/video MAE)
# --------------------------------------------------------------------------------------------------


def mae_loss_fn(model: FuxViTMAE):
    """Masked-tubelet MSE with a fresh per-row tube mask from the step key."""
    enc = model.encoder

    def compute(params: Any, batch: dict[str, Any], key: jax.Array, *, train: bool):
        del train  # no dropout
        pixels = pixels_of(batch)
        b, f, h, w, _ = pixels.shape
        p = (h // enc.patch) * (w // enc.patch)
        visible = tube_mask(key, b, p, model.mae.mask_ratio)
        valid, seg = batch.get("frame_valid"), batch.get("frame_seg")
        out = model.apply({"params": params}, pixels, visible, valid, seg)
        loss = mae_loss(
            out["pred"], pixels, visible, valid, tubelet=enc.tubelet, patch=enc.patch, norm_pix=model.mae.norm_pix_loss
        )
        aux = {"mask_ratio": jnp.asarray(1.0 - visible.shape[1] / p, jnp.float32)}
        if out["sel"] is not None:
            aux["routing_entropy"] = routing.routing_entropy(out["sel"][0], f // enc.tubelet)
        return loss, aux

    return compute


def pretraining_data(cfg: ml_collections.ConfigDict, enc: FuxViTConfig) -> dict[str, np.ndarray]:
    """Packed image/video rows (``cfg.data``) as numpy arrays."""
    d = cfg.data
    p = (d.size // enc.patch) ** 2
    frames_per_row = max(1, d.token_budget // p)
    return data_lib.pretraining_rows(
        d.num_rows,
        frames_per_row=frames_per_row,
        video_frames=d.video_frames,
        tubelet=enc.tubelet,
        size=d.size,
        mix=d.mix,
        image_fraction=d.image_fraction,
        images=tuple(d.images),
        seed=cfg.seed,
    )


# --------------------------------------------------------------------------------------------------
# Classification tasks (needle frames, motion direction)
# --------------------------------------------------------------------------------------------------


def classify_loss_fn(model: FuxViTClassifier):
    def compute(params: Any, batch: dict[str, Any], key: jax.Array, *, train: bool):
        del key, train
        logits, _ = model.apply({"params": params}, pixels_of(batch))
        loss, acc = classification_loss(logits, batch["label"])
        return loss, {"accuracy": acc}

    return compute


def task_data(cfg: ml_collections.ConfigDict, n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` examples of ``cfg.data.task`` as ``{"pixels", "label", ...}`` numpy arrays."""
    d = cfg.data
    if d.task == "needle_frames":
        raw = data_lib.needle_frames(
            n, frames=d.frames, tubelet=d.tubelet, size=d.size, patch=d.patch, style=d.style, seed=seed
        )
        return {"pixels": raw["video"], "label": raw["label"], "needle_frame": raw["needle_frame"]}
    if d.task == "moving_shapes":
        raw = data_lib.moving_shapes(
            n, frames=d.frames, size=d.size, min_speed=d.min_speed, radius=tuple(d.radius), seed=seed
        )
        return {"pixels": raw["video"], "label": raw["direction"]}
    raise ConfigError(f"data.task={d.task!r} is not allowed; choose 'needle_frames' or 'moving_shapes'")


def classifier(cfg: ml_collections.ConfigDict) -> FuxViTClassifier:
    return FuxViTClassifier(model_config(cfg), num_classes=cfg.data.num_classes, pool=cfg.data.pool)


def param_key(key: jax.Array) -> jax.Array:
    """An ``rbg`` key for parameter initialisation, derived from ``key`` without any computation.

    Every initialiser call is a separate random-bits op; with threefry each compiles to a large
    unrolled kernel (≈ 0.2 s of XLA CPU compile each), with ``rbg`` to XLA's RngBitGenerator. Values
    differ from threefry's, and may differ between shardings: sharded runs that must match a
    single-device run copy the params (see ``sharded.py``).
    """
    return jax.random.wrap_key_data(jnp.tile(jax.random.key_data(key), 2), impl="rbg")


def init_fn(cfg: ml_collections.ConfigDict, arrays: dict[str, np.ndarray]):
    """``init(key) -> params`` (logically annotated) of the model of ``cfg`` for inputs like ``arrays``;
    the key is turned into an ``rbg`` key (:func:`param_key`)."""
    enc = model_config(cfg)
    if cfg.task == "classify":
        model = classifier(cfg)
        x = pixels_of({"pixels": arrays["pixels"][:1]})
        return lambda key: model.init(param_key(key), x)["params"]
    model = FuxViTMAE(enc, config_lib.to_dataclass(MAEConfig, cfg.mae))
    ex = {k: jnp.asarray(v[:1]) for k, v in arrays.items() if k in ("pixels", "frame_valid", "frame_seg")}
    p = (arrays["pixels"].shape[2] // enc.patch) * (arrays["pixels"].shape[3] // enc.patch)
    vis = jnp.arange(visible_count(p, model.mae.mask_ratio), dtype=jnp.int32)[None]
    return lambda key: model.init(param_key(key), pixels_of(ex), vis, ex["frame_valid"], ex["frame_seg"])["params"]


def init_params(cfg: ml_collections.ConfigDict, arrays: dict[str, np.ndarray]) -> Any:
    """Initial params (unsharded) of the model of ``cfg``, with the key ``train`` would use.

    For ``classify`` every attention impl has the same param tree, so claims train several impls from
    the same initial params.
    """
    param_rng, _ = jax.random.split(jax.random.key(cfg.seed))  # as init_state splits its key
    return jax.jit(init_fn(cfg, arrays))(param_rng)


def evaluate_classifier(
    model: FuxViTClassifier, params: Any, data: dict[str, np.ndarray], batch_size: int = 256
) -> dict[str, Any]:
    """Accuracy on ``data`` and, for routed models, every layer's selections ``sel`` [L, B, N, T, K]."""
    apply = jax.jit(lambda p, x: model.apply({"params": p}, x.astype(jnp.float32) / 255.0))
    logits, sels = [], []
    for i in range(0, len(data["label"]), batch_size):  # bounded-memory eval over fixed-size chunks
        lg, sel = apply(params, jnp.asarray(data["pixels"][i : i + batch_size]))
        logits.append(np.asarray(lg))
        sels.append(None if sel is None else np.asarray(sel))
    logits = np.concatenate(logits)
    acc = float(np.mean(np.argmax(logits, -1) == data["label"]))
    return {"accuracy": acc, "sel": None if sels[0] is None else np.concatenate(sels, axis=1)}


# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


def train(
    cfg: ml_collections.ConfigDict,
    workdir: str | None,
    *,
    mesh: jax.sharding.Mesh | None = None,
    progress: bool = True,
    data: dict[str, np.ndarray] | None = None,
    eval_data: dict[str, np.ndarray] | None = None,
    params: Any = None,
    evaluate: bool = True,
) -> FitResult:
    """Trains the model of ``cfg`` (``cfg.task``: ``pretrain`` or ``classify``) with ``core.train.fit``.

    ``data``/``eval_data`` override the generated arrays and ``params`` the initial params (claims train
    several models on one data set from one initialisation); ``evaluate=False`` skips the held-out
    evaluation inside ``fit``. Resumes from ``workdir`` when it holds a checkpoint of the same model.
    """
    if "task" not in cfg:
        raise ConfigError("this fuxvit config configures claims only (it has no 'task'); use `jaxpapers verify`")
    check_choice("task", cfg.task, TASKS)
    enc = model_config(cfg)
    rules = rules_lib.get("fuxvit", cfg.strategy)
    t = cfg.train
    tx = make_optimizer(cfg.optim, t.steps)
    if cfg.task == "pretrain":
        model = FuxViTMAE(enc, config_lib.to_dataclass(MAEConfig, cfg.mae))
        arrays = data if data is not None else pretraining_data(cfg, enc)
        loss_fn = mae_loss_fn(model)
        eval_fn = None
        batch_keys = ("pixels", "frame_valid", "frame_seg")
    else:
        model = classifier(cfg)
        arrays = data if data is not None else task_data(cfg, cfg.data.num_train, cfg.seed)
        loss_fn = classify_loss_fn(model)
        eval_fn = None
        if evaluate and t.eval_every:
            held_out = eval_data if eval_data is not None else task_data(cfg, cfg.data.num_eval, cfg.seed + 1)
            eval_batch = {"pixels": jnp.asarray(held_out["pixels"]), "label": jnp.asarray(held_out["label"])}
            # The batch is an argument, not a closure: XLA would constant-fold a captured array.
            eval_step = jax.jit(lambda prm, batch: loss_fn(prm, batch, jax.random.key(0), train=False))

            def eval_fn(state) -> dict[str, Any]:
                loss, aux = eval_step(state.params, eval_batch)
                return {"loss": loss, **aux}

        batch_keys = ("pixels", "label")

    init = init_fn(cfg, arrays) if params is None else (lambda key: params)
    batches = train_batches(ArraySource({k: arrays[k] for k in batch_keys}), t.batch_size, seed=cfg.seed)
    state, shardings = init_state(init, tx, jax.random.key(cfg.seed), mesh=mesh, rules=rules)
    return fit(
        state,
        make_train_step(loss_fn, tx),
        batches,
        num_steps=t.steps,
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        shardings=shardings,
        log_every=t.log_every,
        ckpt_every=t.ckpt_every,
        eval_fn=eval_fn,
        eval_every=t.eval_every or None,
        model_config={"model": _fields(enc), "task": cfg.task},
        progress=progress,
        description=f"fuxvit {cfg.task}",
    )
