"""Per-variable shape regimes and their grouping into COMONet streams (spec "Regimes").

Every input variable x_j has one of nine regimes: ``free`` or one of the eight shape constraints of
the COMONet abstract. A decreasing variant is reduced to an increasing one by the flip
``x̃_j = s_j x_j`` (s_j = -1), applied inside the model; negation preserves convexity/concavity, so
``cvx_dec`` is ``cvx_inc`` in x̃ and ``ccv_dec`` is ``ccv_inc`` in x̃. After the flip each variable
lands in one group:

=========  ===========  ============  =====  =====
code       ∂f/∂x_j      ∂²f/∂x_j²     s_j    group
=========  ===========  ============  =====  =====
free       any          any           +1     U
inc        ≥ 0          any           +1     M
dec        ≤ 0          any           -1     M
cvx        any          ≥ 0           +1     C
ccv        any          ≤ 0           +1     V
cvx_inc    ≥ 0          ≥ 0           +1     CM
cvx_dec    ≤ 0          ≥ 0           -1     CM
ccv_inc    ≥ 0          ≤ 0           +1     VM
ccv_dec    ≤ 0          ≤ 0           -1     VM
=========  ===========  ============  =====  =====

Regimes are given by position (one code per column, in order) or by column name
(``{"bmi": "inc", "age": "free"}`` plus the column list; unlisted columns are free).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence

import numpy as np

from jaxpapers.core.checks import choices_text
from jaxpapers.core.errors import ConfigError


class Regime(enum.StrEnum):
    """The nine per-variable regimes (the value is the code users write)."""

    FREE = "free"
    INC = "inc"
    DEC = "dec"
    CVX = "cvx"
    CCV = "ccv"
    CVX_INC = "cvx_inc"
    CVX_DEC = "cvx_dec"
    CCV_INC = "ccv_inc"
    CCV_DEC = "ccv_dec"


CODES: tuple[str, ...] = tuple(r.value for r in Regime)
GROUPS: tuple[str, ...] = ("U", "M", "C", "CM", "V", "VM")

# code -> (monotone sign of ∂f/∂x_j, curvature sign of ∂²f/∂x_j², flip s_j, group)
_TABLE: dict[str, tuple[int, int, int, str]] = {
    "free": (0, 0, +1, "U"),
    "inc": (+1, 0, +1, "M"),
    "dec": (-1, 0, -1, "M"),
    "cvx": (0, +1, +1, "C"),
    "ccv": (0, -1, +1, "V"),
    "cvx_inc": (+1, +1, +1, "CM"),
    "cvx_dec": (-1, +1, -1, "CM"),
    "ccv_inc": (+1, -1, +1, "VM"),
    "ccv_dec": (-1, -1, -1, "VM"),
}


@dataclasses.dataclass(frozen=True)
class GroupSpec:
    """The parsed regimes of ``d`` variables: codes, flips, groups and the signs a certifier checks.

    Attributes:
      regimes: one code per variable, in column order.
      columns: the column names, when regimes were given by name (else None).
      flip: s_j ∈ {+1, -1}; the model multiplies x_j by it before grouping.
      mono_sign: +1 (nondecreasing), -1 (nonincreasing) or 0 (no monotonicity) per variable.
      curv_sign: +1 (convex), -1 (concave) or 0 (no curvature constraint) per variable.
      groups: for each of U, M, C, CM, V, VM the (sorted) variable indices in it.
    """

    regimes: tuple[str, ...]
    columns: tuple[str, ...] | None = None

    def __post_init__(self):
        for j, code in enumerate(self.regimes):
            if code not in _TABLE:
                where = f"column {self.columns[j]!r}" if self.columns else f"position {j}"
                raise ConfigError(f"regime {code!r} ({where}) is unknown; allowed: {choices_text(CODES)}")
        if self.columns is not None and len(self.columns) != len(self.regimes):
            raise ConfigError(f"{len(self.columns)} columns but {len(self.regimes)} regimes; give one per column")

    @property
    def num_features(self) -> int:
        return len(self.regimes)

    @property
    def flip(self) -> tuple[int, ...]:
        return tuple(_TABLE[c][2] for c in self.regimes)

    @property
    def mono_sign(self) -> tuple[int, ...]:
        return tuple(_TABLE[c][0] for c in self.regimes)

    @property
    def curv_sign(self) -> tuple[int, ...]:
        return tuple(_TABLE[c][1] for c in self.regimes)

    @property
    def groups(self) -> dict[str, tuple[int, ...]]:
        out: dict[str, list[int]] = {g: [] for g in GROUPS}
        for j, code in enumerate(self.regimes):
            out[_TABLE[code][3]].append(j)
        return {g: tuple(v) for g, v in out.items()}

    def group(self, name: str) -> tuple[int, ...]:
        """Indices of one group (``U``, ``M``, ``C``, ``CM``, ``V`` or ``VM``)."""
        if name not in GROUPS:
            raise ConfigError(f"group {name!r} is unknown; allowed: {choices_text(GROUPS)}")
        return self.groups[name]

    @property
    def constrained(self) -> tuple[int, ...]:
        """Indices of every variable with a shape constraint (all but ``free``)."""
        return tuple(j for j, c in enumerate(self.regimes) if c != "free")

    def name(self, j: int) -> str:
        """Column name of variable ``j`` (or ``x{j}``)."""
        return self.columns[j] if self.columns else f"x{j}"

    def arrays(self) -> dict[str, np.ndarray]:
        """flip, mono_sign and curv_sign as float arrays of shape [d] (for jitted code)."""
        return {
            "flip": np.asarray(self.flip, np.float64),
            "mono_sign": np.asarray(self.mono_sign, np.float64),
            "curv_sign": np.asarray(self.curv_sign, np.float64),
        }


def parse_regimes(
    spec: Sequence[object] | Mapping[object, object] | GroupSpec,  # codes are str | Regime; checked here
    columns: Sequence[str] | int | None = None,
) -> GroupSpec:
    """Parses regimes given by position or by column name into a :class:`GroupSpec`.

    Args:
      spec: one code per column in order (``["free", "inc", ...]``), or a mapping from column name
        (or integer position) to code; columns the mapping does not name are ``free``. A GroupSpec
        passes through (checked against ``columns``).
      columns: the column names (needed for a mapping keyed by name), or the number of columns.

    Raises:
      ConfigError: naming an unknown code, an unknown column, a duplicate, or a length mismatch, and
        listing what is allowed.
    """
    names: tuple[str, ...] | None
    if columns is None:
        names, n = None, None
    elif isinstance(columns, int | np.integer):
        if columns < 1:
            raise ConfigError(f"columns={columns!r} must be a positive number of features or a list of names")
        names, n = None, int(columns)
    elif isinstance(columns, str):
        raise ConfigError(f"columns={columns!r} must be a list of column names, not one string")
    else:
        names = tuple(str(c) for c in columns)
        n = len(names)
        dupes = sorted({c for c in names if names.count(c) > 1})
        if dupes:
            raise ConfigError(f"columns has duplicate names {dupes}; column names must be unique")

    if isinstance(spec, GroupSpec):
        if n is not None and spec.num_features != n:
            raise ConfigError(f"regimes cover {spec.num_features} features but columns has {n}")
        return spec if names is None else GroupSpec(spec.regimes, names)
    if isinstance(spec, str):
        raise ConfigError(
            f"regimes={spec!r} is a single string; give one code per column (a list) or a {{column: code}} mapping"
        )
    if isinstance(spec, Mapping):
        return _from_mapping(spec, names, n)
    codes = tuple(_code(c, f"position {j}") for j, c in enumerate(spec))
    if not codes:
        raise ConfigError("regimes is empty; give one code per column")
    if n is not None and len(codes) != n:
        raise ConfigError(f"regimes has {len(codes)} codes but there are {n} columns; give one code per column")
    return GroupSpec(codes, names)


def _from_mapping(spec: Mapping, names: tuple[str, ...] | None, n: int | None) -> GroupSpec:
    if n is None:
        raise ConfigError("regimes given as a {column: code} mapping need columns= (the column names or their number)")
    codes = ["free"] * n
    for key, value in spec.items():
        if isinstance(key, int | np.integer) and not isinstance(key, bool):
            if not 0 <= key < n:
                raise ConfigError(f"regimes names position {key}, outside the {n} columns (allowed 0..{n - 1})")
            j = int(key)
        else:
            if names is None:
                raise ConfigError(
                    f"regimes names column {key!r} but no column names were given; pass columns=[...names...]"
                )
            if key not in names:
                shown = list(names) if len(names) <= 40 else [*names[:40], "..."]
                raise ConfigError(f"regimes names column {key!r}, which does not exist; columns: {shown}")
            j = names.index(key)
        codes[j] = _code(value, f"column {key!r}")
    return GroupSpec(tuple(codes), names)


def _code(value: object, where: str) -> str:
    code = value.value if isinstance(value, Regime) else value
    if not isinstance(code, str) or code not in _TABLE:
        raise ConfigError(f"regime {value!r} ({where}) is unknown; allowed: {choices_text(CODES)}")
    return code
