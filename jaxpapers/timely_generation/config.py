"""Typed settings of the timely-generation experiments: frozen, validated dataclasses (no JAX here).

==========  ======================  ===========================================================
group       class                   claims
==========  ======================  ===========================================================
``sanity``  :class:`SanityConfig`   T0 (configs/timely_generation/sanity.py)
``phase``   :class:`PhaseConfig`    T1–T5 (configs/timely_generation/phase.py)
==========  ======================  ===========================================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.timely_generation.deadlines import check_deadline


@dataclasses.dataclass(frozen=True)
class SanityConfig:
    """T0: oracle G0 on 𝒞_AP (A × B progressions), K = AP(k_a, k_b), f(n) = n, horizon T, ``seeds`` A_rand runs."""

    A: int = 16
    B: int = 16
    k_a: int = 3
    k_b: int = 5
    T: int = 2**14
    seeds: int = 2
    deadline: str = "lin1"

    def __post_init__(self):
        check_range("sanity.A", self.A, 1, 1024)
        check_range("sanity.B", self.B, 1, 1024)
        check_range("sanity.k_a", self.k_a, 1, self.A)
        check_range("sanity.k_b", self.k_b, 1, self.B)
        check_range("sanity.T", self.T, 1, 2**24)
        check_range("sanity.seeds", self.seeds, 1, 1000)
        check_deadline(self.deadline, "sanity.deadline")


@dataclasses.dataclass(frozen=True)
class PhaseConfig:
    """T1–T5: 𝒞_hard (J, E), the phase adversary with P phases, A_sparse with K = L_{J, sparse_m}."""

    P: int = 4
    J: int = 8
    E: int = 12
    sparse_m: int = 16
    deadlines: tuple[str, ...] = ("lin2", "nlogn", "n1.5")
    superlinear: tuple[str, ...] = ("nlogn", "n1.5")
    eps_grid: tuple[float, ...] = (0.1, 0.2, 0.4, 0.8)
    k_fixed: int = 4
    linear_cs: tuple[int, ...] = (1, 2, 4, 8)
    t5_eps: float = 0.2
    delta: float = 0.25
    u_mult: int = 4

    def __post_init__(self):
        check_range("phase.P", self.P, 2, 8)
        check_range("phase.J", self.J, 1, 30)
        check_range("phase.E", self.E, 1, 40)
        check_range("phase.sparse_m", self.sparse_m, 2, 2**self.E)
        if self.sparse_m & (self.sparse_m - 1):
            raise ConfigError(f"phase.sparse_m={self.sparse_m!r} is not allowed; need a power of 2 in [2, 2^E]")
        for i, f in enumerate(self.deadlines + self.superlinear):
            check_deadline(f, f"phase.deadlines[{i}]")
        for f in self.superlinear:
            if f.startswith("lin"):
                raise ConfigError(f"phase.superlinear contains {f!r}; allowed: nlogn, n1.5, nsqrtlog")
        if not self.eps_grid:
            raise ConfigError("phase.eps_grid=() is not allowed; need at least one ε in (0, 1]")
        for i, e in enumerate(self.eps_grid):
            check_range(f"phase.eps_grid[{i}]", e, 0.0, 1.0, lo_open=True)
        check_range("phase.k_fixed", self.k_fixed, 1, 10_000)
        for i, c in enumerate(self.linear_cs):
            check_range(f"phase.linear_cs[{i}]", c, 1, 64)
        check_range("phase.t5_eps", self.t5_eps, 0.0, 1.0, lo_open=True)
        check_range("phase.delta", self.delta, 0.0, 10.0, lo_open=True)
        check_range("phase.u_mult", self.u_mult, 1, 64)
