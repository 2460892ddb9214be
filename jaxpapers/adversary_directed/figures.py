"""Figures the claims save and the notebook shows (``core.plots``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from jaxpapers.core import plots

__all__ = ["CAPTIONS", "agnostic_figure", "dimension_figure", "gap_figure", "rate_figure", "trichotomy_figure"]

CAPTIONS = {
    "constant_regime": "Exact minimax mistakes against T for classes of finite Littlestone dimension: each series "
    "should sit on its closed form (thin line of the same colour) and level off at a constant.",
    "log_regime": "Exact values for thresholds, intervals and unions of two intervals: staircases that grow like "
    "log T, on their closed forms (thin lines), with the dotted ⌊log2(T+1)⌋ for scale.",
    "linear_regime": "Classes of infinite VC or Natarajan-one prefix class: the value equals T (thin line), "
    "the Θ(T) regime.",
    "online_vs_ad": "Thresholds: standard online learning on 2^T − 1 unannounced points costs T mistakes (grey "
    "line), announcing the T instances in advance (adversary-directed) cuts it to ⌊log2(T+1)⌋ (dotted).",
    "dimensions": "Natarajan, LCdim, PLdim and Ldim at the largest T per family: PLdim (our reconstruction) is "
    "what separates the Θ(1), Θ(log T) and Θ(T) families.",
    "agnostic": "Hedge's expected regret against T on log-log axes: finite-PLdim classes should follow the dashed "
    "√T slope (fitted slopes in [0.35, 0.80]), infinite-PLdim classes the dotted T/2.",
    "ad_vs_td": "On the adaptive-order class the adversary-directed value equals PLdim = T while the transductive "
    "value equals LCdim and stays lower: choosing the order adaptively makes the game harder.",
}


def rate_figure(
    Ts,
    series: Mapping,
    *,
    title: str = "",
    log_ref: bool = False,
    predicted: Mapping | None = None,
    linear_ref: bool = False,
):
    """Game value against T for each named series, its closed form (``predicted``, same colour, thin) and,
    optionally, ⌊log2(T+1)⌋ (``log_ref``) and T (``linear_ref``) for reference. T is an integer, so the
    closed forms are drawn at every integer T as steps."""
    fig, ax = plots.figure()
    Ts = np.asarray(list(Ts))
    for k, (name, v) in enumerate(series.items()):
        v = np.asarray(v, float)
        ax.plot(Ts[: len(v)], v, "o", ms=4, color=f"C{k}", label=name)
        if predicted is not None and name in predicted:
            p = np.asarray(predicted[name], float)
            ax.plot(Ts[: len(p)], p, "-", lw=1, color=f"C{k}", alpha=0.6, drawstyle="steps-mid")
    if predicted:
        ax.plot([], [], "-", lw=1, color="gray", label="closed forms (same colour)")
    if linear_ref:
        ax.plot(Ts, Ts, "-", color="0.7", lw=2, zorder=0, label="T")
    if log_ref:
        ax.plot(Ts, np.floor(np.log2(Ts + 1.0)), "k:", lw=1, drawstyle="steps-mid", label="⌊log2(T+1)⌋")
    ax.set_xlabel("T = |S| (announced instances)")
    ax.set_ylabel("minimax mistakes")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def trichotomy_figure(values: Mapping[str, tuple]):
    """The key figure: exact adversary-directed values of one family per regime, with T and log2(T+1)."""
    fig, ax = plots.figure(width=5.0, height=3.6)
    t_max = max(max(T) for T, _ in values.values())
    grid = np.arange(1, t_max + 1)
    ax.plot(grid, grid, color="0.8", lw=3, label="T")
    ax.plot(grid, np.log2(grid + 1.0), color="0.8", lw=1.5, ls="--", label="log2(T+1)")
    for name, (T, v) in values.items():
        ax.plot(T, v, "o-", ms=3, lw=1, label=name)
    ax.set_xlabel("T = |S|")
    ax.set_ylabel("M_AD(H, T) (exact)")
    ax.set_title("Trichotomy: Θ(1), Θ(log T), Θ(T)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    return fig


def dimension_figure(tables: Mapping):
    """Ldim, LCdim, PLdim and Natarajan at the largest T of every family (D5)."""
    fig, ax = plots.figure(width=6.0)
    names = list(tables)
    keys = ("natarajan", "lcdim", "pldim", "ldim")
    x = np.arange(len(names))
    for i, k in enumerate(keys):
        ax.bar(x + (i - 1.5) * 0.2, [tables[n][k][-1] for n in names], width=0.2, label=k)
    ax.set_xticks(x, names, rotation=30, fontsize=7)
    ax.set_ylabel("dimension at T_max")
    ax.set_xlabel("hypothesis class")
    ax.set_title("Dimensions per class at the largest T", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def gap_figure(Ts, m: Mapping):
    """AD vs TD on the adaptive-order class, with PLdim and LCdim (D8)."""
    fig, ax = plots.figure()
    ax.plot(Ts, m["ad"], "o-", label="AD value")
    ax.plot(Ts, m["pldim"], "x", ms=8, label="PLdim")
    ax.plot(Ts, m["td"], "s-", label="TD value")
    ax.plot(Ts, m["lcdim"], "+", ms=10, label="LCdim")
    ax.set_xlabel("T (adaptive-order class AO_T)")
    ax.set_ylabel("mistakes / dimension")
    ax.set_title("Adversary-directed vs transductive on AO_T", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def agnostic_figure(runs: Mapping[str, tuple[np.ndarray, np.ndarray]], fits):
    """Hedge's mean regret against T (log-log) for every (class, adversary), with fitted slopes (D7)."""
    fig, ax = plots.figure(width=5.0, height=3.6)
    for name, (T, r) in runs.items():
        ax.loglog(T, r, "o-", ms=3, lw=1, label=f"{name} (slope {fits[name].slope:.2f})")
    T_all = np.unique(np.concatenate([T for T, _ in runs.values()]))
    ax.loglog(T_all, T_all / 2, "k:", lw=1, label="T/2 (infinite PLdim)")
    finite = [r for name, (_, r) in runs.items() if name.startswith(("thresholds", "intervals"))]
    if finite:
        dense = np.geomspace(T_all.min(), T_all.max(), 100)
        anchor = float(np.median([r[-1] for r in finite]))
        ax.loglog(dense, anchor * np.sqrt(dense / T_all.max()), "k--", lw=1, label="∝ √T (finite PLdim)")
    ax.set_xlabel("T (rounds)")
    ax.set_ylabel("expected regret")
    ax.set_title("Agnostic regret of Hedge", fontsize=9)
    ax.legend(fontsize=6)
    return fig
