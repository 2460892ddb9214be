"""Figures the claims save and the notebook shows (``core.plots``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from jaxpapers.core import plots

__all__ = ["agnostic_figure", "dimension_figure", "gap_figure", "rate_figure", "trichotomy_figure"]


def rate_figure(Ts, series: Mapping, *, title: str = "", log_ref: bool = False):
    """Game value against T for each named series (optionally with ⌊log2(T+1)⌋ and T for reference)."""
    fig, ax = plots.figure()
    Ts = np.asarray(list(Ts))
    for name, v in series.items():
        v = np.asarray(v, float)
        ax.plot(Ts[: len(v)], v, "o-", ms=3, lw=1, label=name)
    if log_ref:
        ax.plot(Ts, np.floor(np.log2(Ts + 1.0)), "k:", lw=1, label="⌊log2(T+1)⌋")
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
    ax.legend(fontsize=7)
    return fig


def agnostic_figure(runs: Mapping[str, tuple[np.ndarray, np.ndarray]], fits):
    """Hedge's mean regret against T (log-log) for every (class, adversary), with fitted slopes (D7)."""
    fig, ax = plots.figure(width=5.0, height=3.6)
    for name, (T, r) in runs.items():
        ax.loglog(T, r, "o-", ms=3, lw=1, label=f"{name} (slope {fits[name].slope:.2f})")
    T_all = np.unique(np.concatenate([T for T, _ in runs.values()]))
    ax.loglog(T_all, T_all / 2, "k:", lw=1, label="T/2")
    ax.set_xlabel("T")
    ax.set_ylabel("expected regret")
    ax.legend(fontsize=6)
    return fig
