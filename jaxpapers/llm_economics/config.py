"""Typed settings (frozen, validated dataclasses) and the config groups built from them; imports no JAX.

Config files (``configs/llm_economics/*.py``) import only this module and ``jaxpapers.core.config``: they
build their ``firm`` and ``solver`` groups with :func:`firm_config` and :func:`solver_config`, so the
defaults live in one place. Experiments turn the groups back into :class:`FirmConfig` / :class:`SolverOptions`
with ``jaxpapers.core.config.to_dataclass``, and a :class:`FirmConfig` into the model's pytree with
``model.FirmParams.from_config`` (this module knows nothing of the model: no import cycle).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import ml_collections
import numpy as np

from jaxpapers.core.checks import check_choice, check_range

LAW_NAMES: tuple[str, ...] = ("besiroglu", "hoffmann_rounded", "hoffmann_unrounded")
DEMANDS: tuple[str, ...] = ("pareto", "loglogistic", "loguniform")
CAP_KINDS: tuple[str, ...] = ("hard", "tpp", "soft")
# R0 (revenue at ℓ = 1 nat, $) that puts N*(E = 5e17) at 4e11 parameters for γ = 2.5, ρ = 0, Besiroglu (spec).
CALIBRATED_R0 = 161234.674


@dataclasses.dataclass(frozen=True)
class FirmConfig:
    """The ``firm`` group of a config (see ``model.FirmParams`` for the meaning of each field)."""

    law: str = "besiroglu"
    demand: str = "pareto"
    cap_kind: str = "hard"
    R0: float = CALIBRATED_R0
    gamma: float = 2.5
    rho: float = 0.0
    E: float = 5e17
    D_max: float = 1e12
    ell0: float = 1e-3
    ell_max: float = 10.0
    tokens_per_param: float = 20.0

    def __post_init__(self):
        check_choice("firm.law", self.law, LAW_NAMES)
        check_choice("firm.demand", self.demand, DEMANDS)
        check_choice("firm.cap_kind", self.cap_kind, CAP_KINDS)
        for name in ("R0", "gamma", "E", "D_max", "ell0", "ell_max", "tokens_per_param"):
            check_range(f"firm.{name}", getattr(self, name), 0.0, math.inf, lo_open=True, hi_open=True)
        check_range("firm.rho", self.rho, 0.0, math.inf, hi_open=True)
        if self.demand == "loguniform":
            check_range("firm.ell_max", self.ell_max, self.ell0, None, lo_open=True)


@dataclasses.dataclass(frozen=True)
class SolverOptions:
    """Solver settings (hashable: ``jax.jit`` takes them as a static argument; spec "Solver").

    Attributes:
      newton_iters: damped Newton iterations (spec: 60); 0 returns the start (tests use it to show that the
        claims depend on Newton, not on the start).
      max_halvings: backtracking halvings per iteration before a step is rejected.
      adam_lr, adam_steps: the Adam fallback (spec: 0.05, 3000).
      init_points, init_half_width: coarse search over log C on the compute-optimal frontier (points, ± nats
        around the C at which training spend equals the revenue scale R0) that picks the compute-bound
        start; it does not use the closed-form optimum.
      bisection_iters, bisection_width: hard-cap bisection on [log N_cap − width, log N_cap].
      soft_init_n, soft_init_r: coarse grid sizes over log N (log N_cap + [−2, 6]) and log(epochs − 1) ([−6, 6]).
      chunk_size: rows per vmapped chunk (None: the whole batch at once); bounds memory for dense sweeps.
    """

    newton_iters: int = 60
    max_halvings: int = 40
    adam_lr: float = 0.05
    adam_steps: int = 3000
    init_points: int = 161
    init_half_width: float = 20.0
    bisection_iters: int = 100
    bisection_width: float = 20.0
    soft_init_n: int = 33
    soft_init_r: int = 25
    chunk_size: int | None = 4096

    def __post_init__(self):
        check_range("solver.newton_iters", self.newton_iters, 0)
        for name in ("max_halvings", "adam_steps", "init_points", "bisection_iters"):
            check_range(f"solver.{name}", getattr(self, name), 1)
        for name in ("soft_init_n", "soft_init_r"):
            check_range(f"solver.{name}", getattr(self, name), 2)
        for name in ("adam_lr", "init_half_width", "bisection_width"):
            check_range(f"solver.{name}", getattr(self, name), 0.0, lo_open=True)
        if self.chunk_size is not None:
            check_range("solver.chunk_size", self.chunk_size, 1)


def _check_grid(name: str, lo: float, hi: float, num: int) -> None:
    check_range(f"{name}_lo", lo, 0.0, math.inf, lo_open=True, hi_open=True)
    check_range(f"{name}_hi", hi, lo, math.inf, lo_open=True, hi_open=True)
    check_range("num", num, 3)


@dataclasses.dataclass(frozen=True)
class EGrid:
    """The ``sweep`` group of E2/E4: ``num`` log-spaced hardware efficiencies E ∈ [e_lo, e_hi] (FLOP/$)."""

    e_lo: float = 1e17
    e_hi: float = 1e19
    num: int = 21

    def __post_init__(self):
        _check_grid("sweep.e", self.e_lo, self.e_hi, self.num)

    def values(self) -> np.ndarray:
        return np.logspace(math.log10(self.e_lo), math.log10(self.e_hi), self.num)


@dataclasses.dataclass(frozen=True)
class DataBoundGrid:
    """The ``hard``/``soft`` groups of E7/E8: a D grid at E = ``d_at_e`` and an E grid at D = ``e_at_d``."""

    d_lo: float = 10**11.5
    d_hi: float = 10**12.5
    d_at_e: float = 1e19
    e_lo: float = 1e18
    e_hi: float = 1e20
    e_at_d: float = 1e12
    num: int = 21

    def __post_init__(self):
        _check_grid("d", self.d_lo, self.d_hi, self.num)
        _check_grid("e", self.e_lo, self.e_hi, self.num)
        for name in ("d_at_e", "e_at_d"):
            check_range(name, getattr(self, name), 0.0, math.inf, lo_open=True, hi_open=True)

    def d_values(self) -> np.ndarray:
        return np.logspace(math.log10(self.d_lo), math.log10(self.d_hi), self.num)

    def e_values(self) -> np.ndarray:
        return np.logspace(math.log10(self.e_lo), math.log10(self.e_hi), self.num)


def firm_config(**overrides: Any) -> ml_collections.ConfigDict:
    """The ``firm`` config group: :class:`FirmConfig` defaults (the spec's calibration) with ``overrides``."""
    return ml_collections.ConfigDict(dataclasses.asdict(FirmConfig(**overrides)))


def solver_config(**overrides: Any) -> ml_collections.ConfigDict:
    """The ``solver`` config group: :class:`SolverOptions` defaults with ``overrides``."""
    return ml_collections.ConfigDict(dataclasses.asdict(SolverOptions(**overrides)))
