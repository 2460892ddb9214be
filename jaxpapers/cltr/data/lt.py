"""Long-tailed class counts and the subsample that realises them (the LDAM-DRW construction).

Profiles (kaidic/LDAM-DRW, ``imb_factor = 1/IF``), written with the same float expression so that the
floors land on the same integers:

* ``exp``:  ``n_c = int(n_max * (1/IF) ** (c / (C - 1.0)))``
* ``step``: ``n_c = n_max`` for the first ``C // 2`` classes, ``int(n_max * (1/IF))`` for the rest.

:func:`make_long_tailed` draws the indices exactly as LDAM-DRW does (one legacy ``RandomState(seed)``, then
per class in class order a shuffle of that class's indices and the first ``n_c``); :func:`draw_long_tailed_rng`
uses ``numpy.random.default_rng`` and gives *different* indices: it is not LDAM-compatible.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

PROFILES = ("exp", "step")
RULES = ("half", "many_medium_few")


def lt_counts(num_classes: int, n_max: int, imbalance: float, profile: str) -> np.ndarray:
    """Per-class counts ``[C]`` (int64) of the ``profile`` with class imbalance factor ``IF = imbalance``."""
    check_range("num_classes", num_classes, 2)
    check_range("n_max", n_max, 1)
    check_range("imbalance", imbalance, 1.0)
    check_choice("profile", profile, PROFILES)
    imb_factor = 1.0 / imbalance
    if profile == "exp":
        counts = [int(n_max * (imb_factor ** (c / (num_classes - 1.0)))) for c in range(num_classes)]
    else:
        head = num_classes // 2
        counts = [int(n_max)] * head + [int(n_max * imb_factor)] * (num_classes - head)
    counts = np.asarray(counts, np.int64)
    if counts.min() < 1:
        raise ConfigError(f"imbalance={imbalance!r} with n_max={n_max} leaves a class with 0 images; lower imbalance")
    return counts


def _check_labels(labels: np.ndarray, counts: np.ndarray) -> None:
    if labels.ndim != 1:
        raise ConfigError(f"labels has shape {labels.shape}; expected a 1-d integer array")
    have = np.bincount(labels, minlength=len(counts))
    short = np.flatnonzero(have[: len(counts)] < counts)
    if short.size:
        c = int(short[0])
        raise ConfigError(f"counts[{c}]={int(counts[c])} exceeds the {int(have[c])} images of class {c} in labels")


def make_long_tailed(labels: Sequence[int] | np.ndarray, counts: Sequence[int] | np.ndarray, seed: int) -> np.ndarray:
    """Indices into ``labels`` of the LT subset, LDAM-DRW order: ``rs = RandomState(seed)``; for ``c = 0..C-1``:
    ``idx = where(labels == c)[0]; rs.shuffle(idx); take idx[:counts[c]]`` (concatenated in class order)."""
    labels = np.asarray(labels, np.int64)
    counts = np.asarray(counts, np.int64)
    _check_labels(labels, counts)
    rs = np.random.RandomState(seed)
    out = []
    for c, n_c in enumerate(counts):
        idx = np.where(labels == c)[0]
        rs.shuffle(idx)
        out.append(idx[:n_c])
    return np.concatenate(out)


def draw_long_tailed_rng(
    labels: Sequence[int] | np.ndarray, counts: Sequence[int] | np.ndarray, seed: int
) -> np.ndarray:
    """Like :func:`make_long_tailed` but with ``numpy.random.default_rng(seed)``: other indices, NOT
    LDAM-compatible (kept for users who want the modern generator; never mix the two when comparing)."""
    labels = np.asarray(labels, np.int64)
    counts = np.asarray(counts, np.int64)
    _check_labels(labels, counts)
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(np.where(labels == c)[0])[:n_c] for c, n_c in enumerate(counts)])


def many_medium_few(counts: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """ImageNet-LT's split by *training* count: Many (> 100), Medium (20..100), Few (< 20); empty groups dropped."""
    counts = np.asarray(counts)
    groups = [
        np.flatnonzero(counts > 100),
        np.flatnonzero((counts >= 20) & (counts <= 100)),
        np.flatnonzero(counts < 20),
    ]
    return [g for g in groups if g.size]


def partition(counts: Sequence[int] | np.ndarray, rule: str | Sequence[Sequence[int]] = "half") -> list[np.ndarray]:
    """Class partitions ``P_1..P_m`` (arrays of class ids), most frequent first.

    ``"half"``: Head = the first ``ceil(C/2)`` classes by frequency (stable order), Tail = the rest;
    ``"many_medium_few"``: three stages by training count; or an explicit list of class lists (checked to be
    a partition of ``0..C-1``)."""
    counts = np.asarray(counts)
    if isinstance(rule, str):
        check_choice("rule", rule, RULES)
        if rule == "many_medium_few":
            return many_medium_few(counts)
        order = np.argsort(-counts, kind="stable")
        h = -(-len(counts) // 2)
        return [np.sort(order[:h]), np.sort(order[h:])]
    parts = [np.asarray(p, np.int64) for p in rule]
    flat = np.sort(np.concatenate(parts)) if parts else np.array([], np.int64)
    if not np.array_equal(flat, np.arange(len(counts))):
        raise ConfigError(
            f"rule={[p.tolist() for p in parts]!r} is not a partition of the classes 0..{len(counts) - 1}"
        )
    return parts


def partition_ratio(counts: Sequence[int] | np.ndarray, parts: Sequence[np.ndarray]) -> float:
    """``IF_part = n_H / n_T``: images in the first partition over images in the last (``= 1/r``)."""
    counts = np.asarray(counts)
    if len(parts) < 2:
        raise ConfigError(f"parts has {len(parts)} partition(s); IF_part needs at least two")
    return float(counts[parts[0]].sum() / counts[parts[-1]].sum())
