"""The memory module: which old nodes reappear (spec, "Memory module"; paper §4.3, Table 8).

log P(v, t) = −(t − ℓ_v)/λ + α log(deg_v / deg_max) + β log f_v over the window W of the last k snapshots
(computed in log space: β ≈ 9 overflows the naive product), and N̂_old nodes sampled **without replacement**
∝ P by Gumbel-top-k: argsort(log P + Gumbel) — exact, and one sort. Also the decoder's node features.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.topoged.config import DEGREE_MODES
from jaxpapers.topoged.data.events import Snapshot


@dataclasses.dataclass(frozen=True)
class WindowStats:
    """Per candidate node of W (sorted ``node_ids``): gap t − ℓ_v ≥ 1, last-seen degree, window degree sum and
    the number f_v of window snapshots containing it."""

    node_ids: np.ndarray
    gap: np.ndarray
    last_degree: np.ndarray
    degree_sum: np.ndarray
    freq: np.ndarray


def window_stats(window: list[Snapshot]) -> WindowStats:
    """Statistics of the window snapshots (oldest first; gap 1 = seen in the newest)."""
    k = len(window)
    last: dict[int, tuple[int, int]] = {}
    dsum: dict[int, int] = {}
    freq: dict[int, int] = {}
    for i, s in enumerate(window):
        for v, d in zip(s.node_ids.tolist(), s.degrees().tolist(), strict=True):
            last[v] = (i, d)
            dsum[v] = dsum.get(v, 0) + d
            freq[v] = freq.get(v, 0) + 1
    ids = np.array(sorted(last), np.int64)
    return WindowStats(
        ids,
        np.array([k - last[v][0] for v in ids.tolist()], np.float64),
        np.array([last[v][1] for v in ids.tolist()], np.float64),
        np.array([dsum[v] for v in ids.tolist()], np.float64),
        np.array([freq[v] for v in ids.tolist()], np.float64),
    )


def reappearance_logits(
    stats: WindowStats, alpha: float, beta: float, lam: float, degree: str = "last"
) -> np.ndarray:
    """float64[|W|] log P(v, t) up to a constant; ``degree`` = ``"last"`` (reference) or ``"window"`` (summed)."""
    check_range("lam", lam, 0.0, lo_open=True)
    check_choice("degree", degree, DEGREE_MODES)
    deg = stats.last_degree if degree == "last" else stats.degree_sum
    dmax = max(float(deg.max()) if deg.size else 1.0, 1.0)
    with np.errstate(divide="ignore"):
        logdeg = np.log(np.maximum(deg, 1e-12) / dmax)
    return -stats.gap / lam + alpha * logdeg + beta * np.log(stats.freq)


def sample_old_nodes(rng: np.random.Generator, logits: np.ndarray, n: int) -> np.ndarray:
    """Indices of ``n`` draws without replacement ∝ exp(logits) (Gumbel-top-k; all of them if n ≥ |W|)."""
    check_range("n", n, 0)
    g = rng.gumbel(size=len(logits))
    order = np.argsort(-(np.asarray(logits) + g), kind="stable")
    return np.sort(order[: min(n, len(logits))])


def fit_memory_params(
    windows: list[list[Snapshot]],
    targets: list[Snapshot],
    n_old: list[int],
    grid: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]],
    *,
    degree: str = "last",
    seed: int = 0,
) -> tuple[tuple[float, float, float], float]:
    """(α, β, λ) maximising the summed true positives of the sampled old nodes over the validation targets
    (strict node F1 at fixed budget sizes is monotone in it), with one fixed Gumbel draw per target; returns
    the best triple and its mean strict node F1."""
    stats = [window_stats(w) for w in windows]
    rng = np.random.default_rng(seed)
    noise = [rng.gumbel(size=len(s.node_ids)) for s in stats]
    best, best_score = (0.0, 0.0, 1.0), -1.0
    for a, b, lam in itertools.product(*grid):
        f1 = []
        for s, g, tgt, n in zip(stats, noise, targets, n_old, strict=True):
            order = np.argsort(-(reappearance_logits(s, a, b, lam, degree) + g), kind="stable")[:n]
            tp = np.isin(s.node_ids[order], tgt.node_ids).sum()
            f1.append(2 * tp / max(len(order) + tgt.n_nodes, 1))
        if np.mean(f1) > best_score + 1e-12:
            best, best_score = (float(a), float(b), float(lam)), float(np.mean(f1))
    return best, best_score


def node_features(
    stats: WindowStats, node_ids: np.ndarray, is_new: np.ndarray, bins: np.ndarray, n_levels: int, k: int, lam: float
) -> np.ndarray:
    """float32[N, 5 + n_levels]: [log1p(last degree), log1p(window degree sum), f_v/k, exp(−gap/λ), 1[new],
    one-hot(bin)]; new nodes (and old nodes outside the window) are zero except 1[new] and the bin."""
    n = len(node_ids)
    x = np.zeros((n, 5 + n_levels), np.float32)
    pos = np.searchsorted(stats.node_ids, node_ids)
    pos = np.clip(pos, 0, max(len(stats.node_ids) - 1, 0))
    found = (~is_new) & (len(stats.node_ids) > 0)
    if len(stats.node_ids):
        found &= stats.node_ids[pos] == node_ids
    x[found, 0] = np.log1p(stats.last_degree[pos[found]])
    x[found, 1] = np.log1p(stats.degree_sum[pos[found]])
    x[found, 2] = stats.freq[pos[found]] / k
    x[found, 3] = np.exp(-stats.gap[pos[found]] / lam)
    x[:, 4] = is_new
    x[np.arange(n), 5 + np.asarray(bins, np.int64)] = 1.0
    return x
