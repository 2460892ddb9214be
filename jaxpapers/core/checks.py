"""Validators for user input: each raises a one-line :class:`~jaxpapers.core.errors.ConfigError`
(or :class:`~jaxpapers.core.errors.PrecisionError`) naming the bad value and what is allowed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from jaxpapers.core.errors import ConfigError, PrecisionError


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
    value: Any,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> None:
    """Raises ConfigError unless every element of ``value`` is in [lo, hi] (open ends with ``lo_open``/``hi_open``).

    ``value`` is a scalar or an array (checked vectorised, so million-row sweeps stay cheap); NaN is
    out of range. The message names the first bad element (``name[i, j]=...``). Traced values (inside
    ``jit``/``vmap``) cannot be inspected and pass unchecked: check concrete inputs before tracing.
    """
    if is_traced(value):
        return
    arr = np.asarray(value, dtype=np.float64)
    bad = np.isnan(arr)
    if lo is not None:
        bad |= arr <= lo if lo_open else arr < lo
    if hi is not None:
        bad |= arr >= hi if hi_open else arr > hi
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        label = f"{name}[{', '.join(map(str, idx))}]" if arr.ndim else name
        shown = value if not arr.ndim and isinstance(value, (int, float)) else arr[idx].item()
        left, right = "(" if lo_open else "[", ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else repr(lo)
        hi_s = "inf" if hi is None else repr(hi)
        raise ConfigError(f"{label}={shown!r} is out of range; allowed {left}{lo_s}, {hi_s}{right}")


def is_traced(x: Any) -> bool:
    """True for a JAX tracer (a value inside ``jit``/``vmap`` that cannot be inspected on the host)."""
    import jax

    return isinstance(x, jax.core.Tracer)


def require_x64(what: str) -> None:
    """Raises PrecisionError unless float64 is enabled (inside ``with jax.enable_x64(True):``)."""
    import jax

    if jax.dtypes.canonicalize_dtype(np.float64) != np.float64:
        raise PrecisionError(
            f"{what} needs float64: call it inside `with jax.enable_x64(True):` "
            "(claims: Claim(x64=True); never flip the global flag)"
        )


def check_shape(name: str, shape: tuple[int, ...], expected: tuple[int | None, ...]) -> None:
    """Raises ValueError-compatible ConfigError unless ``shape`` matches ``expected`` (None = any)."""
    ok = len(shape) == len(expected) and all(e is None or e == s for s, e in zip(shape, expected, strict=False))
    if not ok:
        exp = "(" + ", ".join("*" if e is None else str(e) for e in expected) + ")"
        raise ConfigError(f"{name} has shape {tuple(shape)}; expected {exp}")


def available_memory_bytes() -> int:
    """Physical memory this process can still take: ``MemAvailable`` of /proc/meminfo on Linux (what the
    kernel can give without swapping), else free pages from ``sysconf``."""
    import os

    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def check_fits_in_memory(what: str, nbytes: float, *, hint: str = "") -> None:
    """Raises one clear error before allocating ``nbytes`` for ``what`` when that is more than the memory
    available now (instead of the machine swapping or the process being killed)."""
    from jaxpapers.core.train.job import human_bytes

    available = available_memory_bytes()
    if nbytes > available:
        raise ConfigError(
            f"{what} needs {human_bytes(nbytes)} but this machine has {human_bytes(available)} of memory available"
            + (f"; {hint}" if hint else "")
        )
