"""One UniALM training step on a device mesh vs on one device (claim U9(c)).

Both steps go through the shared trainer: ``init_state`` (params born sharded from the Linen logical
annotations and the rule table of the config, ``cfg.u9.rules[cfg.u9.strategy]``; the single-device run starts
from a host copy of the same values) and ``make_train_step`` with ``return_grads``. Call
:func:`compare_steps` in a process with ``cfg.u9.num_devices`` devices
(``jaxpapers.core.multidevice.run_with_devices`` starts one with emulated CPU devices). The model is the paper
*topology* (3 + 28 + 2 layers, a 4-layer depth decoder, Q = 8, scanned stacks, remat) at the reduced widths of
``cfg.u9.model``: the spec records XLA:CPU collective deadlocks at the full vocabularies.
"""

from __future__ import annotations

import time
from typing import Any

import jax
import numpy as np
import optax

from jaxpapers.core import config as config_lib
from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core import sim
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import init_state, make_train_step
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.unialm import stages
from jaxpapers.unialm.lm import UniALM, UniALMConfig, lm_loss


def rel_error(a: Any, b: Any) -> float:
    """‖a − b‖ / ‖b‖ over every leaf of two pytrees (global norms, float64 on the host)."""
    la = [np.asarray(x, np.float64) for x in jax.tree.leaves(a)]
    lb = [np.asarray(x, np.float64) for x in jax.tree.leaves(b)]
    num = np.sqrt(sum(float(((x - y) ** 2).sum()) for x, y in zip(la, lb, strict=True)))
    den = np.sqrt(sum(float((y**2).sum()) for y in lb))
    return float(num / max(den, 1e-30))


def compare_steps(preset: str = "quick", overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Relative differences (loss, gradient and updated-param global norms) between the sharded and the
    single-device step, the loss, the mesh and how many param leaves are sharded at all."""
    t0 = time.process_time(), time.perf_counter()
    cfg = config_lib.load("unialm/lm", f"preset={preset}", overrides or {})
    u9 = cfg.u9
    if jax.device_count() < u9.num_devices:
        raise ConfigError(f"compare_steps needs {u9.num_devices} devices; this process has {jax.device_count()}")
    model_cfg = config_lib.to_dataclass(UniALMConfig, u9.model)
    model = UniALM(model_cfg)
    batch = stages.toy_batches(model_cfg, np.random.default_rng(cfg.seed), 1, u9.batch_size, u9.length)
    batch = {k: v[0] for k, v in batch.items()}
    tx = optax.adamw(u9.lr, weight_decay=0.05)

    def loss_fn(params, b, key, train=True):
        del key, train
        out = model.apply(params, b["frames"], b["audio"], b["positions"])
        return lm_loss(out, b["frames"], b["loss_mask"])

    def init(key):
        return model.init(key, batch["frames"], batch["audio"], batch["positions"])

    rules = tuple((name, tuple(ax) if isinstance(ax, list) else ax) for name, ax in u9.rules[u9.strategy])
    mesh = mesh_lib.make_mesh(dict(u9.mesh), devices=jax.devices()[: u9.num_devices])
    key = jax.random.key(cfg.seed)
    state8, shardings = init_state(init, tx, key, mesh=mesh, rules=rules)
    state1 = jax.device_put(jax.device_get(state8), jax.devices()[0])

    def run(compiled, state, global_batch):
        new_state, metrics, grads = compiled(state, global_batch)
        return float(metrics["loss"]), jax.device_get(grads), jax.device_get(new_state.params)

    fast = sim.fast_compile_options()  # one step each: XLA's optimisation does not pay for itself
    single = jax.jit(make_train_step(loss_fn, tx, return_grads=True), compiler_options=fast)
    loss1, grads1, params1 = run(single, state1, sharding_lib.to_global(batch, None))
    with sharding_lib.mesh_context(mesh, rules):
        global_batch = sharding_lib.to_global(batch, sharding_lib.batch_sharding(mesh, rules))
        jitted = jax.jit(make_train_step(loss_fn, tx, return_grads=True),
                         out_shardings=(shardings, None, shardings.params), compiler_options=fast)  # fmt: skip
        loss8, grads8, params8 = run(jitted, state8, global_batch)
    specs = [str(s.spec) for s in jax.tree.leaves(shardings.params)]
    return {
        "loss_rel": abs(loss8 - loss1) / max(abs(loss1), 1e-30),
        "grad_rel": rel_error(grads8, grads1),
        "param_rel": rel_error(params8, params1),
        "param_change": rel_error(params1, jax.device_get(state1.params)),
        "loss": loss1,
        "mesh": {k: int(v) for k, v in mesh.shape.items()},
        "sharded_leaves": sum(s != "PartitionSpec()" for s in specs),
        "leaves": len(specs),
        "cpu_s": time.process_time() - t0[0],
        "wall_s": time.perf_counter() - t0[1],
    }
