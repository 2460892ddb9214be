"""Figures the claims save and the notebook shows (``core.plots``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import plots

__all__ = ["CAPTIONS", "diversity_figure", "growth_figure", "loss_figure", "rate_figure"]

CAPTIONS = {
    "growth": "Mean proved-set size |S_k| against the round k (mean over seeds): a straight line on the log axis "
    "is exponential growth (expanders), a straight line on log-log axes is polynomial growth (torus ≈ k², cycle ≈ k).",
    "rate_vs_gap": "Watts–Strogatz family: mean exponential growth rate of the early window against the mean "
    "spectral gap γ of each rewiring level (labels: rewiring probability); the rate should increase with γ.",
    "diversity": "Plain random-walk conjecturer against the diversity-seeking one (mean over play seeds, bars: "
    "±1 standard error): pooled diversity Div_t of all conjectures and the structure each reaches.",
    "loss": "Spectral contrastive training: minibatch loss per step for each graph and embedding dimension k.",
}


def growth_figure(curves: Mapping[str, np.ndarray], *, title: str = "", logy: bool = False, loglog: bool = False):
    """|S_k| against k for each named curve."""
    fig, ax = plots.figure()
    for name, s in curves.items():
        k = np.arange(len(s))
        ax.plot(k[1:] if loglog else k, s[1:] if loglog else s, label=name)
    if loglog:
        ax.set_xscale("log")
    if logy or loglog:
        ax.set_yscale("log")
    ax.set(xlabel="round k", ylabel="|S_k| (mean over seeds)", title=title)
    ax.legend()
    return fig


def rate_figure(gamma: ArrayLike, rate: ArrayLike, labels: Sequence[float]):
    """Mean growth rate against the mean spectral gap, one point per level."""
    fig, ax = plots.figure()
    ax.plot(gamma, rate, "o-")
    for g, r, lab in zip(np.asarray(gamma), np.asarray(rate), labels, strict=True):
        ax.annotate(f"{lab:g}", (g, r), fontsize=7)
    ax.set_xscale("log")
    ax.set(xlabel="spectral gap γ", ylabel="growth rate per round", title="S3: rate vs spectral gap")
    return fig


def diversity_figure(runs: Mapping[str, Mapping[str, np.ndarray]], keys: Sequence[str], *, title: str = ""):
    """One panel per metric in ``keys``: the mean (± s.e.) of each conjecturer's runs."""
    fig, axes = plots.figure(len(keys), width=2.6)
    for ax, key in zip(np.atleast_1d(axes), keys, strict=True):
        names = list(runs)
        vals = [np.asarray(runs[n][key], np.float64) for n in names]
        se = [v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0 for v in vals]
        ax.bar(names, [v.mean() for v in vals], yerr=se, color=["tab:grey", "tab:blue"][: len(names)])
        ax.set_title(key)
    fig.suptitle(title)
    return fig


def loss_figure(losses: Mapping[str, np.ndarray]):
    """Minibatch spectral contrastive loss per step."""
    fig, ax = plots.figure()
    for name, loss in losses.items():
        ax.plot(np.asarray(loss), label=name, lw=0.8)
    ax.set(xlabel="step", ylabel="minibatch loss", title="S6: spectral contrastive training")
    ax.legend(fontsize=7)
    return fig
