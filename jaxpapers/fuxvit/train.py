"""Training FuxViT through the shared recipe: joint MAE pretraining and the synthetic classification tasks.

``train(cfg, workdir, *, mesh, rules)`` is the entry point of ``jaxpapers train`` for every
``configs/fuxvit/*.py`` that trains (``cfg.task`` = ``pretrain`` or ``classify``); ``launch`` passes
the mesh and the rules of ``cfg.rules_family`` / ``cfg.strategy``. Losses are pure
``loss_fn(params, batch, key, *, train)`` functions; batches are numpy dicts from grain with uint8
pixels (converted to [0, 1] floats on device). The optimizer is ``core.train.make_optimizer`` on the
``optim`` group, the loop ``core.train.train_model`` on the ``train`` group.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import grain
import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import config as config_lib
from jaxpapers.core.checks import check_choice
from jaxpapers.core.data import ArraySource, for_process, train_batches
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.sharding import Rules
from jaxpapers.core.train import FitResult, LoopConfig, OptimConfig, make_optimizer, train_model
from jaxpapers.fuxvit import data as data_lib
from jaxpapers.fuxvit import formats, routing
from jaxpapers.fuxvit.config import (
    VIDEO_SOURCES,
    ClassifyData,
    MAEConfig,
    PretrainData,
    encoder_config,
    visible_count,
)
from jaxpapers.fuxvit.losses import classification_loss, mae_loss
from jaxpapers.fuxvit.mae import FuxViTMAE, tube_mask
from jaxpapers.fuxvit.model import FuxViTClassifier

TASKS = ("pretrain", "classify")


def pixels_of(batch: Mapping[str, Any]) -> jax.Array:
    """uint8 pixels → float32 in [0, 1] (float inputs pass through)."""
    x = jnp.asarray(batch["pixels"])
    return x.astype(jnp.float32) / 255.0 if x.dtype == jnp.uint8 else x.astype(jnp.float32)


def optimizer(cfg: ml_collections.ConfigDict):
    """``core.train.make_optimizer`` for the ``optim`` group over ``cfg.train.steps`` steps."""
    return make_optimizer(config_lib.to_dataclass(OptimConfig, cfg.optim), cfg.train.steps)


# --------------------------------------------------------------------------------------------------
# Pretraining (joint image/video MAE)
# --------------------------------------------------------------------------------------------------


def make_mae_loss_fn(model: FuxViTMAE):
    """Masked-tubelet MSE with a fresh per-row tube mask from the step key."""
    enc = model.encoder

    def compute(params: Any, batch: Mapping[str, Any], key: jax.Array, *, train: bool):
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


def _pretraining_kwargs(cfg: ml_collections.ConfigDict) -> dict[str, Any]:
    d, enc = cfg.data, encoder_config(cfg)
    p = (d.size // enc.patch) ** 2
    return dict(
        frames_per_row=max(1, d.token_budget // p),
        video_frames=d.video_frames,
        tubelet=enc.tubelet,
        size=d.size,
        mix=d.mix,
        image_fraction=d.image_fraction,
        images=tuple(d.images),
    )


def pretrain_data(cfg: ml_collections.ConfigDict) -> PretrainData:
    """The validated ``data`` group of a pretraining config (:class:`PretrainData`)."""
    return config_lib.to_dataclass(PretrainData, cfg.data)


def pretraining_data(cfg: ml_collections.ConfigDict) -> dict[str, np.ndarray]:
    """Packed image/video rows (``cfg.data``) as numpy arrays, all in memory (claims and tests)."""
    return data_lib.pretraining_rows(cfg.data.num_rows, seed=cfg.seed, **_pretraining_kwargs(cfg))


ROW_BLOCK_BYTES = 256 * 2**20  # memory of one generated block of pretraining rows


def pretraining_source(cfg: ml_collections.ConfigDict) -> data_lib.GeneratedSource:
    """The same kind of rows as a lazy grain source: row i is generated on demand (in blocks of about
    :data:`ROW_BLOCK_BYTES`, reproducible from ``(cfg.seed, block)``), so the full preset's 100,000 rows
    of 64K tokens (about 7.7 TB as one array) never exist at once; each host reads only its slice."""
    kw = _pretraining_kwargs(cfg)
    row_bytes = kw["frames_per_row"] * kw["tubelet"] * kw["size"] ** 2 * 3  # uint8 pixels
    block = int(max(1, min(256, ROW_BLOCK_BYTES // row_bytes)))
    return data_lib.GeneratedSource("pretraining_rows", cfg.data.num_rows, seed=cfg.seed, block=block, **kw)


PRETRAIN_KEYS = ("pixels", "frame_valid", "frame_seg")


@dataclasses.dataclass(frozen=True)
class _Select:
    """grain map transform: a record restricted to ``keys``."""

    keys: tuple[str, ...]

    def __call__(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return {k: record[k] for k in self.keys}


def real_rows(cfg: ml_collections.ConfigDict) -> grain.MapDataset:
    """Packed rows of a real ``data.source`` as an endless grain dataset.

    This process's slice of the records (every ``process_count``-th), shuffled with ``cfg.seed`` afresh
    every epoch, repeated; then grain map transforms decode and resize each record
    (:class:`formats.ReadClip`: a video → ``data.video_frames`` tubelet frames sampled at ``data.fps``;
    an image → one tubelet frame), group ``frames_per_row // frames_per_clip`` clips and pack them into
    one row (:class:`data_lib.PackRow`, the same packing as the generated rows). Everything runs lazily,
    by index, in whichever process iterates: grain's workers when ``data.worker_count`` > 0.
    """
    d, enc = pretrain_data(cfg), encoder_config(cfg)
    if d.source == "generated":
        raise ConfigError("real_rows needs a real data.source; the generated rows come from pretraining_source")
    frames_per_row = _pretraining_kwargs(cfg)["frames_per_row"]
    video = d.source in VIDEO_SOURCES
    per_clip = d.video_frames if video else 1
    if per_clip > frames_per_row:
        raise ConfigError(
            f"data.video_frames={d.video_frames} tubelet frames do not fit a row of {frames_per_row} frames "
            f"(data.token_budget={d.token_budget} / {(d.size // enc.patch) ** 2} tokens per frame); "
            f"allowed data.video_frames ≤ {frames_per_row}"
        )
    records = formats.pretraining_records(d.source, d.root, index=d.index, labels=d.labels, split=d.split)
    ds = for_process(grain.MapDataset.source(records))
    if len(ds) == 0:
        raise ConfigError(
            f"data.root={d.root!r} has {len(records)} records, fewer than the {jax.process_count()} processes"
        )
    read = formats.ReadClip(frames=per_clip * enc.tubelet, size=d.size, video=video, fps=d.fps, source_fps=d.source_fps)
    pack = data_lib.PackRow(frames_per_row=frames_per_row, tubelet=enc.tubelet)
    return (
        ds.seed(cfg.seed).shuffle().repeat().map(read).batch(frames_per_row // per_clip, drop_remainder=True).map(pack)
    )


def pretraining_batches(
    cfg: ml_collections.ConfigDict, batch_size: int
) -> tuple[grain.IterDataset, dict[str, np.ndarray]]:
    """This process's batches of pretraining rows from ``data.source`` and one example row [1, ...].

    ``generated``: :func:`pretraining_source` read in order; a real source: :func:`real_rows`. The
    batches are read with grain's ``ReadOptions(data.read_threads, data.read_buffer_size)`` and, when
    ``data.worker_count`` > 0, in that many worker processes (``mp_prefetch``; each decodes and packs
    whole batches). The output is deterministic for a given worker count, and its iterator state is
    what the shared trainer checkpoints. The example row is made here, in this process: a broken file
    or a missing PyAV is one error before anything compiles.
    """
    d = pretrain_data(cfg)
    if d.source == "generated":
        rows = grain.MapDataset.source(pretraining_source(cfg)).map(_Select(PRETRAIN_KEYS))
        batches = train_batches(rows, batch_size, seed=cfg.seed, shuffle=False)
    else:
        n_proc = jax.process_count()
        if batch_size % n_proc:
            raise ConfigError(f"train.batch_size={batch_size} is not divisible by the {n_proc} processes")
        rows = real_rows(cfg)
        batches = rows.batch(batch_size // n_proc, drop_remainder=True)
    example = {k: np.asarray(v)[None] for k, v in rows[0].items()}
    ds = batches.to_iter_dataset(grain.ReadOptions(num_threads=d.read_threads, prefetch_buffer_size=d.read_buffer_size))
    if d.worker_count:
        from absl import flags

        if not flags.FLAGS.is_parsed():  # grain reads its absl flags in mp_prefetch (google/grain#1355)
            flags.FLAGS.mark_as_parsed()
        options = grain.MultiprocessingOptions(num_workers=d.worker_count, per_worker_buffer_size=d.worker_buffer_size)
        ds = ds.mp_prefetch(options)
    return ds, example


# --------------------------------------------------------------------------------------------------
# Classification tasks (needle frames, motion direction)
# --------------------------------------------------------------------------------------------------


def make_classify_loss_fn(model: FuxViTClassifier):
    """Cross-entropy of the classifier's logits, with the batch accuracy as aux."""

    def compute(params: Any, batch: Mapping[str, Any], key: jax.Array, *, train: bool):
        del key, train
        logits, _ = model.apply({"params": params}, pixels_of(batch))
        loss, acc = classification_loss(logits, batch["label"])
        return loss, {"accuracy": acc}

    return compute


def task_data(cfg: ml_collections.ConfigDict, n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` examples of ``cfg.data.task`` as ``{"pixels", "label", ...}`` numpy arrays."""
    d = config_lib.to_dataclass(ClassifyData, cfg.data)
    if d.task == "needle_frames":
        raw = data_lib.needle_frames(
            n,
            frames=d.frames,
            tubelet=d.tubelet,
            size=d.size,
            patch=d.patch,
            num_classes=d.num_classes,
            style=d.style,
            seed=seed,
        )
        return {"pixels": raw["video"], "label": raw["label"], "needle_frame": raw["needle_frame"]}
    raw = data_lib.moving_shapes(
        n,
        frames=d.frames,
        size=d.size,
        min_speed=d.min_speed,
        radius=d.radius,
        position_channels=d.position_channels,
        seed=seed,
    )
    return {"pixels": raw["video"], "label": raw["direction"]}


def classifier(cfg: ml_collections.ConfigDict) -> FuxViTClassifier:
    """The classifier of a task config (encoder ``cfg.model``, head and pooling from ``cfg.data``)."""
    return FuxViTClassifier(encoder_config(cfg), num_classes=cfg.data.num_classes, pool=cfg.data.pool)


def param_key(key: jax.Array) -> jax.Array:
    """An ``rbg`` key for parameter initialisation, derived from ``key`` without any computation.

    Every initialiser call is a separate random-bits op; with threefry each compiles to a large
    unrolled kernel (≈ 0.2 s of XLA CPU compile each), with ``rbg`` to XLA's RngBitGenerator. Values
    differ from threefry's, and may differ between shardings: sharded runs that must match a
    single-device run copy the params (see ``sharded.py``).
    """
    return jax.random.wrap_key_data(jnp.tile(jax.random.key_data(key), 2), impl="rbg")


def init_fn(cfg: ml_collections.ConfigDict, arrays: Mapping[str, np.ndarray]):
    """``init(key) -> params`` (logically annotated) of the model of ``cfg`` for inputs like ``arrays``;
    the key is turned into an ``rbg`` key (:func:`param_key`)."""
    if cfg.task == "classify":
        model = classifier(cfg)
        x = pixels_of({"pixels": arrays["pixels"][:1]})
        return lambda key: model.init(param_key(key), x)["params"]
    enc = encoder_config(cfg)
    model = FuxViTMAE(enc, config_lib.to_dataclass(MAEConfig, cfg.mae))
    ex = {k: jnp.asarray(v[:1]) for k, v in arrays.items() if k in ("pixels", "frame_valid", "frame_seg")}
    p = (arrays["pixels"].shape[2] // enc.patch) * (arrays["pixels"].shape[3] // enc.patch)
    vis = jnp.arange(visible_count(p, model.mae.mask_ratio), dtype=jnp.int32)[None]
    return lambda key: model.init(param_key(key), pixels_of(ex), vis, ex["frame_valid"], ex["frame_seg"])["params"]


def init_params(cfg: ml_collections.ConfigDict, arrays: Mapping[str, np.ndarray]) -> Any:
    """Initial params (unsharded) of the model of ``cfg``, with the key ``train`` would use.

    For ``classify`` every attention impl has the same param tree, so claims train several impls from
    the same initial params.
    """
    param_rng, _ = jax.random.split(jax.random.key(cfg.seed))  # as init_state splits its key
    return jax.jit(init_fn(cfg, arrays))(param_rng)


@functools.cache
def _jitted_apply(model: FuxViTClassifier):
    """One compiled forward per classifier (F7a evaluates the same model twice: coarse branch on, off)."""
    return jax.jit(lambda p, x: model.apply({"params": p}, x.astype(jnp.float32) / 255.0))


def evaluate_classifier(
    model: FuxViTClassifier, params: Any, data: Mapping[str, ArrayLike], batch_size: int = 256
) -> dict[str, Any]:
    """Accuracy on ``data`` and, for routed models, every layer's selections ``sel`` [L, B, N, T, K]."""
    apply = _jitted_apply(model)
    logits, sels = [], []
    for i in range(0, len(data["label"]), batch_size):  # bounded-memory eval over fixed-size chunks
        lg, sel = apply(params, jnp.asarray(data["pixels"][i : i + batch_size]))
        logits.append(np.asarray(lg))
        sels.append(None if sel is None else np.asarray(sel))
    logits = np.concatenate(logits)
    acc = float(np.mean(np.argmax(logits, -1) == np.asarray(data["label"])))
    return {"accuracy": acc, "sel": None if sels[0] is None else np.concatenate(sels, axis=1)}


# --------------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------------


def fit_model(
    cfg: ml_collections.ConfigDict,
    arrays: Mapping[str, np.ndarray] | grain.IterDataset,
    *,
    example: Mapping[str, np.ndarray] | None = None,
    params: Any = None,
    eval_data: Mapping[str, np.ndarray] | None = None,
    workdir: str | None = None,
    mesh: jax.sharding.Mesh | None = None,
    rules: Rules | None = None,
    progress: bool = True,
) -> FitResult:
    """Trains the model of ``cfg`` on ``arrays`` with ``core.train.train_model``.

    ``arrays`` holds the training set in memory (shuffled every epoch), or is a grain ``IterDataset``
    of this process's batches (:func:`pretraining_batches`) with one ``example`` row [1, ...] for
    initialisation.
    ``params`` replaces the initial params (claims train several attention impls from one
    initialisation); ``eval_data`` (classification) is evaluated every ``train.eval_every`` steps as
    ``eval/loss`` and ``eval/accuracy``. The key is ``cfg.seed``'s, split as ``init_state`` does.
    """
    check_choice("task", cfg.task, TASKS)
    if cfg.task == "pretrain":
        loss_fn = make_mae_loss_fn(FuxViTMAE(encoder_config(cfg), config_lib.to_dataclass(MAEConfig, cfg.mae)))
        batch_keys: tuple[str, ...] = ("pixels", "frame_valid", "frame_seg")
    else:
        loss_fn = make_classify_loss_fn(classifier(cfg))
        batch_keys = ("pixels", "label")
    eval_batch = None if eval_data is None else {k: eval_data[k] for k in ("pixels", "label")}
    loop = config_lib.to_dataclass(LoopConfig, cfg.train)
    if isinstance(arrays, Mapping):
        batches = train_batches(ArraySource({k: arrays[k] for k in batch_keys}), loop.batch_size, seed=cfg.seed)
        example = arrays
    elif example is None:
        raise ValueError("fit_model on a grain dataset of batches needs an example row")
    else:
        batches = arrays
    init = init_fn(cfg, example) if params is None else params
    return train_model(
        init,
        loss_fn,
        optimizer(cfg),
        batches,
        loop=loop,
        key=jax.random.key(cfg.seed),
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        eval_batch=eval_batch,
        model_config={"model": cfg.model.to_dict(), "task": cfg.task},
        progress=progress,
        description=f"fuxvit {cfg.task}",
    )


def check_config(cfg: ml_collections.ConfigDict) -> None:
    """Everything :func:`train` can refuse before any work, each as one ``ConfigError`` line: the task,
    the ``train.*`` fields and, for pretraining, the ``data`` group (a real source's root and index must
    exist and list videos or images). ``jaxpapers train`` calls it before it touches the workdir."""
    if "task" not in cfg:
        raise ConfigError("this fuxvit config configures claims only (it has no 'task'); use `jaxpapers verify`")
    check_choice("task", cfg.task, TASKS)
    config_lib.to_dataclass(LoopConfig, cfg.train)
    if cfg.task == "pretrain":
        d = pretrain_data(cfg)
        if d.source != "generated":
            formats.pretraining_records(d.source, d.root, index=d.index, labels=d.labels, split=d.split)


def train(
    cfg: ml_collections.ConfigDict,
    workdir: str | None,
    *,
    mesh: jax.sharding.Mesh | None = None,
    rules: Rules | None = None,
    progress: bool = True,
) -> FitResult:
    """Trains the model of ``cfg`` (``cfg.task``: ``pretrain`` or ``classify``).

    Pretraining reads ``data.source`` (:func:`pretraining_batches`: generated rows, or Kinetics / SSv2
    / ImageNet folders / caption TSVs under ``data.root``). Classification evaluates the held-out set
    (seed ``cfg.seed + 1``) every ``train.eval_every`` steps. Resumes from ``workdir`` when it holds a
    checkpoint of the same model (the data iterator included).
    """
    check_config(cfg)
    if cfg.task == "pretrain":  # read lazily: the full preset's rows never exist at once
        batches, example = pretraining_batches(cfg, cfg.train.batch_size)
        return fit_model(cfg, batches, example=example, workdir=workdir, mesh=mesh, rules=rules, progress=progress)
    held_out = task_data(cfg, cfg.data.num_eval, cfg.seed + 1) if cfg.train.eval_every else None
    arrays = task_data(cfg, cfg.data.num_train, cfg.seed)
    return fit_model(cfg, arrays, eval_data=held_out, workdir=workdir, mesh=mesh, rules=rules, progress=progress)
