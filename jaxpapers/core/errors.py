"""User-facing error types.

Every error a user can cause (a bad config value, an unknown claim, a wrong shape or path) derives
from :class:`JaxpapersError`. The CLI prints such errors as one line, without a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable


class JaxpapersError(Exception):
    """Base class of errors whose message is meant for the user, printed as one line."""


class ConfigError(JaxpapersError, ValueError):
    """A config file, preset, field or value that does not exist or is not allowed."""


class UnknownNameError(JaxpapersError, KeyError):
    """A paper, claim, config or option name that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class CheckpointMismatchError(JaxpapersError):
    """A workdir holds a checkpoint written by a different model or config."""


class NonFiniteError(JaxpapersError, FloatingPointError):
    """Training produced a NaN or Inf."""


class ClaimSkipped(JaxpapersError):
    """Raised inside an experiment when a requirement is unmet (an optional extra, a GPU)."""


def choices_text(allowed: Iterable[object]) -> str:
    """Formats allowed values for an error message: ``'a', 'b' or 'c'``."""
    items = [repr(a) for a in allowed]
    if not items:
        return "(nothing)"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def check_choice(name: str, value: object, allowed: Iterable[object]) -> None:
    """Raises ConfigError naming ``name``, the bad ``value`` and what is allowed."""
    allowed = list(allowed)
    if value not in allowed:
        raise ConfigError(f"{name}={value!r} is not allowed; choose {choices_text(allowed)}")


def check_range(
    name: str,
    value: float,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> None:
    """Raises ConfigError unless lo <= value <= hi (open ends when ``lo_open``/``hi_open``)."""
    bad = False
    if lo is not None:
        bad |= value <= lo if lo_open else value < lo
    if hi is not None:
        bad |= value >= hi if hi_open else value > hi
    if bad:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else repr(lo)
        hi_s = "inf" if hi is None else repr(hi)
        raise ConfigError(f"{name}={value!r} is out of range; allowed {left}{lo_s}, {hi_s}{right}")


def check_shape(name: str, shape: tuple[int, ...], expected: tuple[int | None, ...]) -> None:
    """Raises ValueError-compatible ConfigError unless ``shape`` matches ``expected`` (None = any)."""
    ok = len(shape) == len(expected) and all(e is None or e == s for s, e in zip(shape, expected, strict=False))
    if not ok:
        exp = "(" + ", ".join("*" if e is None else str(e) for e in expected) + ")"
        raise ConfigError(f"{name} has shape {tuple(shape)}; expected {exp}")
