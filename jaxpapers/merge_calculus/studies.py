"""The shared LR-sweep study behind MC1-MC5 (memoised: the first claim pays, the others reuse it).

Every graph named in the ``graphs`` group is swept once per process with the ``sweep`` protocol
(one compiled program per graph, all seeds × learning rates vmapped). A minimum on the edge of the
grid is re-run once on a grid shifted by half its span toward that edge (same program: the learning
rates are an input, so no recompilation) and stays flagged if it is still on the edge.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.config import to_dataclass
from jaxpapers.merge_calculus import data as data_lib
from jaxpapers.merge_calculus.config import GraphsConfig, SweepConfig
from jaxpapers.merge_calculus.graph import from_name
from jaxpapers.merge_calculus.sweep import SweepResult, log_grid, lr_sweep


@dataclasses.dataclass(frozen=True)
class Study:
    """Sweep results by graph name, the seconds each graph took (compile + train) and which were re-gridded."""

    results: dict[str, SweepResult]
    seconds: dict[str, float]
    shifted: tuple[str, ...]

    def eta(self, name: str) -> float:
        return self.results[name].refined_eta_star


def load_data(sweep: SweepConfig) -> dict[str, np.ndarray]:
    """The sweep's data set (memoised per process)."""
    return memo.shared(
        "merge_calculus/data",
        sweep.dataset,
        sweep.data_dir,
        sweep.data_limit,
        fn=lambda: data_lib.load(sweep.dataset, sweep.data_dir, sweep.data_limit or None),
    )


def _sweep_one(name: str, sweep: SweepConfig, d, lrs: np.ndarray, width: int, param: str):
    args = dict(seeds=sweep.seeds, steps=sweep.steps, width=width, batch=sweep.batch, score=sweep.score, param=param)
    res = lr_sweep(from_name(name), d, lrs, **args)
    if not res.edge_flag:
        return res, False
    k = len(lrs) // 2
    ratio = lrs[1] / lrs[0]
    low_edge = res.eta_star <= lrs[0] * (1 + 1e-9)
    shifted = lrs * ratio ** (-k if low_edge else k)
    return lr_sweep(from_name(name), d, shifted, **args), True


def run_sweeps(sweep: SweepConfig, names: tuple[str, ...], width: int | None = None, param: str = "mup") -> Study:
    """Sweeps every graph in ``names`` (unmemoised)."""
    d = load_data(sweep)
    lrs = log_grid(sweep.lr_lo, sweep.lr_hi, sweep.n_lrs)
    results, seconds, shifted = {}, {}, []
    for name in names:
        start = time.perf_counter()
        results[name], moved = _sweep_one(name, sweep, d, lrs, width or sweep.width, param)
        seconds[name] = time.perf_counter() - start
        if moved:
            shifted.append(name)
    return Study(results, seconds, tuple(shifted))


def study(cfg) -> Study:
    """The memoised sweep of every graph in ``cfg.graphs`` (shared by MC1-MC5)."""
    sweep = to_dataclass(SweepConfig, cfg.sweep)
    graphs = to_dataclass(GraphsConfig, cfg.graphs)
    return memo.shared("merge_calculus/sweeps", sweep, graphs.all, fn=lambda: run_sweeps(sweep, graphs.all))
