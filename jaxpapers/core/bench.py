"""Timing helpers for ``benchmarks/``: warm up, block until ready, report the median of repeats.

Every benchmark prints a ratio against a baseline measured in the same run (e.g. vmapped JAX vs a
NumPy loop); absolute times are only meaningful on the lent GPU.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import jax


def time_fn(fn: Callable[..., Any], *args: Any, warmup: int = 1, repeats: int = 5, min_time_s: float = 0.0) -> float:
    """Median wall time (s) of ``fn(*args)`` after ``warmup`` calls; JAX outputs are waited for."""
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    start_all = time.perf_counter()
    while len(times) < repeats or time.perf_counter() - start_all < min_time_s:
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_interleaved(
    fns: dict[str, Callable[[], Any]], *, rounds: int = 7, min_time_s: float = 0.05
) -> dict[str, float]:
    """Median wall time (s) of each zero-argument function, measured in alternation.

    Each of ``rounds`` rounds times every function in turn (repeating it for at least ``min_time_s`` and
    taking the median), so a baseline and a candidate see the same machine state: on a shared or
    frequency-scaling machine the ratio of interleaved medians is stable where separate runs drift by 2x.
    Every function runs once before timing (compilation, caches).
    """
    for fn in fns.values():
        jax.block_until_ready(fn())
    per_round: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            per_round[name].append(time_fn(fn, warmup=0, repeats=1, min_time_s=min_time_s))
    return {name: statistics.median(times) for name, times in per_round.items()}


def report_ratio(
    name: str,
    baseline_s: float,
    candidate_s: float,
    *,
    baseline: str = "baseline",
    candidate: str = "jax",
    goal: float | None = None,
) -> float:
    """Prints one benchmark line and returns the speed-up ``baseline_s / candidate_s``."""
    ratio = baseline_s / candidate_s
    verdict = "" if goal is None else f"  (goal ≥ {goal:g}x: {'met' if ratio >= goal else 'NOT met'})"
    print(
        f"{name}: {baseline} {baseline_s * 1e3:.2f} ms, {candidate} {candidate_s * 1e3:.2f} ms, "
        f"speed-up {ratio:.1f}x{verdict}  [{jax.default_backend()}]"
    )
    return ratio
