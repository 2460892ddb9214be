"""Typed settings of the cot_hierarchy experiments: frozen, validated dataclasses (no JAX here).

==============  ========================  ==========================================
group           class                     claims (config file)
==============  ========================  ==========================================
``sim``         :class:`SimConfig`        H1, H3 (configs/cot_hierarchy/simulate.py)
``lengths``     :class:`LengthConfig`     H2, H7 (configs/cot_hierarchy/lengths.py)
``pad``         :class:`PadConfig`        H4 (configs/cot_hierarchy/padding.py)
``cost``        :class:`CostConfig`       H5 (configs/cot_hierarchy/cost.py)
``diag``        :class:`DiagConfig`       H6 (configs/cot_hierarchy/diagonal.py)
==============  ========================  ==========================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

ATTENTION = ("hard", "saturated")


def _check_tuple(name, values, lo, hi, *, increasing=True):
    if not values:
        raise ConfigError(f"{name}=() is not allowed; give at least one value")
    for i, v in enumerate(values):
        check_range(f"{name}[{i}]", v, lo, hi)
    if increasing and list(values) != sorted(set(values)):
        raise ConfigError(f"{name}={tuple(values)!r} is not allowed; values must be strictly increasing")


@dataclasses.dataclass(frozen=True)
class SimConfig:
    """H1/H3: ``n_tms`` random machines (k ∈ [k_min, k_max], g ∈ g_choices, p_halt) × ``inputs`` inputs of length
    1..n_max over {1..g-1}, simulated for ``t_max`` steps; plus BB(2..4) on the blank tape."""

    n_tms: int = 128
    k_min: int = 3
    k_max: int = 6
    g_choices: tuple[int, ...] = (2, 3)
    p_halt: float = 0.08
    inputs: int = 8
    n_max: int = 12
    t_max: int = 128
    attention: tuple[str, ...] = ("hard",)
    busy_beavers: bool = True

    def __post_init__(self):
        check_range("sim.n_tms", self.n_tms, 1, 2**16)
        check_range("sim.k_min", self.k_min, 3, 16)
        check_range("sim.k_max", self.k_max, self.k_min, 16)
        _check_tuple("sim.g_choices", self.g_choices, 2, 4)
        check_range("sim.p_halt", self.p_halt, 0.0, 1.0)
        check_range("sim.inputs", self.inputs, 1, 1024)
        check_range("sim.n_max", self.n_max, 1, 512)
        check_range("sim.t_max", self.t_max, 8, 8192)
        for i, a in enumerate(self.attention):
            check_choice(f"sim.attention[{i}]", a, ATTENTION)


@dataclasses.dataclass(frozen=True)
class LengthConfig:
    """H2: parity_tm on ``parity_inputs`` random inputs per n; palindrome_tm on one palindrome per n plus
    ``random_per_n`` random strings. H7: palindromes at ``precision_ns``, float32 vs float64 scores."""

    parity_ns: tuple[int, ...] = (64, 128, 256, 512)
    parity_inputs: int = 8
    pal_ns: tuple[int, ...] = (16, 32, 64)
    random_per_n: int = 8
    precision_ns: tuple[int, ...] = (16, 32, 48, 64, 80)

    def __post_init__(self):
        _check_tuple("lengths.parity_ns", self.parity_ns, 2, 2**16)
        check_range("lengths.parity_inputs", self.parity_inputs, 1, 1024)
        _check_tuple("lengths.pal_ns", self.pal_ns, 2, 1024)
        check_range("lengths.random_per_n", self.random_per_n, 0, 1024)
        _check_tuple("lengths.precision_ns", self.precision_ns, 2, 1024)


@dataclasses.dataclass(frozen=True)
class PadConfig:
    """H4: every x ∈ {1, 2}^n, 1 ≤ n ≤ n_max; p(n) = c0 + c1·n + c2·n² with ``pad_poly`` = (c0, c1, c2)."""

    n_max: int = 8
    pad_poly: tuple[int, int, int] = (0, 0, 1)

    def __post_init__(self):
        check_range("pad.n_max", self.n_max, 1, 16)
        if len(self.pad_poly) != 3 or any(int(c) != c for c in self.pad_poly):
            raise ConfigError(f"pad.pad_poly={self.pad_poly!r} is not allowed; expected 3 integers (c0, c1, c2)")
        c0, c1, c2 = self.pad_poly
        if any(c0 + c1 * n + c2 * n * n < n for n in range(1, self.n_max + 1)):
            raise ConfigError(f"pad.pad_poly={self.pad_poly!r} is not allowed; p(n) must be ≥ n for 1 ≤ n ≤ n_max")


@dataclasses.dataclass(frozen=True)
class CostConfig:
    """H5: one decode of the right-moving machine on an input of length n, counter read at ``ts``."""

    n: int = 4
    ts: tuple[int, ...] = (256, 512, 1024, 2048)

    def __post_init__(self):
        check_range("cost.n", self.n, 1, 1024)
        _check_tuple("cost.ts", self.ts, 2, 2**17)


@dataclasses.dataclass(frozen=True)
class DiagConfig:
    """H6: ``sample`` machines of the family, inputs ⟨M⟩·1^k for k ≤ k_max, clock r(n) ∈ {n, n⌈log2 n⌉}."""

    sample: int = 512
    k_max: int = 8
    clock: str = "n"

    def __post_init__(self):
        check_range("diag.sample", self.sample, 1, 2**20)
        check_range("diag.k_max", self.k_max, 0, 1024)
        check_choice("diag.clock", self.clock, ("n", "nlogn"))
