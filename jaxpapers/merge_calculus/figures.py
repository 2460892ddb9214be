"""Figures of the merge-calculus claims (the notebook shows them too); matplotlib via ``jaxpapers.core.plots``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import plots
from jaxpapers.merge_calculus.fit import PowerLawFit


def eta_vs_regressor(
    x: Sequence[float] | ArrayLike,
    eta: Sequence[float] | ArrayLike,
    labels: Sequence[str],
    fit: PowerLawFit,
    *,
    xlabel: str,
    predicted_slope: float,
    title: str,
):
    """Measured η* against a regressor (log-log) with the OLS fit and the predicted slope through the fit's centre."""
    x, eta = np.asarray(x, float), np.asarray(eta, float)
    fig, ax = plots.figure(width=5.0, height=3.8)
    ax.loglog(x, eta, "o", color="C0", label="measured η* (seed-mean score)")
    for xi, yi, lab in zip(x, eta, labels, strict=True):
        ax.annotate(lab, (xi, yi), fontsize=6, xytext=(3, 3), textcoords="offset points")
    grid = np.geomspace(x.min() / 1.2, x.max() * 1.2, 100)
    ax.loglog(
        grid,
        np.exp(fit.intercept) * grid**fit.slope,
        "-",
        color="C0",
        lw=1,
        label=f"fit slope {fit.slope:.2f} [{fit.ci[0]:.2f}, {fit.ci[1]:.2f}], R² {fit.r2:.2f}",
    )
    centre = np.exp(np.mean(np.log(x))), np.exp(fit.intercept + fit.slope * np.mean(np.log(x)))
    ax.loglog(
        grid,
        centre[1] * (grid / centre[0]) ** predicted_slope,
        "--",
        color="gray",
        lw=1,
        label=f"predicted slope {predicted_slope:g}",
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("optimal learning rate η*")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def score_curves(
    lrs_by_graph: Mapping[str, np.ndarray],
    score_by_graph: Mapping[str, np.ndarray],
    eta_by_graph: Mapping[str, float],
    *,
    title: str,
):
    """Seed-mean all-steps training loss against η for each graph (diverged runs omitted), η* marked."""
    fig, ax = plots.figure(width=5.0, height=3.8)
    for i, (name, lrs) in enumerate(lrs_by_graph.items()):
        s = np.asarray(score_by_graph[name], float).mean(0)
        ok = np.isfinite(s)
        ax.plot(np.asarray(lrs)[ok], s[ok], "-o", ms=2.5, color=f"C{i % 10}", label=name)
        ax.axvline(eta_by_graph[name], color=f"C{i % 10}", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("learning rate η")
    ax.set_ylabel("mean training loss over all steps")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6)
    return fig


def transfer(
    measured: Sequence[float] | ArrayLike,
    predictions: Mapping[str, Sequence[float] | ArrayLike],
    labels: Sequence[str],
    *,
    title: str,
):
    """Predicted η̂ against measured η* per rule, with the identity line (perfect transfer)."""
    m = np.asarray(measured, float)
    fig, ax = plots.figure(width=5.0, height=3.8)
    for i, (rule, p) in enumerate(predictions.items()):
        ax.loglog(m, p, "o^s"[i % 3], color=f"C{i}", label=rule, ms=4)
    for mi, lab in zip(m, labels, strict=True):
        ax.annotate(lab, (mi, mi), fontsize=6, xytext=(3, -8), textcoords="offset points")
    lo = min(m.min(), *(np.min(p) for p in predictions.values())) / 1.5
    hi = max(m.max(), *(np.max(p) for p in predictions.values())) * 1.5
    ax.loglog([lo, hi], [lo, hi], "--", color="gray", lw=1, label="η̂ = η* (perfect transfer)")
    ax.set_xlabel("measured η*")
    ax.set_ylabel("zero-shot prediction η̂ from G₀")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def scatter_loglog(
    x: Sequence[float] | ArrayLike,
    y: Sequence[float] | ArrayLike,
    labels: Sequence[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str,
):
    """A labelled log-log scatter (MC7: C against the measured one-step change)."""
    fig, ax = plots.figure(width=5.0, height=3.8)
    ax.loglog(x, y, "o", label="graphs")
    for xi, yi, lab in zip(x, y, labels, strict=True):
        ax.annotate(lab, (xi, yi), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig
