"""One readable fit loop: jitted step with donated state, evals, checkpoints, resume, NaN guard."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from etils import epath
from jax.sharding import Mesh

from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.errors import NonFiniteError
from jaxpapers.core.train.checkpoint import Checkpointer, fingerprint
from jaxpapers.core.train.metrics import MetricWriter
from jaxpapers.core.train.state import TrainState, abstract_like

Hook = Callable[[int, TrainState, dict[str, jax.Array]], bool | None]


@dataclasses.dataclass
class FitResult:
    """The final state, the logged metric history (one dict per log/eval step) and resume info."""

    state: TrainState
    history: list[dict[str, Any]]
    resumed_from: int | None = None
    workdir: str | None = None
    stopped_early: bool = False

    def series(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(steps, values) of one metric across the history."""
        rows = [(r["step"], r[name]) for r in self.history if name in r]
        steps, values = zip(*rows, strict=True) if rows else ((), ())
        return np.asarray(steps), np.asarray(values)


def fit(
    state: TrainState,
    train_step: Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]],
    data: Any,
    *,
    num_steps: int,
    workdir: str | os.PathLike | None = None,
    mesh: Mesh | None = None,
    rules: sharding_lib.Rules | None = None,
    shardings: Any = None,
    batch_axes: Sequence[str | None] | None = None,
    log_every: int = 50,
    ckpt_every: int | None = None,
    keep: int = 3,
    eval_fn: Callable[[TrainState], dict[str, Any]] | None = None,
    eval_every: int | None = None,
    model_config: Any = None,
    hooks: Sequence[Hook] = (),
    progress: bool = True,
    tensorboard: bool = False,
    description: str = "train",
) -> FitResult:
    """Trains ``state`` for ``num_steps`` steps of ``train_step`` over ``data``.

    Args:
      state: the initial TrainState (from :func:`init_state`); replaced by the newest checkpoint in
        ``workdir`` when one exists (auto-resume, including the data iterator's position).
      train_step: ``step(state, batch) -> (state, metrics)``, e.g. from :func:`make_train_step`;
        jitted here once, with the state donated.
      data: a grain ``MapDataset``/``IterDataset`` of per-process batches (checkpointable), or any
        iterable of numpy pytrees (resume then restarts the data from the beginning).
      workdir: where ``metrics.jsonl``, ``config.json`` (written by the caller) and
        ``checkpoints/`` live. None trains in memory only.
      mesh, rules, shardings: the device mesh, logical-axis rules and the state shardings returned
        by :func:`init_state`; batches are sharded along ``batch_axes`` (default: leading BATCH).
      log_every: record (and check for NaN/Inf) every this many steps, and at the end.
      ckpt_every: save every this many steps (and at the end); None saves only at the end.
      eval_fn: ``eval_fn(state) -> dict`` run every ``eval_every`` steps and at the end, logged with
        an ``eval/`` prefix.
      model_config: identifies the model in the checkpoint fingerprint; a workdir holding another
        model's checkpoint is refused.
      hooks: ``hook(step, state, metrics)`` called after every step (metrics stay on device). A hook
        that returns True asks for a clean stop (e.g. on a preemption notice): the state is
        checkpointed at this step and ``fit`` returns; running ``fit`` again resumes exactly.

    Returns:
      FitResult with the final state and the metric history (including resumed history).

    Raises:
      NonFiniteError: the loss became NaN/Inf; names the step and the last good checkpoint. No
        checkpoint holding non-finite values is written.
      CheckpointMismatchError: ``workdir`` holds a checkpoint of a different model.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    is_main = jax.process_index() == 0
    writer = MetricWriter(workdir, tensorboard=tensorboard)
    ckpt = None
    if workdir is not None:
        ckpt = Checkpointer(
            epath.Path(workdir) / "checkpoints", keep=keep, fingerprint=fingerprint(state.params, model_config)
        )
        ckpt.check_compatible()

    data_iter = iter(data.to_iter_dataset() if hasattr(data, "to_iter_dataset") else data)
    resumed_from = None
    history: list[dict[str, Any]] = []
    if ckpt is not None and ckpt.latest_step() is not None:
        resumed_from = ckpt.latest_step()
        state = ckpt.restore(abstract_like(state, shardings), data_iter)
        history = writer.truncate_after(resumed_from)
    else:
        writer.truncate_after(-1)

    batch_sharding = sharding_lib.batch_sharding(mesh, rules, batch_axes or (_batch_axis(),))
    out_shardings = (shardings, None) if shardings is not None else None
    with sharding_lib.mesh_context(mesh, rules):
        jit_step = jax.jit(train_step, donate_argnums=0, out_shardings=out_shardings)
        all_finite = jax.jit(_all_finite)

    step = int(state.step)
    stopped_early = False
    last_good = resumed_from
    pending: list[tuple[int, jax.Array]] = []  # per-step losses since the last check (on device)

    def check_finite(params_too: bool) -> None:
        losses = np.asarray(jax.device_get([loss for _, loss in pending]), dtype=np.float64)
        bad = [s for (s, _), v in zip(pending, losses, strict=True) if not np.isfinite(v)]
        pending.clear()
        if not bad and params_too and not bool(all_finite(state.params)):
            bad = [step]
        if bad:
            where = ckpt.path(last_good) if ckpt else "none (no workdir)"
            raise NonFiniteError(f"loss became non-finite at step {bad[0]}; last good checkpoint: {where}")

    columns = (
        TextColumn(f"[bold]{description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeRemainingColumn(),
    )
    try:
        with (
            Progress(*columns, transient=True, disable=not (progress and is_main)) as bar,
            sharding_lib.mesh_context(mesh, rules),
        ):
            task = bar.add_task(description, total=num_steps, completed=step, info="")
            while step < num_steps:
                try:
                    local = next(data_iter)
                except StopIteration:
                    raise ValueError(
                        f"the training data ran out at step {step} of {num_steps}; "
                        "repeat the dataset (e.g. MapDataset.repeat())"
                    ) from None
                state, metrics = jit_step(state, sharding_lib.to_global(local, batch_sharding))
                step += 1
                pending.append((step, metrics["loss"]))
                stop = any([bool(hook(step, state, metrics)) for hook in hooks])
                is_last = step == num_steps
                do_log = is_last or step % log_every == 0
                do_eval = eval_fn is not None and (is_last or bool(eval_every and step % eval_every == 0))
                do_ckpt = ckpt is not None and (is_last or stop or bool(ckpt_every and step % ckpt_every == 0))
                if do_log or do_ckpt:
                    check_finite(params_too=do_ckpt)
                if do_log or do_eval:
                    record: dict[str, Any] = {"step": step}
                    if do_log:
                        record.update({k: _scalar(v) for k, v in jax.device_get(metrics).items()})
                        bar.update(task, info=f"loss {record['loss']:.4g}")
                    if do_eval:
                        record.update({f"eval/{k}": _scalar(v) for k, v in jax.device_get(eval_fn(state)).items()})
                    history.append(record)
                    writer.write(record)
                if do_ckpt:
                    ckpt.save(step, state, data_iter)
                    last_good = step
                bar.update(task, completed=step)
                if stop and not is_last:
                    stopped_early = True
                    break
    finally:
        if ckpt is not None:
            ckpt.close()
        writer.close()
    return FitResult(
        state=state,
        history=history,
        resumed_from=resumed_from,
        workdir=None if workdir is None else str(workdir),
        stopped_early=stopped_early,
    )


def _all_finite(tree: Any) -> jax.Array:
    leaves = [jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(tree) if jnp.issubdtype(x.dtype, jnp.inexact)]
    return jnp.all(jnp.stack(leaves)) if leaves else jnp.array(True)


def _scalar(x: Any) -> Any:
    arr = np.asarray(x)
    return arr.item() if arr.size == 1 else arr.tolist()


def _batch_axis() -> str:
    from jaxpapers.core import axes

    return axes.BATCH
