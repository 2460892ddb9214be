"""The model-training recipe every paper's ``train(cfg, workdir, *, mesh=None, rules=None)`` calls.

    tx = make_optimizer(to_dataclass(OptimConfig, cfg.optim), cfg.train.steps)
    return train_model(lambda k: model.init(k, example)["params"], loss_fn, tx, batches,
                       loop=to_dataclass(LoopConfig, cfg.train), key=jax.random.key(cfg.seed),
                       workdir=workdir, mesh=mesh, rules=rules, eval_batch=eval_data,
                       model_config=cfg.model)

It builds the sharded state (:func:`init_state`), the jitted evaluation of ``loss_fn`` on a fixed
held-out batch (:func:`make_eval_step`) and the step, then runs :func:`fit`. Use ``fit`` directly only
for what this recipe cannot say (hooks are passed through).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import optax
from jax.sharding import Mesh

from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.checks import check_range
from jaxpapers.core.train.loop import FitResult, Hook, fit
from jaxpapers.core.train.state import TrainState, init_state
from jaxpapers.core.train.step import LossFn, make_eval_step, make_train_step

MAX_STEPS = 10**9  # more steps than any run: a typo (1e12) would otherwise train forever


@dataclasses.dataclass(frozen=True)
class LoopConfig:
    """The ``train`` group of a training config: length, batch size and the logging/eval/checkpoint cadence."""

    steps: int = 100
    batch_size: int = 32
    log_every: int = 50
    eval_every: int | None = None
    ckpt_every: int | None = None
    grad_accum: int = 1  # micro-batches of batch_size per optimizer update (optax.MultiSteps)

    def __post_init__(self):
        check_range("train.steps", self.steps, 1, MAX_STEPS)
        check_range("train.batch_size", self.batch_size, 1)
        check_range("train.log_every", self.log_every, 1)
        check_range("train.grad_accum", self.grad_accum, 1)
        for name in ("eval_every", "ckpt_every"):
            if getattr(self, name) is not None:
                check_range(f"train.{name}", getattr(self, name), 1)


def train_model(
    init_params: Callable[[jax.Array], Any] | Any,
    loss_fn: LossFn,
    tx: optax.GradientTransformation,
    data: Any,
    *,
    loop: LoopConfig,
    key: jax.Array,
    workdir: str | os.PathLike | None = None,
    mesh: Mesh | None = None,
    rules: sharding_lib.Rules | None = None,
    eval_batch: Any = None,
    eval_fn: Callable[[TrainState], dict[str, Any]] | None = None,
    model_config: Any = None,
    hooks: Sequence[Hook] = (),
    extras: Callable[[Any], Any] | None = None,
    progress: bool = True,
    description: str = "train",
    learning_rate: Callable[[int], Any] | float | None = None,
    tokens_per_example: int | None = None,
) -> FitResult:
    """Initialises the state sharded by ``rules`` on ``mesh`` and trains it with :func:`fit`.

    ``eval_batch`` (a pytree of arrays) is evaluated with ``loss_fn(..., train=False)`` every
    ``loop.eval_every`` steps and at the end, logged as ``eval/loss`` and ``eval/<aux>``; pass
    ``eval_fn(state) -> dict`` instead for anything else. ``key`` seeds initialisation and the step
    keys; resuming from ``workdir`` is automatic (see :func:`fit`). ``init_params`` is ``init(key) ->
    params`` or the initial params themselves (:func:`init_state`).

    ``loop.grad_accum = k > 1`` accumulates gradients over ``k`` consecutive batches of ``data`` before
    each update (``optax.MultiSteps``: the mean of the ``k`` gradients, so an update sees ``k`` times the
    batch). ``loop.steps`` and the cadences count optimizer updates; ``fit`` runs ``k`` micro-steps each
    and logs micro-step numbers. ``learning_rate`` (the schedule,
    ``optim.learning_rate(cfg, steps)``) and ``tokens_per_example`` only feed the logged metrics.
    """
    if eval_batch is not None and eval_fn is not None:
        raise ValueError("pass eval_batch or eval_fn, not both")
    k = loop.grad_accum
    if k > 1:
        tx = optax.MultiSteps(tx, every_k_schedule=k).gradient_transformation()
        if learning_rate is not None and callable(learning_rate):
            schedule = learning_rate
            learning_rate = lambda micro: schedule(micro // k)  # noqa: E731 - the rate of the update it feeds
    state, shardings = init_state(init_params, tx, key, mesh=mesh, rules=rules, extras=extras)
    if eval_batch is not None:
        held_out = jax.tree.map(jnp.asarray, eval_batch)
        evaluate = jax.jit(make_eval_step(loss_fn))

        def eval_fn(s: TrainState) -> dict[str, Any]:
            return evaluate(s.params, held_out)

    return fit(
        state,
        make_train_step(loss_fn, tx),
        data,
        num_steps=loop.steps * k,
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        shardings=shardings,
        log_every=loop.log_every * k,
        ckpt_every=loop.ckpt_every and loop.ckpt_every * k,
        eval_fn=eval_fn,
        eval_every=loop.eval_every and loop.eval_every * k,
        model_config=model_config,
        hooks=hooks,
        progress=progress,
        description=description,
        learning_rate=learning_rate,
        tokens_per_example=tokens_per_example,
    )
