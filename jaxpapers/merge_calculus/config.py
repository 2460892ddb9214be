"""Typed settings of the merge-calculus experiments: frozen, validated dataclasses (no JAX here).

===============  ========================  ==========================================================
group            class                     claims
===============  ========================  ==========================================================
``sweep``        :class:`SweepConfig`      MC1-MC5, MC6 (the LR-sweep protocol: data, width, grid)
``graphs``       :class:`GraphsConfig`     MC1-MC5 (which graphs; names as in ``graph.from_name``)
``fit``          :class:`FitConfig`        MC1-MC3 (bootstrap of the log-log fits)
``diagnostic``   :class:`DiagnosticConfig` MC7 (Ĉ: graphs, width, batch, inits)
``width``        :class:`WidthConfig`      MC6 (widths × parameterisations)
===============  ========================  ==========================================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.merge_calculus.graph import from_name

DATASETS = ("digits", "cifar10", "synthetic")
SCORES = ("mean", "tail")


def _graphs(field: str, names: tuple[str, ...], minimum: int = 1) -> None:
    if len(names) < minimum:
        raise ConfigError(f"{field}={names!r}: need at least {minimum} graph(s)")
    for n in names:
        from_name(n)


@dataclasses.dataclass(frozen=True)
class SweepConfig:
    """The LR-sweep protocol: data, width, batch, T steps, log-uniform grid of ``n_lrs`` in [lr_lo, lr_hi], seeds."""

    dataset: str = "digits"
    data_dir: str = ""
    data_limit: int = 0  # 0: all rows
    width: int = 64
    batch: int = 64
    steps: int = 80
    lr_lo: float = 0.03
    lr_hi: float = 3.0
    n_lrs: int = 16
    seeds: tuple[int, ...] = (0, 1)
    score: str = "mean"

    def __post_init__(self):
        check_choice("sweep.dataset", self.dataset, DATASETS)
        check_range("sweep.data_limit", self.data_limit, 0)
        check_range("sweep.width", self.width, 1)
        check_range("sweep.batch", self.batch, 1)
        check_range("sweep.steps", self.steps, 5)
        check_range("sweep.lr_lo", self.lr_lo, 0.0, lo_open=True)
        check_range("sweep.lr_hi", self.lr_hi, self.lr_lo, lo_open=True)
        check_range("sweep.n_lrs", self.n_lrs, 3)
        if not self.seeds:
            raise ConfigError("sweep.seeds=() is not allowed; need at least one seed")
        check_choice("sweep.score", self.score, SCORES)


# The full preset's protocol (CIFAR-10, spec "Claims to reproduce"): shared by MC1-MC5 and MC6.
FULL_SWEEP = dict(
    dataset="cifar10",
    data_dir="data/cifar-10-batches-bin",
    width=512,
    batch=128,
    steps=390,
    lr_lo=1e-3,
    lr_hi=10.0,
    n_lrs=24,
    seeds=(0, 1, 2),
)


def sweep_group(**overrides):
    """``cfg.sweep`` for a config file: :class:`SweepConfig`'s defaults with ``overrides`` (validated now)."""
    import ml_collections

    return ml_collections.ConfigDict(dataclasses.asdict(SweepConfig(**overrides)))


@dataclasses.dataclass(frozen=True)
class GraphsConfig:
    """``base`` = G₀ (the proxy), ``mc1`` chains, ``mc2`` pooled graphs (MC2/MC3/MC5), ``mc4`` equal-depth graphs."""

    base: str = "chain:1"
    mc1: tuple[str, ...] = ("chain:1", "chain:2", "chain:4", "chain:6")
    mc2: tuple[str, ...] = ("chain:2", "chain:8", "res:4", "res:16", "dmup:16", "concat:4,4")
    mc4: tuple[str, ...] = ("res:16", "dmup:16")
    extra: tuple[str, ...] = ()  # swept and reported (e.g. the known miss), never judged

    def __post_init__(self):
        _graphs("graphs.base", (self.base,))
        _graphs("graphs.mc1", self.mc1, 2)
        _graphs("graphs.mc2", self.mc2, 3)
        _graphs("graphs.mc4", self.mc4, 2)
        _graphs("graphs.extra", self.extra, 0)
        if self.base in self.mc2:
            raise ConfigError(f"graphs.base={self.base!r} is one of graphs.mc2; G₀ must be held out of MC5")

    @property
    def all(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.base, *self.mc1, *self.mc2, *self.mc4, *self.extra)))


@dataclasses.dataclass(frozen=True)
class FitConfig:
    n_boot: int = 2000

    def __post_init__(self):
        check_range("fit.n_boot", self.n_boot, 10)


@dataclasses.dataclass(frozen=True)
class DiagnosticConfig:
    """MC7: Ĉ on ``graphs`` at ``width``, one batch of ``batch`` rows, averaged over ``inits`` inits."""

    graphs: tuple[str, ...] = ("chain:1", "chain:2", "chain:4", "chain:8", "res:4", "res:16", "dmup:16", "concat:4,4")
    width: int = 64
    batch: int = 256
    inits: int = 3

    def __post_init__(self):
        _graphs("diagnostic.graphs", self.graphs, 3)
        check_range("diagnostic.width", self.width, 1)
        check_range("diagnostic.batch", self.batch, 1)
        check_range("diagnostic.inits", self.inits, 1)


@dataclasses.dataclass(frozen=True)
class WidthConfig:
    """MC6: ``graph`` swept at each of ``widths`` under μP and SP."""

    graph: str = "chain:4"
    widths: tuple[int, ...] = (128, 256, 512, 1024)

    def __post_init__(self):
        _graphs("width.graph", (self.graph,))
        if len(self.widths) < 2:
            raise ConfigError(f"width.widths={self.widths!r}: need at least two widths")
        for i, w in enumerate(self.widths):
            check_range(f"width.widths[{i}]", w, 1)
