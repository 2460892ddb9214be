"""Figures the notebook shows: E2E vs CoT mistakes on the latch class, the taxonomy of rates, LTF dimensions."""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots


def latch_figure(ms_exact, exact, ms_played, halving, cot=None):
    """The key figure: mistakes against M (log scale) — exact E2E Ldim, played E2E games, CoTSOA."""
    fig, ax = plots.figure(width=5.0, height=3.5)
    dense = np.asarray(ms_played, float)
    ax.semilogx(dense, 1 + np.floor(np.log2(dense)), "-", color="gray", lw=1, base=2, label="1 + ⌊log2 M⌋")
    ax.semilogx(ms_exact, exact, "o", base=2, label="exact Ldim(F^M) (E2E)")
    ax.semilogx(ms_played, halving, "x", base=2, label="played E2E: 0-then-halving vs latch adversary")
    if cot is not None:
        ax.semilogx(ms_played, cot, "s", base=2, mfc="none", label="played CoT: CoTSOA vs latch adversary")
    ax.set_xlabel("chain length M")
    ax.set_ylabel("mistakes")
    ax.legend(fontsize=7)
    return fig


def taxonomy_figure(ms, values: dict):
    """Exact Ldim(F_K^M) against M for each K family, with the 1 + ⌊log2 M⌋ ceiling."""
    fig, ax = plots.figure(width=5.0, height=3.5)
    ms = np.asarray(ms, float)
    ax.semilogx(ms, 1 + np.floor(np.log2(ms)), "-", color="gray", lw=1, base=2, label="ceiling 1 + ⌊log2 M⌋")
    for name, vals in values.items():
        ax.semilogx(ms, vals, "o-", base=2, ms=4, label=f"K = {name}")
    ax.set_xlabel("chain length M")
    ax.set_ylabel("exact Ldim(F_K^M)")
    ax.legend(fontsize=7)
    return fig


def ltf_figure(ds, ms, mean_mistakes: dict, bounds):
    """Halving vs greedy mean mistakes per (d, feedback) against M, with log2 N(d)."""
    fig, ax = plots.figure(width=5.0, height=3.5)
    for (d, fb), vals in mean_mistakes.items():
        ax.plot(ms, vals, "o-" if fb == "e2e" else "s--", ms=4, label=f"d = {d}, {fb}")
    for d, b in zip(ds, bounds, strict=True):
        ax.axhline(b, color="gray", lw=0.8, ls=":")
        ax.text(ms[-1], b, f" log2 N({d})", fontsize=7, va="bottom", ha="right")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chain length M")
    ax.set_ylabel("mean mistakes (halving vs greedy)")
    ax.legend(fontsize=7)
    return fig
