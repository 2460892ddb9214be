"""What a training *job* adds to ``fit``: preemption handling, the start-up summary and job-log lines.

``jaxpapers train`` (``launch/train.py``) runs the paper's ``train(cfg, workdir, ...)`` inside
:func:`job`, so that every ``fit`` under it

* saves the current step (data iterator included) and returns when the process gets SIGTERM (the
  preemption notice of SLURM, GKE and TPU/GPU VMs), instead of dying with the async save in flight;
* prints a start-up summary (mesh, parameters and bytes per device, strategy, compile time, fresh
  start or "resumed from step N");
* off a terminal (SLURM, nohup, pod logs), prints one plain line every ``log_every`` steps;
* computes model FLOP utilisation from the compiled step's cost analysis and the topology's peak.

Claims and tests that call ``fit`` outside a job get none of this (no signal handlers are touched).
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading
from collections.abc import Iterator
from typing import Any


@dataclasses.dataclass(frozen=True)
class JobInfo:
    """The job around ``fit``: where it runs and what it may do to the process."""

    topology: str | None = None
    strategy: str | None = None
    peak_flops_per_device: float | None = None  # dense bf16 peak of one device, for MFU
    handle_sigterm: bool = False
    summary: bool = False  # print the start-up summary and (off a terminal) job-log lines
    profile_steps: tuple[int, int] | None = None  # trace steps [start, stop) into <workdir>/profile


_CURRENT = JobInfo()


def current() -> JobInfo:
    """The innermost :func:`job`'s info (a default JobInfo outside any job)."""
    return _CURRENT


@contextlib.contextmanager
def job(info: JobInfo) -> Iterator[JobInfo]:
    """Runs the body as a training job described by ``info``."""
    global _CURRENT
    previous, _CURRENT = _CURRENT, info
    try:
        yield info
    finally:
        _CURRENT = previous


class StopRequest:
    """Set by SIGTERM while installed (main thread only; elsewhere it never fires)."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        self._previous: Any = None

    def __bool__(self) -> bool:
        return self.signal_name is not None

    def _handler(self, signum: int, frame: Any) -> None:
        del frame
        self.signal_name = signal.Signals(signum).name

    @contextlib.contextmanager
    def installed(self, enabled: bool) -> Iterator[StopRequest]:
        if not enabled or threading.current_thread() is not threading.main_thread():
            yield self
            return
        self._previous = signal.signal(signal.SIGTERM, self._handler)
        try:
            yield self
        finally:
            signal.signal(signal.SIGTERM, self._previous)


def param_summary(params: Any) -> tuple[int, int, int]:
    """(parameter count, total bytes, largest per-device bytes) of a pytree of (sharded) arrays."""
    import jax

    count = total = 0
    per_device: dict[Any, int] = {}
    for x in jax.tree.leaves(params):
        count += int(x.size)
        total += int(x.size) * x.dtype.itemsize
        shards = getattr(x, "addressable_shards", None)
        if shards:
            for sh in shards:
                per_device[sh.device] = per_device.get(sh.device, 0) + int(sh.data.size) * x.dtype.itemsize
    return count, total, max(per_device.values(), default=total)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} TiB"


def step_flops(lowered: Any) -> float | None:
    """FLOPs of one step from XLA's cost analysis of the lowered step (None where the backend gives none).

    The analysis counts a loop body once (``scan`` over layers): for scanned models it is a lower bound.
    """
    try:
        cost = lowered.cost_analysis()
    except Exception:  # noqa: BLE001 - cost analysis is best effort on every backend
        return None
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else None
    flops = (cost or {}).get("flops")
    return float(flops) if flops and flops > 0 else None


class ProfileWindow:
    """Traces the steps ``[start, stop)`` with ``jax.profiler`` into ``<workdir>/profile`` (TensorBoard's
    profile plugin and Perfetto read it). A window that has not closed when training ends is closed then."""

    def __init__(self, steps: tuple[int, int] | None, workdir: Any) -> None:
        self.steps = steps
        self.directory = None if workdir is None else f"{workdir}/profile"
        self.active = False

    def before_step(self, step: int) -> None:
        """``step`` is the number of steps done; the next one is ``step + 1``."""
        if self.steps and not self.active and step + 1 == self.steps[0] and self.directory:
            import jax

            jax.profiler.start_trace(self.directory)
            self.active = True

    def after_step(self, step: int, block_on: Any) -> None:
        if self.active and step + 1 >= self.steps[1]:
            self.close(block_on)

    def close(self, block_on: Any = None) -> None:
        if self.active:
            import jax

            if block_on is not None:
                jax.block_until_ready(block_on)
            jax.profiler.stop_trace()
            self.active = False
