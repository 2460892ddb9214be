"""One readable fit loop: jitted step with donated state, evals, checkpoints, resume, NaN guard."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from etils import epath
from jax.sharding import Mesh

from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.data.pipeline import READ_OPTIONS
from jaxpapers.core.errors import NonFiniteError
from jaxpapers.core.train import job as job_lib
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
    preempted: str | None = None  # the signal's name when a SIGTERM stopped the run (inside a job)

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
    learning_rate: Callable[[int], Any] | float | None = None,
    tokens_per_example: int | None = None,
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
      learning_rate: the optimizer's rate (a schedule of the step, or a float), logged as ``lr``.
      tokens_per_example: logged throughput in tokens/s as well as examples/s.

    Every logged row carries ``step_time`` (seconds per step since the last row, the compiling first
    step excluded), ``examples_per_s`` (global) and, where known, ``tokens_per_s``, ``lr`` and ``mfu``
    (model FLOP utilisation: the step's FLOPs from XLA's cost analysis over the topology's peak).
    Inside a :func:`jaxpapers.core.train.job.job` (``jaxpapers train``), SIGTERM saves the current
    step and returns with ``preempted`` set, a start-up summary is printed, and off a terminal a
    plain line is printed every ``log_every`` steps.

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

    data_iter = iter(data.to_iter_dataset(READ_OPTIONS) if hasattr(data, "to_iter_dataset") else data)
    resumed_from = None
    history: list[dict[str, Any]] = []
    if ckpt is not None and ckpt.all_steps():
        state = ckpt.restore(abstract_like(state, shardings), data_iter)
        resumed_from = ckpt.restored_step
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
    info = job_lib.current()
    say = _printer(info.summary and is_main)
    plain_lines = info.summary and is_main and not sys.stderr.isatty()
    n_dev = mesh.size if mesh is not None else 1
    peak = info.peak_flops_per_device * n_dev if info.peak_flops_per_device else None
    flops: float | None = None
    timer = _StepTimer()
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
    stop_request = job_lib.StopRequest()
    profiler = job_lib.ProfileWindow(info.profile_steps, workdir)
    try:
        with (
            Progress(*columns, transient=True, disable=not (progress and is_main) or plain_lines) as bar,
            sharding_lib.mesh_context(mesh, rules),
            stop_request.installed(info.handle_sigterm),
        ):
            say(_startup_summary(state, mesh, info, description, step, resumed_from, ckpt))
            task = bar.add_task(description, total=num_steps, completed=step, info="")
            while step < num_steps:
                try:
                    local = next(data_iter)
                except StopIteration:
                    raise ValueError(
                        f"the training data ran out at step {step} of {num_steps}; "
                        "repeat the dataset (e.g. MapDataset.repeat())"
                    ) from None
                batch = sharding_lib.to_global(local, batch_sharding)
                profiler.before_step(step)
                if timer.first and info.summary:
                    flops = job_lib.step_flops(jit_step.lower(state, batch))
                state, metrics = jit_step(state, batch)
                step += 1
                if timer.first:
                    jax.block_until_ready(metrics["loss"])
                    say(f"{description}: compiled and ran the first step in {timer.first_step():.1f} s")
                    if flops:
                        say(f"{description}: {flops:.3g} FLOPs per step (XLA cost analysis)")
                profiler.after_step(step, metrics["loss"])
                pending.append((step, metrics["loss"]))
                stop = any([bool(hook(step, state, metrics)) for hook in hooks]) or bool(stop_request)
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
                        record.update(timer.rates(step, _global_batch_size(local), tokens_per_example, flops, peak))
                        if learning_rate is not None:
                            rate = learning_rate(step - 1) if callable(learning_rate) else learning_rate
                            record["lr"] = float(np.asarray(rate))
                        bar.update(task, info=f"loss {record['loss']:.4g}")
                        if plain_lines:
                            say(_log_line(description, record, num_steps))
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
        if stop_request and ckpt is not None:
            ckpt.wait()
            say(
                f"{description}: {stop_request.signal_name} at step {step}: saved checkpoint {ckpt.path(step)}; "
                "run the same command again to resume"
            )
    finally:
        profiler.close()
        if ckpt is not None:
            ckpt.close()
        writer.close()
    return FitResult(
        state=state,
        history=history,
        resumed_from=resumed_from,
        workdir=None if workdir is None else str(workdir),
        stopped_early=stopped_early,
        preempted=stop_request.signal_name,
    )


class _StepTimer:
    """Wall time per step between logged rows; the first (compiling) step is timed on its own."""

    def __init__(self) -> None:
        self.first = True
        self._t0 = time.perf_counter()
        self._last: tuple[float, int] | None = None

    def first_step(self) -> float:
        self.first = False
        now = time.perf_counter()
        self._last = (now, -1)  # the step count is filled in at the first logged row
        return now - self._t0

    def rates(
        self, step: int, batch: int | None, tokens_per_example: int | None, flops: float | None, peak: float | None
    ) -> dict[str, float]:
        now = time.perf_counter()
        if self._last is None or self._last[1] < 0:
            self._last = (now, step)
            return {}
        t, s = self._last
        self._last = (now, step)
        if step <= s:
            return {}
        dt = (now - t) / (step - s)
        out = {"step_time": dt}
        if batch:
            out["examples_per_s"] = batch / dt
            if tokens_per_example:
                out["tokens_per_s"] = batch * tokens_per_example / dt
        if flops and peak:
            out["mfu"] = flops / dt / peak
        return out


def _global_batch_size(local: Any) -> int | None:
    leaves = [x for x in jax.tree.leaves(local) if np.ndim(x) >= 1]
    return int(np.shape(leaves[0])[0]) * jax.process_count() if leaves else None


def _printer(enabled: bool) -> Callable[[str], None]:
    def say(text: str | None) -> None:
        if enabled and text:
            print(text, file=sys.stderr, flush=True)

    return say


def _startup_summary(
    state: TrainState,
    mesh: Mesh | None,
    info: job_lib.JobInfo,
    description: str,
    step: int,
    resumed_from: int | None,
    ckpt: Checkpointer | None,
) -> str:
    count, total, per_device = job_lib.param_summary(state.params)
    mesh_text = "single device" if mesh is None else ", ".join(f"{a}={n}" for a, n in mesh.shape.items())
    start = "fresh start" if resumed_from is None else f"resumed from step {resumed_from}"
    if ckpt is not None and ckpt.skipped:
        start += f" (skipped damaged: {'; '.join(ckpt.skipped)})"
    return (
        f"{description}: mesh {mesh_text} ({jax.device_count()} {jax.default_backend()} devices, "
        f"{jax.process_count()} processes); strategy {info.strategy or 'unsharded'}; topology "
        f"{info.topology or 'none'}\n{description}: {count:,} parameters, {job_lib.human_bytes(total)} "
        f"({job_lib.human_bytes(per_device)} per device); {start} at step {step}"
    )


def _log_line(description: str, record: dict[str, Any], num_steps: int) -> str:
    parts = [f"{description} step {record['step']}/{num_steps}", f"loss {record['loss']:.5g}"]
    if "lr" in record:
        parts.append(f"lr {record['lr']:.3g}")
    if "step_time" in record:
        parts.append(f"{record['step_time'] * 1e3:.1f} ms/step")
    if "examples_per_s" in record:
        parts.append(f"{record['examples_per_s']:.4g} examples/s")
    if "tokens_per_s" in record:
        parts.append(f"{record['tokens_per_s']:.4g} tokens/s")
    if "mfu" in record:
        parts.append(f"MFU {record['mfu']:.1%}")
    return "  ".join(parts)


def _all_finite(tree: Any) -> jax.Array:
    leaves = [jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(tree) if jnp.issubdtype(x.dtype, jnp.inexact)]
    return jnp.all(jnp.stack(leaves)) if leaves else jnp.array(True)


def _scalar(x: Any) -> Any:
    arr = np.asarray(x)
    return arr.item() if arr.size == 1 else arr.tolist()


def _batch_axis() -> str:
    from jaxpapers.core import axes

    return axes.BATCH
