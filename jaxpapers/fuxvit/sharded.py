"""One FuxViT training step on a device mesh vs on one device (claim F9, the sharding tests).

Both steps go through the shared trainer: ``init_state`` (params born sharded from the Linen logical
annotations and the rule table passed in as ``rules``; the single-device run starts from a host copy) and
``make_train_step``, jitted with explicit output shardings as ``fit`` does. The same jitted call
also returns the gradients (the train step reports only their norm), so each setting compiles once.
Call :func:`compare_steps` (one rule table) or :func:`compare_strategies` (several tables, one
single-device program) in a process that has ``cfg.num_devices`` devices
(``jaxpapers.core.multidevice.run_with_devices`` starts one with emulated CPU devices).

Under a rule table that splits FRAMES over ``sequence`` (``fsdp_tp_cp``) the encoder's FSA layers run
under ``shard_map`` (``kernels/fsa/context_parallel.py``); each result counts the manual-sharding
regions of the lowered sharded program (``manual_regions``: 0 when the compiler partitions everything),
so a test can tell that the context-parallel path, not the compiler-partitioned reference, was run.

This is the one fuxvit module that imports ``jaxpapers.launch``, and only ``launch.mesh`` (meshes
are built in one place). The rule table arrives as an argument: papers never import
``launch.rules``: the table comes from the config (``cfg.rules``, checked against
``launch/rules/fuxvit.py`` by the tests) or from the ``rules`` argument.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import optax

from jaxpapers.core import config as config_lib
from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import init_state, make_train_step
from jaxpapers.core.train.aot import lower_train_step, manual_regions
from jaxpapers.fuxvit.config import MODEL_SIZES, MAEConfig, encoder_config
from jaxpapers.fuxvit.experiments.exactness import rel_error
from jaxpapers.fuxvit.mae import FuxViTMAE
from jaxpapers.fuxvit.model import FuxViTClassifier
from jaxpapers.fuxvit.train import init_fn, make_classify_loss_fn, make_mae_loss_fn, optimizer, pretraining_data
from jaxpapers.launch import mesh as mesh_lib


def _as_rules(rules: Sequence[Sequence[Any]]) -> tuple[tuple[str, Any], ...]:
    """A rule table from Python or JSON lists (JSON turns tuples into lists)."""
    return tuple((name, tuple(ax) if isinstance(ax, list) else ax) for name, ax in rules)


def compare_strategies(
    preset: str = "quick",
    strategies: Mapping[str, Sequence[Sequence[Any]]] | None = None,
    *,
    mesh: Mapping[str, int] | None = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Runs one step of ``fuxvit/sharded_step`` on one device and, for each named rule table of
    ``strategies`` (default: the config's ``strategy``/``rules``), on ``mesh`` (default the config's).

    Returns, per strategy, the relative differences (loss, gradient and updated-param global norms),
    the loss, the mesh shape, how each parameter was sharded and ``manual_regions``.
    """
    cfg = config_lib.load("fuxvit/sharded_step", f"preset={preset}", overrides or {})
    strategies = strategies or {cfg.strategy: cfg.rules}
    if jax.device_count() < cfg.num_devices:
        raise ConfigError(f"compare_steps needs {cfg.num_devices} devices; this process has {jax.device_count()}")
    model = FuxViTMAE(encoder_config(cfg), config_lib.to_dataclass(MAEConfig, cfg.mae))
    arrays = pretraining_data(cfg)
    batch = {k: arrays[k][: cfg.train.batch_size] for k in ("pixels", "frame_valid", "frame_seg")}
    key = jax.random.key(cfg.seed)
    tx = optimizer(cfg)
    loss_fn = make_mae_loss_fn(model)
    init = init_fn(cfg, arrays)

    def step_fn():
        """The trainer's step returning the gradients it used (one backward pass); a fresh function
        object per program: jit's trace cache does not see Linen's rule context."""
        return make_train_step(loss_fn, tx, return_grads=True)

    def run(compiled, state, global_batch):
        new_state, metrics, grads = compiled(state, global_batch)
        return float(metrics["loss"]), jax.device_get(grads), jax.device_get(new_state.params)

    single = None  # the single-device program, compiled once and run from each strategy's start
    mesh = mesh_lib.make_mesh(dict(mesh or cfg.mesh), devices=jax.devices()[: cfg.num_devices])
    results = {}
    for name, table in strategies.items():
        rules = _as_rules(table)
        # The sharded state is born sharded by init_state; the single-device run starts from a host
        # copy of it, so both steps start from identical values.
        state8, shardings = init_state(init, tx, key, mesh=mesh, rules=rules)
        state1 = jax.device_put(jax.device_get(state8), jax.devices()[0])
        start = jax.device_get(state8.params)
        if single is None:
            single = jax.jit(step_fn()).lower(state1, sharding_lib.to_global(batch, None)).compile()
        loss1, grads1, params1 = run(single, state1, sharding_lib.to_global(batch, None))
        with sharding_lib.mesh_context(mesh, rules):
            global_batch = sharding_lib.to_global(batch, sharding_lib.batch_sharding(mesh, rules))
            jitted = jax.jit(step_fn(), out_shardings=(shardings, None, shardings.params))
            lowered = jitted.lower(state8, global_batch)
            loss8, grads8, params8 = run(lowered.compile(), state8, global_batch)
        results[name] = {
            "loss_rel": abs(loss8 - loss1) / max(abs(loss1), 1e-30),
            "grad_rel": rel_error(grads8, grads1),
            "param_rel": rel_error(params8, params1),
            "param_change": rel_error(params1, start),
            "loss": loss1,
            "mesh": {k: int(v) for k, v in mesh.shape.items()},
            "param_specs": jax.tree.map(lambda s: str(s.spec), shardings.params),
            "manual_regions": manual_regions(lowered.as_text()),
        }
    return results


def compare_steps(
    preset: str = "quick",
    overrides: dict[str, Any] | None = None,
    *,
    rules: Sequence[Sequence[Any]] | None = None,
    mesh: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """:func:`compare_strategies` for one rule table ``rules`` (default the config's ``rules``; JSON
    lists are accepted, so a table can cross ``run_with_devices``)."""
    cfg = config_lib.load("fuxvit/sharded_step", f"preset={preset}", overrides or {})
    table = rules or cfg.rules
    return compare_strategies(preset, {"rules": table}, mesh=mesh, overrides=overrides)["rules"]


def aot_train_step(
    mesh: Mapping[str, int],
    rules: Sequence[Sequence[Any]],
    *,
    batch_size: int,
    frames: int = 256,
    image: int = 224,
    variant: str = "so400m",
    attn_impl: str = "reference",
    query_chunk: int | None = 8,
    platform: str | None = None,
) -> dict[str, Any]:
    """Lowers one classifier train step of the ``variant`` encoder (bf16, remat, scanned layers, AdamW)
    at ``frames`` frames of (image / patch)² tokens per row, ahead of time, through the shared
    :func:`jaxpapers.core.train.aot.lower_train_step` on a mesh of this process's devices (state and batch
    are ``ShapeDtypeStruct``s with the shardings ``rules`` give, so nothing is allocated).

    ``platform`` (e.g. "cuda", "tpu") only lowers for that platform; None also compiles for this
    process's backend and reports its memory analysis per device (``compiled``). Returns the
    :class:`~jaxpapers.core.train.aot.AotReport` as a dict (it crosses ``run_with_devices``) plus the
    tokens per row and the global batch size.
    """
    cfg = MODEL_SIZES[variant](
        dtype="bfloat16", remat=True, scan_layers=True, attn_impl=attn_impl, query_chunk=query_chunk
    )
    model = FuxViTClassifier(cfg, num_classes=400)
    size = math.prod(mesh.values())
    jmesh = mesh_lib.make_mesh(dict(mesh), devices=jax.devices()[:size])
    clip = (cfg.tubelet * frames, image, image, cfg.channels)

    def init_params(key: jax.Array) -> Any:
        return model.init(key, jnp.zeros((1, cfg.tubelet, *clip[1:]), jnp.float32))["params"]

    batch = {
        "pixels": jax.ShapeDtypeStruct((batch_size, *clip), jnp.uint8),
        "label": jax.ShapeDtypeStruct((batch_size,), jnp.int32),
    }
    report = lower_train_step(
        init_params,
        make_classify_loss_fn(model),
        optax.adamw(1e-4),
        batch,
        mesh=jmesh,
        rules=_as_rules(rules),
        platform=platform or jax.default_backend(),
        compile_here=platform is None,
    )
    tokens_per_row = frames * (image // cfg.patch) ** 2
    return {"tokens_per_row": tokens_per_row, "batch_size": batch_size, **dataclasses.asdict(report)}
