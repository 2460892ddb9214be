"""FLOP counting (analytic and compiled) and memory helpers for FSA (spec "Cost per layer").

Analytic counts are forward FLOPs of one layer's attention with 2 FLOPs per multiply-add, for
N = T·P tokens of width D (all heads together):

* dense bidirectional: 4·N²·D;
* dense frame-causal: 2·N·(N + P)·D (query frame i sees (i+1)·P keys);
* FSA fine branch: 4·P²·D·Σ_i |S_i|  (≈ 4·N·|S|·P·D);
* routing + coarse branch: 4·T²·D (q̄·K̄ᵀ and softmax·V̄ over all frame pairs).

``compiled_stats`` reads XLA's own numbers: ``cost_analysis()["flops"]`` and
``memory_analysis().temp_size_in_bytes``. XLA counts the body of a ``while`` loop (``lax.map``,
``scan``, ``fori_loop``) once, whatever the trip count, so scaling measurements must compile
loop-free functions (the reference with one query chunk).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import numpy as np


def dense_flops(frames: int, P: int, dim: int) -> float:
    """Forward FLOPs of dense bidirectional attention: 4·N²·D."""
    n = frames * P
    return 4.0 * n * n * dim


def frame_causal_flops(frames: int, P: int, dim: int) -> float:
    """Forward FLOPs of dense frame-causal attention: 2·N·(N + P)·D (exactly Σ_i 4·P·(i+1)·P·D)."""
    n = frames * P
    return 2.0 * n * (n + P) * dim


def fsa_fine_flops(num_sel: np.ndarray | int, P: int, dim: int, frames: int | None = None) -> float:
    """Forward FLOPs of the fine branch: 4·P²·D·Σ_i |S_i| (``num_sel`` per query frame, or one count
    for all ``frames``). ``num_sel`` counts per head; ``dim`` = N·H sums the heads."""
    total = float(np.sum(num_sel)) if frames is None else float(num_sel) * frames
    return 4.0 * P * P * dim * total


def routing_coarse_flops(frames: int, dim: int) -> float:
    """Forward FLOPs of routing logits and the coarse branch: 4·T²·D."""
    return 4.0 * frames * frames * dim


def selected_frames_per_query(frames: int, k: int, num_forced: int = 0) -> np.ndarray:
    """|S_i| for a single segment: own frame + min(i, k + forced) history frames."""
    i = np.arange(frames)
    return 1 + np.minimum(i, k + num_forced)


@dataclasses.dataclass(frozen=True)
class CompiledStats:
    """XLA's estimates for one compiled function."""

    flops: float
    temp_bytes: int
    argument_bytes: int
    output_bytes: int


def compiled_stats(fn: Callable[..., Any], *args: Any) -> CompiledStats:
    """Compiles ``fn`` for ``args`` (no run) and returns XLA's FLOP count and memory analysis."""
    compiled = jax.jit(fn).lower(*args).compile()
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):  # older JAX returned one dict per device
        cost = cost[0]
    mem = compiled.memory_analysis()
    return CompiledStats(
        flops=float(cost.get("flops", 0.0)),
        temp_bytes=int(mem.temp_size_in_bytes),
        argument_bytes=int(mem.argument_size_in_bytes),
        output_bytes=int(mem.output_size_in_bytes),
    )
