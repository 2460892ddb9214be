"""Typed settings of the resource-allocation experiments: frozen, validated dataclasses (no JAX here).

Experiments build them from a config group with ``core.config.to_dataclass``; bad values raise one
``ConfigError`` naming the field, the value and what is allowed. Config files under
``configs/resource_allocation/`` hold plain ``ConfigDict`` presets whose groups map onto these classes:

===============  ======================  ===============================================
group            class                   used by
===============  ======================  ===============================================
``solver``       :class:`SolverConfig`   every equilibrium computation
``instances``    :class:`InstanceConfig` random instances (``valuations.sample_instances``)
``search``       :class:`SearchConfig`   adversarial search (full presets)
``liquid``       :class:`LiquidConfig`   RA8
``feasible``     :class:`FeasibleConfig` RA9
===============  ======================  ===============================================

Top-level α grids and agent counts are checked with :func:`alpha_grid` and :func:`agent_counts`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError


def alpha_grid(name: str, values: Iterable[float]) -> tuple[float, ...]:
    """A non-empty tuple of α values, each in (0, 1] (1 = Kelly)."""
    a = tuple(float(x) for x in values)
    if not a:
        raise ConfigError(f"{name} is empty; give at least one α in (0, 1]")
    for x in a:
        check_range(name, x, 0.0, 1.0, lo_open=True)
    return a


def agent_counts(name: str, values: Iterable[int]) -> tuple[int, ...]:
    """A non-empty, strictly increasing tuple of integers ≥ 1 (numbers of agents added to a family)."""
    values = tuple(values)
    ns = tuple(int(n) for n in values)
    if not ns or any(n < 1 for n in ns) or list(ns) != sorted(set(ns)):
        raise ConfigError(f"{name}={values!r} is not allowed; need increasing integers >= 1")
    return ns


@dataclasses.dataclass(frozen=True)
class SolverConfig:
    """Iteration counts of the nested bisection and the chunk size of vmapped sweeps.

    float64: 80 outer × 60 inner steps exhaust bisection (100 × 100 gives identical results to 1e-15);
    float32: 40 × 40 suffices for 1e-6. ``chunk_size`` bounds memory (``None``: one vmap over everything).
    """

    outer_iters: int = 80
    inner_iters: int = 60
    chunk_size: int | None = None

    def __post_init__(self):
        check_range("solver.outer_iters", self.outer_iters, 1, 10_000)
        check_range("solver.inner_iters", self.inner_iters, 1, 10_000)
        if self.chunk_size is not None:
            check_range("solver.chunk_size", self.chunk_size, 1)

    @property
    def iters(self) -> dict[str, int]:
        """The iteration counts as keyword arguments of the ``*_one`` solver functions."""
        return {"outer_iters": self.outer_iters, "inner_iters": self.inner_iters}


@dataclasses.dataclass(frozen=True)
class InstanceConfig:
    """How random instances are drawn (spec "Data"); ``valuations.sample_instances(key, cfg)`` draws them."""

    num: int = 4096
    n_min: int = 2
    n_max: int = 8
    family_probs: tuple[float, float, float] = (0.3, 0.5, 0.2)
    log10_s_range: tuple[float, float] = (-3.0, 0.5)

    def __post_init__(self):
        check_range("instances.num", self.num, 1)
        check_range("instances.n_min", self.n_min, 2)
        check_range("instances.n_max", self.n_max, self.n_min)
        if len(self.log10_s_range) != 2 or self.log10_s_range[0] > self.log10_s_range[1]:
            raise ConfigError(
                f"instances.log10_s_range={self.log10_s_range!r} is not allowed; need (lo, hi) with lo <= hi"
            )


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """``generations = 0`` disables the search (quick presets); ``population`` is rounded to the elites' multiple."""

    population: int = 4096
    generations: int = 0
    elite_frac: float = 0.1
    sigma: float = 0.3

    def __post_init__(self):
        check_range("search.population", self.population, 2)
        check_range("search.generations", self.generations, 0)
        check_range("search.elite_frac", self.elite_frac, 0.0, 1.0, lo_open=True)
        check_range("search.sigma", self.sigma, 0.0, lo_open=True)

    @property
    def num_elites(self) -> int:
        return max(1, int(round(self.population * self.elite_frac)))


@dataclasses.dataclass(frozen=True)
class LiquidConfig:
    """RA8: budget-constrained equilibria against the liquid optimum."""

    alphas: tuple[float, ...] = (1.0, 0.5, 0.2, 0.05)
    log10_budget_range: tuple[float, float] = (-3.0, 0.0)
    audit_num: int = 128
    grid_size: int = 2001

    def __post_init__(self):
        object.__setattr__(self, "alphas", alpha_grid("liquid.alphas", self.alphas))
        if 1.0 not in self.alphas or min(self.alphas) == 1.0:
            raise ConfigError(f"liquid.alphas={self.alphas!r} must contain 1.0 (Kelly) and at least one α < 1")
        check_range("liquid.audit_num", self.audit_num, 0)
        check_range("liquid.grid_size", self.grid_size, 3)


@dataclasses.dataclass(frozen=True)
class FeasibleConfig:
    """RA9: the budget-capped outcome on random bids and budgets."""

    num: int = 10_000
    n: int = 8
    alphas: tuple[float, ...] = (1.0, 0.5, 0.2, 0.05)
    log10_bid_range: tuple[float, float] = (-2.0, 1.0)
    log10_budget_range: tuple[float, float] = (-3.0, 0.0)
    bisection_iters: int = 200
    cross_check_num: int = 64
    max_rounds: int = 20_000

    def __post_init__(self):
        object.__setattr__(self, "alphas", alpha_grid("feasible.alphas", self.alphas))
        check_range("feasible.num", self.num, 1)
        check_range("feasible.n", self.n, 2)
        check_range("feasible.bisection_iters", self.bisection_iters, 1)
        check_range("feasible.cross_check_num", self.cross_check_num, 0, self.num)
        check_range("feasible.max_rounds", self.max_rounds, 1)
