"""Training small models entirely on device: one ``lax.scan`` over steps, vmapped over seeds.

For the many small networks that claims train (linear models, MLPs, tiny towers), the host loop of
:func:`~jaxpapers.core.train.fit` costs more than the steps. Here a whole run is one compiled
program, and :func:`make_seed_trainer` vmaps it over seeds (in chunks, to bound memory). The step
is :func:`~jaxpapers.core.train.make_train_step`'s, the one ``fit`` uses, so both trainers agree.

    run = make_seed_trainer(init_params, loss_fn, tx, sample_batch, steps=500, snapshots=5)
    result = run(keys, data)          # keys [S], data: a pytree with a leading seed axis [S, ...]
    result.params, result.losses      # final params [S, ...], per-step losses [S, steps]

Randomness per run: ``init_key, state_key, data_key = split(key, 3)``; step ``t`` draws its batch
with ``fold_in(data_key, t)`` and its loss randomness with ``fold_in(state_key, t)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxpapers.core import sim
from jaxpapers.core.checks import check_range
from jaxpapers.core.train.state import TrainState
from jaxpapers.core.train.step import LossFn, make_train_step

InitParams = Callable[[jax.Array, Any], Any]  # (key, data) -> params
SampleBatch = Callable[[jax.Array, Any], Any]  # (key, data) -> batch


class ScanFitResult(NamedTuple):
    """``params``: final parameters; ``losses``: the training loss at every step ``[steps]``;
    ``snapshots``: parameters after each of ``snapshots`` equal segments (stacked on a leading axis),
    or None when no snapshots were asked for."""

    params: Any
    losses: jax.Array
    snapshots: Any = None


def scan_fit(
    key: jax.Array,
    data: Any,
    *,
    init_params: InitParams,
    loss_fn: LossFn,
    tx: optax.GradientTransformation,
    sample_batch: SampleBatch,
    steps: int,
    snapshots: int = 0,
) -> ScanFitResult:
    """Trains one model for ``steps`` steps inside one ``lax.scan`` (call under ``jax.jit``).

    ``init_params(key, data)`` builds the parameters (unboxed); ``sample_batch(key, data)`` draws one
    batch from ``data``; ``loss_fn`` is the shared ``loss_fn(params, batch, key, *, train)``.
    With ``snapshots=k`` the steps run as ``k`` segments of ``steps // k`` (``steps`` must divide)
    and the parameters after each segment are returned too.
    """
    check_range("steps", steps, 1)
    check_range("snapshots", snapshots, 0)
    if snapshots and steps % snapshots:
        raise ValueError(f"steps={steps} must be a multiple of snapshots={snapshots}")
    init_key, state_key, data_key = jax.random.split(key, 3)
    step_fn = make_train_step(loss_fn, tx)
    state = TrainState.create(init_params(init_key, data), tx, state_key)

    def one_step(s: TrainState, _):
        batch = sample_batch(jax.random.fold_in(data_key, s.step), data)
        s, metrics = step_fn(s, batch)
        return s, metrics["loss"]

    if not snapshots:
        state, losses = jax.lax.scan(one_step, state, length=steps)
        return ScanFitResult(state.params, losses)

    def segment(s: TrainState, _):
        s, seg_losses = jax.lax.scan(one_step, s, length=steps // snapshots)
        return s, (s.params, seg_losses)

    state, (snaps, seg_losses) = jax.lax.scan(segment, state, length=snapshots)
    return ScanFitResult(state.params, seg_losses.reshape(steps), snaps)


def make_seed_trainer(
    init_params: InitParams,
    loss_fn: LossFn,
    tx: optax.GradientTransformation,
    sample_batch: SampleBatch,
    *,
    steps: int,
    snapshots: int = 0,
    chunk_size: int | None = None,
    compiler_options: Mapping[str, Any] | None = None,
) -> Callable[[jax.Array, Any], ScanFitResult]:
    """A jitted ``run(keys [S], data) -> ScanFitResult`` that trains one model per seed.

    ``data`` is a pytree whose leaves all have the leading seed axis ``S`` (each seed its own data
    set; broadcast with ``jnp.broadcast_to`` to share one). Results carry the seed axis in front.
    ``chunk_size`` vmaps that many seeds at a time (``sim.vmap_chunked``). Build it once per
    configuration (e.g. under ``functools.cache``): each call of this function compiles anew.
    """

    def one(key: jax.Array, d: Any) -> ScanFitResult:
        return scan_fit(
            key,
            d,
            init_params=init_params,
            loss_fn=loss_fn,
            tx=tx,
            sample_batch=sample_batch,
            steps=steps,
            snapshots=snapshots,
        )

    return jax.jit(
        lambda keys, data: sim.vmap_chunked(one, keys, data, chunk_size=chunk_size),
        compiler_options=dict(compiler_options) if compiler_options else None,
    )


def uniform_batch(batch_size: int, n: Any = None) -> SampleBatch:
    """A ``sample_batch`` drawing ``batch_size`` rows uniformly with replacement from every leaf of a dict.

    ``n`` (an int, or the name of an int leaf of the data such as ``"n_valid"``) limits the rows
    drawn from to the first ``n``; default: the leading size of the first array leaf.
    """

    def sample(key: jax.Array, data: Any) -> Any:
        arrays = {k: v for k, v in data.items() if not (isinstance(n, str) and k == n)}
        rows = data[n] if isinstance(n, str) else (n if n is not None else jax.tree.leaves(arrays)[0].shape[0])
        idx = jax.random.randint(key, (batch_size,), 0, rows)
        return jax.tree.map(lambda a: jnp.take(a, idx, axis=0), arrays)

    return sample
