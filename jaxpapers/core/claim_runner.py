"""Runs one claim: its result row, the time and compile accounting, the watchdog, the control rule.

Both :mod:`jaxpapers.core.verify` (the whole run and its reports) and :mod:`jaxpapers.core.verify_jobs` (worker
processes) use this module; it imports neither, so the three have no import circle.
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from jaxpapers.core import config as config_lib
from jaxpapers.core.claims import Claim, Measurement
from jaxpapers.core.errors import ClaimSkipped


@dataclasses.dataclass
class ClaimResult:
    """One row of the verify table (also one entry of results.json)."""

    id: str
    statement: str
    source: str
    kind: str
    preset: str
    verdict: str
    predicted: str = ""
    measured: str = ""
    criterion: str = ""
    reason: str = ""
    margin: float | None = None
    seconds: float = 0.0  # wall-clock seconds of the experiment (what budgets judge)
    cpu_s: float = 0.0  # CPU seconds meanwhile: all threads (XLA's included) and finished child processes
    compile_s: float = 0.0  # of ``seconds``, XLA compiling in this process (or reading the persistent cache)
    cache_hits: int = 0  # programs read back from the persistent compilation cache instead of compiled
    trace_s: float = 0.0  # of ``seconds``, tracing jaxprs and lowering them to MLIR (before XLA compiles)
    programs: int = 0  # XLA programs compiled or read back from the cache in this process
    host_s: float = 0.0  # of ``seconds``, Python on the calling thread outside tracing and compiling
    execute_s: float = 0.0  # the rest of ``seconds``: waiting on XLA's execution threads or on child processes
    budget_s: float | None = None
    over_budget: bool = False
    n: int | None = None
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    figures: list[str] = dataclasses.field(default_factory=list)
    captions: list[str] = dataclasses.field(default_factory=list)  # one per figure ("" where none was given)
    error: str | None = None


def has_gpu() -> bool:
    import jax

    return jax.default_backend() == "gpu"


# A claim still running after HARD_LIMIT_FACTOR x its budget (at least HARD_LIMIT_MIN_S) is hung, e.g. in
# a runtime deadlock that no Python exception can interrupt: the watchdog prints every thread's stack and
# ends the process with exit code 2, so that CI fails with a reason instead of waiting for its own timeout.
HARD_LIMIT_FACTOR = 10.0
HARD_LIMIT_MIN_S = 300.0


def hard_limit_s(budget_s: float | None) -> float | None:
    """Seconds after which a claim with ``budget_s`` counts as hung (None: no budget, no watchdog)."""
    return None if budget_s is None else max(HARD_LIMIT_FACTOR * budget_s, HARD_LIMIT_MIN_S)


def _abort_hung(claim_id: str, limit_s: float) -> None:
    sys.stderr.write(f"\njaxpapers verify: {claim_id} still running after {limit_s:.0f} s; it is hung. Stacks:\n")
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    sys.stderr.flush()
    os._exit(2)


@contextlib.contextmanager
def _watchdog(claim_id: str, limit_s: float | None):
    if limit_s is None:
        yield
        return
    timer = threading.Timer(limit_s, _abort_hung, args=(claim_id, limit_s))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def cpu_seconds() -> float:
    """CPU seconds used so far by this process (every thread) and by its finished, waited-for children
    (the 8-device subprocesses of sharded claims, espeak-ng, data workers)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class CompileMeter:
    """Seconds of tracing, lowering and XLA compilation, programs compiled and persistent-cache hits in this
    process, from ``jax.monitoring`` events: a claim's seconds split into compiling and running, so that a cold
    cache (a fresh CI machine) and a warm one (repeated runs) can be told apart. Child processes are not counted."""

    _totals = {"trace_s": 0.0, "compile_s": 0.0, "programs": 0, "hits": 0}
    _installed = False
    _TRACE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration")
    _COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

    @classmethod
    def install(cls) -> None:
        if cls._installed:
            return
        from jax import monitoring

        def on_duration(event: str, duration: float, **_) -> None:
            if event == cls._COMPILE_EVENT:
                cls._totals["compile_s"] += duration
                cls._totals["programs"] += 1
            elif event in cls._TRACE_EVENTS:
                cls._totals["trace_s"] += duration

        def on_event(event: str, **_) -> None:
            if event == "/jax/compilation_cache/cache_hits":
                cls._totals["hits"] += 1

        monitoring.register_event_duration_secs_listener(on_duration)
        monitoring.register_event_listener(on_event)
        cls._installed = True

    @classmethod
    def read(cls) -> tuple[float, int]:
        """(compile seconds, cache hits) so far."""
        cls.install()
        return cls._totals["compile_s"], cls._totals["hits"]

    @classmethod
    def snapshot(cls) -> dict[str, float]:
        """Every total so far: ``trace_s``, ``compile_s``, ``programs``, ``hits``."""
        cls.install()
        return dict(cls._totals)


def run_claim(
    claim: Claim, preset: str = "quick", *, out_dir: str | os.PathLike | None = None, overrides: Sequence[str] = ()
) -> ClaimResult:
    """Runs one claim's experiment at ``preset`` and returns its result (never raises)."""
    import jax

    budget = claim.budget_s.get(preset)
    res = ClaimResult(
        id=claim.id,
        statement=claim.statement,
        source=claim.source,
        kind=claim.kind,
        preset=preset,
        verdict="error",
        criterion=claim.predicate.describe(),
        budget_s=budget,
    )
    if preset not in claim.presets:
        res.verdict, res.reason = "skipped", f"no {preset!r} preset (has: {', '.join(claim.presets)})"
        return res
    if "gpu" in claim.requires and not has_gpu():
        res.verdict, res.reason = "skipped", f"needs a GPU (backend here: {jax.default_backend()})"
        return res
    start, cpu_start, thread_start = time.perf_counter(), cpu_seconds(), time.thread_time()
    meter_start = CompileMeter.snapshot()
    try:
        cfg = config_lib.load_preset(claim.config, preset, overrides)
        key = jax.random.key(int(cfg.get("seed", 0)))
        with _claim_context(claim), _watchdog(claim.id, hard_limit_s(budget)):
            m = claim.resolve_experiment()(cfg, key)
        if not isinstance(m, Measurement):
            raise TypeError(f"experiment returned {type(m).__name__}, not a Measurement")
        res.seconds = time.perf_counter() - start
        m.preset = preset
        outcome = claim.predicate(m)
        res.verdict, res.margin, res.reason = outcome.verdict, outcome.margin, outcome.reason
        res.measured = format_value(m.measured, m.stderr)
        res.predicted = claim.predicted_text or format_value(m.predicted)
        check_predicted(m.predicted, claim.id)
        res.n = m.n
        res.details = _jsonable(m.details)
        res.figures = _save_figures(m.figures, claim, out_dir)
        res.captions = [m.captions.get(name, "") for name in m.figures] if res.figures else []
    except ClaimSkipped as e:
        res.seconds = time.perf_counter() - start
        res.verdict, res.reason = "skipped", str(e)
    except Exception as e:  # noqa: BLE001 - any failure of an experiment is reported, and the run goes on
        res.seconds = time.perf_counter() - start
        res.verdict = "error"
        res.reason = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        res.error = traceback.format_exc()
    res.cpu_s = cpu_seconds() - cpu_start
    _split_seconds(res, time.thread_time() - thread_start, meter_start, CompileMeter.snapshot())
    if budget is not None and res.seconds > budget and res.verdict != "skipped":
        res.over_budget = True
    return res


def _split_seconds(res: ClaimResult, thread_s: float, before: dict, after: dict) -> None:
    """Splits ``res.seconds`` into tracing, compiling, host Python and execution (``--profile``).

    Tracing and XLA compilation run on the calling thread and are timed by events; the rest of that thread's
    CPU time is host Python (NumPy included); what is left of the wall time the thread spent waiting, on
    XLA's execution threads (or child processes, or I/O). An estimate: XLA:CPU may run a small program on
    the calling thread, which then counts as host time.
    """
    res.trace_s = after["trace_s"] - before["trace_s"]
    res.compile_s = after["compile_s"] - before["compile_s"]
    res.programs = int(after["programs"] - before["programs"])
    res.cache_hits = int(after["hits"] - before["hits"])
    rest = max(0.0, res.seconds - res.trace_s - res.compile_s)
    res.host_s = min(rest, max(0.0, thread_s - res.trace_s - res.compile_s))  # thread time runs a little longer
    res.execute_s = rest - res.host_s


def most_expensive(results: Sequence[ClaimResult], n: int = 10) -> list[ClaimResult]:
    """The ``n`` claims that took the most wall seconds, slowest first."""
    return sorted(results, key=lambda r: -r.seconds)[:n]


def profile_line(r: ClaimResult) -> str:
    """``compile 7.7 s (+0.9 tracing, 12 programs), execute 3.1 s, host 0.2 s`` for one claim."""
    return (
        f"compile {r.compile_s:.1f} s (+{r.trace_s:.1f} tracing, {r.programs} programs, {r.cache_hits} cached), "
        f"execute {r.execute_s:.1f} s, host {r.host_s:.1f} s"
    )


def judge_control(control: ClaimResult, positive: ClaimResult) -> None:
    """A control's pass or fail counts only when its positive claim passed; otherwise ``inconclusive``."""
    if positive.verdict != "pass" and control.verdict in ("pass", "fail"):
        control.reason = (
            f"control of {positive.id}, which did not pass ({positive.verdict}); "
            f"the control alone would have been {control.verdict}"
        )
        control.verdict = "inconclusive"


COMPARISON = re.compile(r"(<=|>=|≤|≥|<|>)\s*[-+]?[0-9.]")


def check_predicted(predicted: Any, claim_id: str) -> None:
    """Raises when a prediction is a criterion string ("≤ 0.05"): thresholds live only in the predicate."""
    values = predicted.values() if isinstance(predicted, dict) else [predicted]
    for v in values:
        if isinstance(v, str) and COMPARISON.search(v):
            raise ValueError(
                f"{claim_id}: Measurement.predicted holds the criterion {v!r}; predicted is for the theory's "
                "numbers, the threshold belongs to the claim's predicate"
            )


def format_value(value: Any, stderr: Any = None, digits: int = 6) -> str:
    """Short human-readable text for a scalar, array or dict (with ± stderr where given)."""
    if value is None:
        return ""
    if isinstance(value, dict):
        errs = stderr if isinstance(stderr, dict) else {}
        return ", ".join(f"{k}={format_value(v, errs.get(k), digits)}" for k, v in value.items())
    if isinstance(value, str):
        return value
    arr = np.asarray(value)
    if arr.dtype == bool and arr.size == 1:
        text = str(bool(arr.item()))
    elif arr.size == 1:
        text = f"{float(arr.item()):.{digits}g}"  # .item(): float() of a shape-(1,) array fails in NumPy 2
    elif arr.size <= 8:
        text = "[" + ", ".join(f"{float(x):.{min(digits, 4)}g}" for x in arr.ravel()) + "]"
    else:
        text = f"[{arr.size} values in {float(arr.min()):.4g}..{float(arr.max()):.4g}]"
    if stderr is not None and np.asarray(stderr).size == 1:
        text += f" ± {float(np.asarray(stderr).item()):.2g}"
    return text


# --------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _claim_context(claim: Claim):
    """float64 when the claim asks for it; single-threaded BLAS for NumPy references (small solves)."""
    import jax
    from threadpoolctl import threadpool_limits

    with contextlib.ExitStack() as stack:
        stack.enter_context(threadpool_limits(limits=1, user_api="blas"))
        if claim.x64:
            stack.enter_context(jax.enable_x64(True))
        yield


def _save_figures(figures: dict[str, Any], claim: Claim, out_dir: str | os.PathLike | None) -> list[str]:
    import matplotlib.pyplot as plt

    paths = []
    for name, fig in figures.items():
        if out_dir is not None:
            rel = Path("figures") / claim.paper / f"{claim.name}-{name}.png"
            path = Path(out_dir) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(path, dpi=110, bbox_inches="tight")
            paths.append(str(rel))
        plt.close(fig)
    return paths


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    try:
        arr = np.asarray(x)
    except Exception:  # noqa: BLE001
        return repr(x)
    if arr.dtype == object:
        return repr(x)
    return arr.item() if arr.size == 1 and arr.ndim == 0 else arr.tolist()
