"""Figures the notebook shows: E2E vs CoT mistakes on the latch class, the taxonomy of rates, LTF dimensions."""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots

CAPTIONS = {
    "latch_rates": "Mistakes against the chain length M (log2 axis): the exact end-to-end Littlestone dimension and "
    "the played end-to-end games should sit on the grey staircase 1 + ⌊log2 M⌋; with chain-of-thought feedback "
    "(squares, when shown) the learner makes a single mistake at every M.",
    "taxonomy": "Exact Ldim(F_K^M) against M for each K family: every family stays on or under the grey ceiling "
    "1 + ⌊log2 M⌋, and the families separate into the rate classes the claim names.",
    "ltf_games_e2e": "Mean mistakes of halving against a greedy adversary on linear threshold functions, end-to-end "
    "feedback: each d's curve stays under its dotted log2 N(d) and is roughly flat in M.",
    "ltf_games_cot": "The same games with chain-of-thought feedback: each d's curve stays under its dotted log2 N(d) "
    "and is roughly flat in M.",
}


def _log_staircase(ax, ms, label: str) -> None:
    """1 + ⌊log2 M⌋ drawn as a staircase over every integer M of the range (not a ramp through the samples)."""
    ms = np.asarray(ms, float)
    dense = np.arange(max(1, int(ms.min())), int(ms.max()) + 1, dtype=float)
    if dense.size > 4096:  # wide ranges: the step points 2^k ± 1 suffice for an exact staircase
        ks = np.arange(int(np.log2(dense[0])), int(np.log2(dense[-1])) + 1)
        dense = np.unique(np.clip(np.concatenate([dense[[0, -1]], 2.0**ks, 2.0**ks - 1]), dense[0], dense[-1]))
    ax.plot(dense, 1 + np.floor(np.log2(dense)), "-", color="gray", lw=1, drawstyle="steps-post", label=label)


def latch_figure(ms_exact, exact, ms_played, halving, cot=None):
    """The key figure: mistakes against M (log scale) — exact E2E Ldim, played E2E games, CoTSOA."""
    fig, ax = plots.figure(width=5.0, height=3.5)
    _log_staircase(ax, np.concatenate([np.asarray(ms_exact, float), np.asarray(ms_played, float)]), "1 + ⌊log2 M⌋")
    ax.plot(ms_exact, exact, "o", label="exact Ldim(F^M) (E2E)")
    ax.plot(ms_played, halving, "x", label="played E2E: 0-then-halving vs latch adversary")
    if cot is not None:
        ax.plot(ms_played, cot, "s", mfc="none", label="played CoT: CoTSOA vs latch adversary")
        ax.axhline(1, ls=":", color="C2", lw=1, label="CoT prediction: 1 mistake")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chain length M")
    ax.set_ylabel("mistakes")
    ax.set_title("Latch class: end-to-end vs chain-of-thought mistakes", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def taxonomy_figure(ms, values: dict):
    """Exact Ldim(F_K^M) against M for each K family, with the 1 + ⌊log2 M⌋ ceiling."""
    fig, ax = plots.figure(width=5.0, height=3.5)
    ms = np.asarray(ms, float)
    _log_staircase(ax, ms, "ceiling 1 + ⌊log2 M⌋")
    for name, vals in values.items():
        ax.plot(ms, vals, "o-", ms=4, label=f"K = {name}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chain length M")
    ax.set_ylabel("exact Ldim(F_K^M)")
    ax.set_title("Rate taxonomy: Ldim against chain length", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def ltf_figure(ds, ms, mean_mistakes: dict, bounds):
    """Halving vs greedy mean mistakes per (d, feedback) against M, with log2 N(d) dotted in the same colour."""
    fig, ax = plots.figure(width=5.0, height=3.5)
    colours = {d: f"C{i}" for i, d in enumerate(ds)}
    for (d, fb), vals in mean_mistakes.items():
        ax.plot(ms, vals, "o-" if fb == "e2e" else "s--", ms=4, color=colours.get(d), label=f"d = {d}, {fb}")
    for d, b in zip(ds, bounds, strict=True):
        ax.axhline(b, color=colours[d], lw=0.8, ls=":", label=f"log2 N({d}) = {b:.2f}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chain length M")
    ax.set_ylabel("mean mistakes (halving vs greedy)")
    ax.set_title("Linear threshold functions: mistakes vs chain length", fontsize=9)
    ax.legend(fontsize=6)
    return fig
