"""One FuxViT training step on a device mesh vs on one device (claim F9, the sharding tests).

Both steps go through the shared trainer: ``init_state`` (params born sharded from the Linen logical
annotations and the rule table passed in as ``rules``; the single-device run starts from a host copy) and
``make_train_step``, jitted with explicit output shardings as ``fit`` does. The same jitted call
also returns the gradients (the train step reports only their norm), so each setting compiles once.
Call :func:`compare_steps` in a process that has ``cfg.num_devices`` devices
(``jaxpapers.core.multidevice.run_with_devices`` starts one with emulated CPU devices).

This is the one fuxvit module that imports ``jaxpapers.launch``, and only ``launch.mesh`` (meshes
are built in one place). The rule table arrives as an argument: papers never import
``launch.rules``: the table comes from the config (``cfg.rules``, checked against
``launch/rules/fuxvit.py`` by the tests) or from the ``rules`` argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from jaxpapers.core import config as config_lib
from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import init_state, make_train_step
from jaxpapers.fuxvit.config import MAEConfig, encoder_config
from jaxpapers.fuxvit.experiments.exactness import rel_error
from jaxpapers.fuxvit.mae import FuxViTMAE
from jaxpapers.fuxvit.train import init_fn, make_mae_loss_fn, optimizer, pretraining_data
from jaxpapers.launch import mesh as mesh_lib


def compare_steps(
    preset: str = "quick", overrides: dict[str, Any] | None = None, *, rules: Sequence[Sequence[Any]] | None = None
) -> dict[str, Any]:
    """Runs one step of ``fuxvit/sharded_step`` on one device and on the configured mesh with ``rules``
    (a logical-axis rule table, default the config's ``rules``; JSON lists are accepted, so a table can
    cross ``run_with_devices``).

    Returns relative differences (loss, gradient and updated-param global norms), the loss, the
    mesh shape and how each parameter was sharded (for the report).
    """
    cfg = config_lib.load("fuxvit/sharded_step", f"preset={preset}", overrides or {})
    rules = tuple((name, tuple(ax) if isinstance(ax, list) else ax) for name, ax in (rules or cfg.rules))
    if jax.device_count() < cfg.num_devices:
        raise ConfigError(f"compare_steps needs {cfg.num_devices} devices; this process has {jax.device_count()}")
    model = FuxViTMAE(encoder_config(cfg), config_lib.to_dataclass(MAEConfig, cfg.mae))
    arrays = pretraining_data(cfg)
    batch = {k: arrays[k][: cfg.train.batch_size] for k in ("pixels", "frame_valid", "frame_seg")}
    key = jax.random.key(cfg.seed)
    tx = optimizer(cfg)
    loss_fn = make_mae_loss_fn(model)

    init = init_fn(cfg, arrays)
    train_step = make_train_step(loss_fn, tx)

    def step_and_grads(state, batch):
        """The trainer's step, plus the gradients it used (same key: XLA merges the two backward passes)."""
        key = jax.random.fold_in(state.key, state.step)
        grads = jax.grad(lambda p: loss_fn(p, batch, key, train=True)[0])(state.params)
        new_state, metrics = train_step(state, batch)
        return new_state, metrics, grads

    def run_step(state, shardings, mesh, rules):
        with sharding_lib.mesh_context(mesh, rules):
            out_shardings = None if shardings is None else (shardings, None, shardings.params)
            run = jax.jit(step_and_grads, out_shardings=out_shardings)
            global_batch = sharding_lib.to_global(batch, sharding_lib.batch_sharding(mesh, rules))
            new_state, metrics, grads = run(state, global_batch)
        return float(metrics["loss"]), jax.device_get(grads), jax.device_get(new_state.params)

    # The sharded state is born sharded by init_state; the single-device run starts from a host copy
    # of it, so both steps start from identical values (and only one init is compiled).
    mesh = mesh_lib.make_mesh(dict(cfg.mesh), devices=jax.devices()[: cfg.num_devices])
    state8, shardings = init_state(init, tx, key, mesh=mesh, rules=rules)
    state1 = jax.device_put(jax.device_get(state8), jax.devices()[0])
    start = jax.device_get(state8.params)
    specs = jax.tree.map(lambda s: str(s.spec), shardings.params)
    loss1, grads1, params1 = run_step(state1, None, None, None)
    loss8, grads8, params8 = run_step(state8, shardings, mesh, rules)
    return {
        "loss_rel": abs(loss8 - loss1) / max(abs(loss1), 1e-30),
        "grad_rel": rel_error(grads8, grads1),
        "param_rel": rel_error(params8, params1),
        "param_change": rel_error(params1, start),
        "loss": loss1,
        "mesh": {k: int(v) for k, v in mesh.shape.items()},
        "param_specs": jax.tree.map(str, specs),
    }
