"""Deadline functions f(n) as integer, monotone lookup tables (spec "Deadlines" and Pitfall on f^{-1}).

Names: ``lin<c>`` (⌈c·n⌉), ``nlogn`` (⌈n·log2(n+1)⌉), ``n1.5`` (⌈n^{1.5}⌉, exact integer square root),
``nsqrtlog`` (⌈n·√log2(n+1)⌉). f^{-1} for the hedging schedule is a binary search on the integer table.
"""

from __future__ import annotations

import math

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

SUPERLINEAR = ("nlogn", "n1.5", "nsqrtlog")


def check_deadline(name: str, field: str = "deadline") -> None:
    """Raise one ConfigError unless ``name`` is ``lin<c>`` (c > 0) or one of the superlinear names."""
    if name in SUPERLINEAR:
        return
    if name.startswith("lin"):
        try:
            c = float(name[3:])
        except ValueError:
            c = -1.0
        if c > 0:
            return
    raise ConfigError(f"{field}={name!r} is not allowed; use 'lin<c>' with c > 0 (e.g. 'lin2') or one of {SUPERLINEAR}")


def deadline_value(name: str, n: int) -> int:
    """f(n) for one integer n ≥ 0 (exact integer arithmetic where it matters)."""
    check_deadline(name)
    if name.startswith("lin"):
        return math.ceil(float(name[3:]) * n - 1e-12)
    if name == "n1.5":
        r = math.isqrt(n**3)
        return r if r * r == n**3 else r + 1
    if name == "nlogn":
        return math.ceil(n * math.log2(n + 1) - 1e-9)
    return math.ceil(n * math.sqrt(math.log2(n + 1)) - 1e-9)


def deadline_table(name: str, n_max: int) -> np.ndarray:
    """int64[n_max + 1]: f(0..n_max); monotone non-decreasing and integer-valued (checked)."""
    check_range("n_max", n_max, 1, 10**8)
    table = np.array([deadline_value(name, n) for n in range(n_max + 1)], np.int64)
    if np.any(np.diff(table) < 0):
        raise ConfigError(f"deadline {name!r} is not monotone on [0, {n_max}]")
    return table


def n_of_t(table: np.ndarray, T: int) -> np.ndarray:
    """int64[T + 1]: n_t = max{n ≥ 1 : f(n) ≤ t} (1 if none), by binary search on the integer table."""
    t = np.arange(T + 1)
    n = np.searchsorted(table[1:], t, side="right")  # number of n ≥ 1 with f(n) ≤ t
    if n.max() >= table.size - 1 and table[-1] <= T:
        raise ConfigError(f"deadline table up to n = {table.size - 1} is too short for horizon T = {T}")
    return np.maximum(n, 1).astype(np.int64)


def g_of_t(table: np.ndarray, T: int) -> np.ndarray:
    """float64[T + 1]: g_t = f(n_t) / n_t, the schedule's slack factor."""
    n = n_of_t(table, T)
    return table[n] / n
