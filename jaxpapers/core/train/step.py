"""A pure train step built from a loss function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import optax

from jaxpapers.core.train.state import TrainState

# ``loss_fn(params, batch, key, *, train) -> (loss, aux)``; ``aux`` is a dict of scalar metrics.
LossFn = Callable[..., tuple[jax.Array, dict[str, jax.Array]]]


def make_train_step(
    loss_fn: LossFn, tx: optax.GradientTransformation, *, return_grads: bool = False
) -> Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]]:
    """Returns ``step(state, batch) -> (state, metrics)``, pure and ready for ``jax.jit``.

    The step key is ``fold_in(state.key, state.step)``, so a resumed run draws the same randomness
    as an uninterrupted one. Metrics are the loss, the global gradient norm and ``aux``.
    ``return_grads``: ``step`` returns ``(state, metrics, grads)``, the gradients the update used (for
    checks that compare them, e.g. a sharded step against a single-device one, with one backward pass).
    """

    def step(state: TrainState, batch: Any) -> tuple[Any, ...]:
        key = jax.random.fold_in(state.key, state.step)
        (loss, aux), grads = jax.value_and_grad(lambda p: loss_fn(p, batch, key, train=True), has_aux=True)(
            state.params
        )
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)
        metrics = {"loss": loss, "grad_norm": optax.tree.norm(grads), **aux}
        new_state = state.replace(step=state.step + 1, params=params, opt_state=opt_state)
        return (new_state, metrics, grads) if return_grads else (new_state, metrics)

    return step


def make_eval_step(loss_fn: LossFn) -> Callable[[Any, Any], dict[str, jax.Array]]:
    """Returns ``eval_step(params, batch) -> metrics`` with ``train=False`` and a fixed key."""

    def eval_step(params: Any, batch: Any) -> dict[str, jax.Array]:
        loss, aux = loss_fn(params, batch, jax.random.key(0), train=False)
        return {"loss": loss, **aux}

    return eval_step
