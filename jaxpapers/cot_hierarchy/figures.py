"""Figures of the claims and the notebook (the key figure is :func:`lengths_figure`)."""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots


def cot_vs_time_figure(time, cot_len, halted):
    """H1: CoT length against TM time for every run, with the line c = time + 1."""
    fig, ax = plots.figure(width=4.6, height=3.4)
    time, cot_len, halted = (np.asarray(a) for a in (time, cot_len, halted))
    ax.plot(time[halted], cot_len[halted], "o", ms=3, alpha=0.5, label="halting runs")
    ax.plot(time[~halted], cot_len[~halted], "x", ms=4, label="cut at T_max")
    t = np.linspace(0, max(1, time.max()), 50)
    ax.plot(t, t + 1, "k--", lw=1, label="c = time + 1")
    ax.set_xlabel("TM time (steps)")
    ax.set_ylabel("CoT length (tokens)")
    ax.set_title("Construction A: one token per TM step")
    ax.legend(fontsize=7)
    return fig


def lengths_figure(parity_ns, parity_c, pal_ns, pal_c):
    """H2 (key figure): CoT length vs n for parity (n + 2) and palindromes ((n+1)(n+2)/2 + 1), log-log."""
    fig, ax = plots.figure(width=5.0, height=3.6)
    ax.loglog(parity_ns, parity_c, "o", label="parity_tm (measured)")
    ax.loglog(pal_ns, pal_c, "s", label="palindrome_tm on palindromes (measured)")
    x = np.geomspace(min(pal_ns.min(), parity_ns.min()), max(pal_ns.max(), parity_ns.max()), 100)
    ax.loglog(x, x + 2, "-", lw=1, label="n + 2")
    ax.loglog(x, (x + 1) * (x + 2) / 2 + 1, "-", lw=1, label="(n+1)(n+2)/2 + 1")
    ax.set_xlabel("input length n")
    ax.set_ylabel("CoT length c(x)")
    ax.set_title("CoT length = TM time + 1")
    ax.legend(fontsize=7)
    return fig


def precision_figure(ns, wrong32, wrong64, context):
    """H7: wrong reads with float32 vs float64 scores against n."""
    fig, ax = plots.figure(width=4.6, height=3.4)
    ax.plot(ns, wrong32, "o-", label="float32 scores")
    ax.plot(ns, wrong64, "s-", label="float64 scores")
    # C·h² ≈ 4·context·n² passes 2^24 here (h_max ≈ n)
    cross = np.asarray(ns)[np.argmax(4.0 * np.asarray(context) * np.asarray(ns) ** 2 > 2**24)]
    ax.axvline(cross, color="gray", ls="--", lw=1, label="4(n+T)·n² > 2^24")
    ax.set_xlabel("palindrome length n")
    ax.set_ylabel("wrong reads per run")
    ax.set_title("Read-head precision")
    ax.legend(fontsize=7)
    return fig


def padding_figure(ns, cot_len, predicted, pad_tokens):
    """H4: PadWriter CoT lengths against n, the exact counts and the PAD+START part."""
    fig, ax = plots.figure(width=4.6, height=3.4)
    ax.plot(ns, predicted, "o", ms=6, mfc="none", label="p(n) − n + time + 2")
    ax.plot(ns, cot_len, ".", ms=3, label="measured c_L(x)")
    u = np.unique(ns)
    ax.plot(u, [pad_tokens[ns == v][0] for v in u], "k--", lw=1, label="PAD + START tokens")
    ax.set_xlabel("|x|")
    ax.set_ylabel("CoT length")
    ax.set_title("Padding written inside the CoT")
    ax.legend(fontsize=7)
    return fig


def cost_figure(ts, counted, closed):
    """H5: counted score evaluations vs T with S(n, T) and a slope-2 guide."""
    fig, ax = plots.figure(width=4.6, height=3.4)
    ax.loglog(ts, counted, "o", label="counted")
    ax.loglog(ts, closed, "-", lw=1, label="S(n, T)")
    ax.loglog(ts, closed[0] * (np.asarray(ts) / ts[0]) ** 2, "--", color="gray", lw=1, label="slope 2")
    ax.set_xlabel("generated tokens T")
    ax.set_ylabel("score evaluations")
    ax.set_title("Reverse-simulation cost")
    ax.legend(fontsize=7)
    return fig


def diagonal_figure(ns, cot_len, r):
    """H6: CoT length of the diagonal decider vs n with the clock line r(n) + 1."""
    fig, ax = plots.figure(width=4.6, height=3.4)
    jitter = np.random.default_rng(0).uniform(-0.2, 0.2, len(ns))
    ax.plot(ns + jitter, cot_len, ".", ms=2, alpha=0.4, label="decider runs")
    u = np.unique(ns)
    ax.plot(u, [r[ns == v][0] + 1 for v in u], "k--", lw=1, label="r(n) + 1")
    ax.set_xlabel("|w| = 36 + k")
    ax.set_ylabel("CoT length c_D(w)")
    ax.set_title("Diagonal language D_r")
    ax.legend(fontsize=7)
    return fig
