"""Typed settings of the adversary-directed experiments: frozen, validated dataclasses (no JAX here).

Experiments build them from a config group with ``core.config.to_dataclass``; a bad value raises one
``ConfigError`` naming the field, the value and what is allowed.

=============  ======================  ==========================================
group          class                   used by (config file)
=============  ======================  ==========================================
``exact``      :class:`ExactConfig`    D1 (``exact.py``)
``regimes``    :class:`RegimeConfig`   D2, D3, D4, D6 (``regimes.py``)
``dims``       :class:`DimsConfig`     D5, D8 (``dimensions.py``)
``agnostic``   :class:`AgnosticConfig` D7 (``agnostic.py``)
=============  ======================  ==========================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError


def _increasing(name: str, values, lo: int = 1) -> tuple[int, ...]:
    vals = tuple(int(v) for v in values)
    if not vals or list(vals) != sorted(set(vals)) or vals[0] < lo:
        raise ConfigError(f"{name}={tuple(values)!r} is not allowed; need strictly increasing integers >= {lo}")
    return vals


@dataclasses.dataclass(frozen=True)
class ExactConfig:
    """D1: random binary classes (T ≤ binary_t_max, |H| ≤ binary_m_max), random multiclass classes on
    |S| = multi_t with 2..multi_labels_max labels padded to |H| = multi_m_pad, named classes for T ≤ named_t_max;
    the transductive check runs on the first ``transductive_classes`` multiclass classes."""

    binary_classes: int = 200
    binary_t_max: int = 7
    binary_m_max: int = 20
    multi_classes: int = 100
    multi_t: int = 5
    multi_labels_max: int = 4
    multi_m_pad: int = 32
    named_t_max: int = 8
    randomized_named_t_max: int = 6
    transductive_classes: int = 20
    chunk_size: int = 50

    def __post_init__(self):
        check_range("exact.binary_classes", self.binary_classes, 1)
        check_range("exact.binary_t_max", self.binary_t_max, 1, 10)
        check_range("exact.binary_m_max", self.binary_m_max, 2, 64)
        check_range("exact.multi_classes", self.multi_classes, 1)
        check_range("exact.multi_t", self.multi_t, 1, 8)
        check_range("exact.multi_labels_max", self.multi_labels_max, 2, 16)
        check_range("exact.multi_m_pad", self.multi_m_pad, 2, 256)
        check_range("exact.named_t_max", self.named_t_max, 2, 10)
        check_range("exact.randomized_named_t_max", self.randomized_named_t_max, 1, self.named_t_max)
        check_range("exact.transductive_classes", self.transductive_classes, 0, self.multi_classes)
        check_range("exact.chunk_size", self.chunk_size, 1)


@dataclasses.dataclass(frozen=True)
class RegimeConfig:
    """D2 (Θ(1): T = 1..const_t_max), D3 (Θ(log T): thresholds/intervals to log_t_max, unions to
    unions_t_max), D4 (Θ(T): to linear_t_max; randomized prefix to prefix_randomized_t_max), D6 (online_t_max)."""

    const_t_max: int = 10
    sparse_ks: tuple[int, ...] = (2, 3)
    log_t_max: int = 12
    unions_t_max: int = 8
    unions_k: int = 2
    linear_t_max: int = 8
    prefix_randomized_t_max: int = 6
    online_t_max: int = 9

    def __post_init__(self):
        check_range("regimes.const_t_max", self.const_t_max, 2, 12)
        object.__setattr__(self, "sparse_ks", _increasing("regimes.sparse_ks", self.sparse_ks))
        check_range("regimes.log_t_max", self.log_t_max, 7, 12)
        check_range("regimes.unions_t_max", self.unions_t_max, 7, 10)  # the octave slope needs T = 7
        check_range("regimes.unions_k", self.unions_k, 1, 4)
        check_range("regimes.linear_t_max", self.linear_t_max, 2, 10)
        check_range("regimes.prefix_randomized_t_max", self.prefix_randomized_t_max, 1, self.linear_t_max)
        check_range("regimes.online_t_max", self.online_t_max, 1, 12)


@dataclasses.dataclass(frozen=True)
class DimsConfig:
    """D5: dimensions on nested domains T = 1..(small_t_max | linear_t_max | ao_t_max); D8: AO_T and the
    prefix class for T in ``gap_ts``."""

    small_t_max: int = 10
    linear_t_max: int = 8
    ao_t_max: int = 6
    gap_ts: tuple[int, ...] = (3, 4, 5, 6)

    def __post_init__(self):
        check_range("dims.small_t_max", self.small_t_max, 2, 12)
        check_range("dims.linear_t_max", self.linear_t_max, 2, 10)
        check_range("dims.ao_t_max", self.ao_t_max, 2, 8)
        object.__setattr__(self, "gap_ts", _increasing("dims.gap_ts", self.gap_ts, lo=3))
        check_range("dims.gap_ts[-1]", self.gap_ts[-1], 3, 8)


@dataclasses.dataclass(frozen=True)
class AgnosticConfig:
    """D7: horizons per family and adversary seeds (AgnosticRandom ``seeds``, PerfectTreeRandom ``tree_seeds``)."""

    thresholds_ts: tuple[int, ...] = (16, 32, 64, 128, 256)
    intervals_ts: tuple[int, ...] = (16, 32, 64, 128)
    subsets_ts: tuple[int, ...] = (16, 32, 64, 128, 256)
    prefix_ts: tuple[int, ...] = (4, 8, 12)
    seeds: int = 32
    tree_seeds: int = 8

    def __post_init__(self):
        for name in ("thresholds_ts", "intervals_ts", "subsets_ts", "prefix_ts"):
            vals = _increasing(f"agnostic.{name}", getattr(self, name), lo=2)
            if len(vals) < 2:
                raise ConfigError(f"agnostic.{name}={vals!r} needs at least two horizons (a slope is fitted)")
            object.__setattr__(self, name, vals)
        check_range("agnostic.prefix_ts[-1]", self.prefix_ts[-1], 2, 14)
        check_range("agnostic.seeds", self.seeds, 2)
        check_range("agnostic.tree_seeds", self.tree_seeds, 1)
