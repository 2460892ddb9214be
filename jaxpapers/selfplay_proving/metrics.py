"""Measurements of a run (spec "What to build: metrics.py"): growth fits with R², clusters touched, the
variant fraction of conjectures, backbone theorems proved, and the diversity of pooled conjectures."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float, Int, Real

from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving.diffusion import pooled_similarity


class Fit(NamedTuple):
    """Least-squares line y = intercept + slope·x with R², on the points ``lo..hi`` (inclusive round indices)."""

    slope: float
    intercept: float
    r2: float
    lo: int
    hi: int


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    if x.size < 3:
        raise ConfigError(f"a growth fit needs at least 3 rounds in its window; got {x.size}")
    slope, icpt = np.polyfit(x, y, 1)
    res = y - (icpt + slope * x)
    tot = np.sum((y - y.mean()) ** 2)
    return float(slope), float(icpt), float(1.0 - np.sum(res**2) / tot) if tot > 0 else 1.0


def size_window(sizes: Real[ArrayLike, " r1"], lo: float, hi: float) -> tuple[int, int]:
    """The first and last round k with lo ≤ sizes[k] ≤ hi (the sizes are non-decreasing)."""
    s = np.asarray(sizes, np.float64)
    idx = np.flatnonzero((s >= lo) & (s <= hi))
    if idx.size < 3:
        raise ConfigError(f"fewer than 3 rounds with {lo} ≤ |S_k| ≤ {hi} (sizes {s.min():.0f}…{s.max():.0f})")
    return int(idx[0]), int(idx[-1])


def loglinear_fit(sizes: Real[ArrayLike, " r1"], lo: int, hi: int) -> Fit:
    """log|S_k| = a + r·k on rounds lo..hi: r is the exponential growth rate per round."""
    k = np.arange(lo, hi + 1, dtype=np.float64)
    return Fit(*_line(k, np.log(np.asarray(sizes, np.float64)[lo : hi + 1])), lo, hi)


def loglog_fit(sizes: Real[ArrayLike, " r1"], lo: int, hi: int) -> Fit:
    """log|S_k| = a + b·log k on rounds lo..hi (lo ≥ 1): b is the polynomial growth exponent."""
    if lo < 1:
        raise ConfigError(f"a log-log fit needs rounds ≥ 1; got lo={lo}")
    k = np.arange(lo, hi + 1, dtype=np.float64)
    return Fit(*_line(np.log(k), np.log(np.asarray(sizes, np.float64)[lo : hi + 1])), lo, hi)


def clusters_touched(proved_round: Int[ArrayLike, "*b n"], labels: Int[ArrayLike, " nodes"], upto: int) -> np.ndarray:
    """Blocks containing a node proved by round ``upto`` (proved_round in 0..upto), per run."""
    pr = np.asarray(proved_round)
    lab = np.asarray(labels)
    n = lab.size
    hit = (pr[..., :n] >= 0) & (pr[..., :n] <= upto)
    out = np.zeros(pr.shape[:-1], np.int64)
    for idx in np.ndindex(*pr.shape[:-1]):
        out[idx] = np.unique(lab[hit[idx]]).size
    return out


def backbone_proved(proved_round: Int[ArrayLike, "*b n"], backbone: int, upto: int) -> np.ndarray:
    """Backbone theorems (nodes 0..B−1) proved by round ``upto``, per run."""
    pr = np.asarray(proved_round)[..., :backbone]
    return np.sum((pr >= 0) & (pr <= upto), axis=-1)


def variant_fraction(conj: Int[ArrayLike, "*b r m"], backbone: int) -> np.ndarray:
    """Fraction of all conjectures (every round pooled; −1 = no conjecture) that are variants (node ≥ B)."""
    c = np.asarray(conj).reshape(*np.shape(conj)[:-2], -1)
    made = c >= 0
    return np.sum(made & (c >= backbone), axis=-1) / np.maximum(np.sum(made, axis=-1), 1)


def pooled_diversity(conj: Int[ArrayLike, "*b r m"], S_t: Float[ArrayLike, "n n"]) -> np.ndarray:
    """Div_t of the empirical distribution of all conjectures of a run (every round pooled), per run."""
    c = np.asarray(conj)
    n = np.shape(S_t)[0]
    c = np.where(c < n, c, -1).reshape(*c.shape[:-2], -1)
    return 1.0 / pooled_similarity(c, S_t)


def round_diversity(conj: Int[ArrayLike, "*b r m"], S_t: Float[ArrayLike, "n n"]) -> np.ndarray:
    """Div_t of each round's conjectures, per run and round."""
    return 1.0 / pooled_similarity(np.asarray(conj), S_t)
