"""Typed settings of the online-autoregressive experiments: frozen, validated dataclasses (no JAX here).

Experiments build them from a config group with ``core.config.to_dataclass``; bad values raise one
``ConfigError`` naming the field, the value and what is allowed.

==============  ==========================  ==========================================
group           class                       claims
==============  ==========================  ==========================================
``latch``       :class:`LatchConfig`        O1, O2 (configs/online_autoregressive/latch.py)
``taxonomy``    :class:`TaxonomyConfig`     O3
``ceiling``     :class:`CeilingConfig`      O4
``ltf_exact``   :class:`LTFExactConfig`     O5
``ltf_games``   :class:`LTFGamesConfig`     O6
``enumeration`` :class:`EnumerationConfig`  O7
==============  ==========================  ==========================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

FAMILIES = ("finite8", "pow2", "squares", "naturals")


def increasing(
    name: str, values: Iterable[int], lo: int = 1, hi: int | None = None, empty_ok: bool = False
) -> tuple[int, ...]:
    """A strictly increasing tuple of integers in [lo, hi] (non-empty unless ``empty_ok``)."""
    values = tuple(values)
    out = tuple(int(v) for v in values)
    if (
        (not out and not empty_ok)
        or list(out) != sorted(set(out))
        or any(o != v for o, v in zip(out, values, strict=True))
    ):
        raise ConfigError(
            f"{name}={values!r} is not allowed; need strictly increasing integers in [{lo}, {hi or 'inf'}]"
        )
    for i, v in enumerate(out):
        check_range(f"{name}[{i}]", v, lo, hi)
    return out


def _truncation(name: str, r_mult: int, r_offset: int, ms: tuple[int, ...]) -> None:
    check_range(f"{name}.r_mult", r_mult, 0, 64)
    check_range(f"{name}.r_offset", r_offset, 0, 10_000)
    for m in ms:  # spec Pitfall: R < 2M silently lowers the dense latch's value
        if r_mult * m + r_offset < 2 * m:
            raise ConfigError(
                f"{name}: R = {r_mult}·M + {r_offset} = {r_mult * m + r_offset} < 2M at M={m}; need R >= 2M"
            )


@dataclasses.dataclass(frozen=True)
class LatchConfig:
    """O1/O2: latch K = {0..R-1}, R = r_mult·M + r_offset (spec: 4M + 8)."""

    ms_exact: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    ms_played: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
    ms_cot_exact: tuple[int, ...] = (1, 2)
    r_mult: int = 4
    r_offset: int = 8
    random_rounds: int = 200
    random_seeds: int = 8

    def __post_init__(self):
        increasing("latch.ms_exact", self.ms_exact, 1, 256)
        increasing("latch.ms_played", self.ms_played, 1, 2**16)
        increasing("latch.ms_cot_exact", self.ms_cot_exact, 1, 8, empty_ok=True)
        _truncation("latch", self.r_mult, self.r_offset, self.ms_exact + self.ms_played + self.ms_cot_exact)
        check_range("latch.random_rounds", self.random_rounds, 1, 100_000)
        check_range("latch.random_seeds", self.random_seeds, 1, 10_000)

    def r(self, m: int) -> int:
        return self.r_mult * m + self.r_offset


@dataclasses.dataclass(frozen=True)
class TaxonomyConfig:
    """O3: exact Ldim of F_K^M for the K families, R = r_mult·M + r_offset."""

    ms: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    families: tuple[str, ...] = FAMILIES
    r_mult: int = 4
    r_offset: int = 8

    def __post_init__(self):
        increasing("taxonomy.ms", self.ms, 1, 256)
        for i, f in enumerate(self.families):
            check_choice(f"taxonomy.families[{i}]", f, FAMILIES)
        _truncation("taxonomy", self.r_mult, self.r_offset, self.ms)

    def r(self, m: int) -> int:
        return self.r_mult * m + self.r_offset


@dataclasses.dataclass(frozen=True)
class CeilingConfig:
    """O4: random subfamilies of LTF_d with sizes in [size_min, size_max]."""

    d: int = 3
    num_classes: int = 40
    size_min: int = 8
    size_max: int = 32
    ms: tuple[int, ...] = (1, 2, 3, 4, 8, 16)

    def __post_init__(self):
        check_range("ceiling.d", self.d, 1, 4)
        check_range("ceiling.num_classes", self.num_classes, 1, 100_000)
        check_range("ceiling.size_min", self.size_min, 2, 4096)
        check_range("ceiling.size_max", self.size_max, self.size_min, 4096)
        increasing("ceiling.ms", self.ms, 1, 1024)


@dataclasses.dataclass(frozen=True)
class LTFExactConfig:
    """O5: exact E2E Ldim of LTF_d^M (d in ``ds``, M in ``ms``; d = 4 at ``d4_ms``) and CoT values (``cot_ds``)."""

    ds: tuple[int, ...] = (1, 2, 3)
    ms: tuple[int, ...] = (1, 2, 3, 4, 8)
    d4_ms: tuple[int, ...] = (4, 16)
    cot_ds: tuple[int, ...] = (1, 2, 3)

    def __post_init__(self):
        increasing("ltf_exact.ds", self.ds, 1, 3)
        increasing("ltf_exact.ms", self.ms, 1, 64)
        increasing("ltf_exact.d4_ms", self.d4_ms, 1, 64, empty_ok=True)
        increasing("ltf_exact.cot_ds", self.cot_ds, 1, 3, empty_ok=True)


@dataclasses.dataclass(frozen=True)
class LTFGamesConfig:
    """O6: halving (E2E and CoT) vs the greedy splitting adversary, ``seeds`` tie-breaking seeds.

    Memory bounds for large d (0: everything at once): ``rows_per_call`` generators rolled out at a time (a
    power of two), ``word_chunk`` bitset words (32 generators each) counted at a time within a round.
    """

    ds: tuple[int, ...] = (2, 3, 4)
    ms: tuple[int, ...] = (1, 4, 16)
    seeds: int = 20
    tie_noise: float = 0.5
    rows_per_call: int = 0
    word_chunk: int = 0

    def __post_init__(self):
        increasing("ltf_games.ds", self.ds, 1, 6)
        increasing("ltf_games.ms", self.ms, 1, 1024)
        check_range("ltf_games.seeds", self.seeds, 1, 100_000)
        check_range("ltf_games.tie_noise", self.tie_noise, 0.0, 1.0, hi_open=True)
        check_range("ltf_games.word_chunk", self.word_chunk, 0)
        if self.rows_per_call < 0 or self.rows_per_call & (self.rows_per_call - 1):
            raise ConfigError(
                f"ltf_games.rows_per_call={self.rows_per_call!r} is not allowed; need 0 (all at once) or a power of two"
            )


@dataclasses.dataclass(frozen=True)
class EnumerationConfig:
    """O7: LTF_d counted by weight enumeration; ``weight_ranges`` per d (empty: the defaults 1,1,2,3,5,9);
    ``method`` "grid" (the whole weight grid, streamed) or "symmetric" (sorted non-negative weights closed under
    the cube's symmetries; the same set, see :mod:`..thresholds`)."""

    ds: tuple[int, ...] = (1, 2, 3, 4, 5)
    weight_ranges: tuple[int, ...] = ()
    chunk_size: int = 16_384
    method: str = "grid"

    def __post_init__(self):
        increasing("enumeration.ds", self.ds, 1, 6)
        if self.weight_ranges and len(self.weight_ranges) != len(self.ds):
            raise ConfigError(
                f"enumeration.weight_ranges={self.weight_ranges!r} is not allowed; "
                f"give one W per d ({len(self.ds)}) or none"
            )
        for i, w in enumerate(self.weight_ranges):
            check_range(f"enumeration.weight_ranges[{i}]", w, 1, 64)
        check_range("enumeration.chunk_size", self.chunk_size, 1)
        check_choice("enumeration.method", self.method, ("grid", "symmetric"))
