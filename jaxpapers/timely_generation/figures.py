"""Figures the notebook shows: timely density d_f(n) curves with phase ends, and hallucination rates h(t)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from jaxpapers.core import plots

CAPTIONS = {
    "oracle_density": "Sanity check: the oracle that knows K keeps the timely density at 1 (dashed) at every scale "
    "against both adversaries.",
    "g1_density": "Eventually consistent generators against the phase adversary: the timely density falls at every "
    "phase end (dotted verticals) towards 0, although each generator is eventually right about K.",
    "g2_hallucination": "The hedging generator's hallucination rate on the sparse adversary against t (log-log): "
    "under superlinear deadlines it decays (a slope of −0.25 or steeper, dashed guide).",
    "eps_frontier": "Each point is one ε: timeliness (up) against hallucination (left is better). Under f = 2n no "
    "ε reaches the shaded corner (timely d ≥ 0.85 and h ≤ 0.10); under a superlinear deadline some ε comes close.",
    "untimed_control": "The same runs scored without deadlines reach density ≥ 0.9 (dashed) at every phase end but "
    "the last: the failure in T1 is about timeliness, not correctness.",
    "monotone": "The last phase's timely density against the deadline slack c: it should not decrease in c and "
    "follow the predicted step at c·ε = 1.",
}


def density_figure(
    curves: Mapping[str, np.ndarray], phase_ends=None, title: str = "", hlines: Mapping[str, float] | None = None
):
    """The key figure: d_f(n) against n (log x) for each run label; dotted lines at the phase ends V_p and
    labelled horizontal reference levels ``hlines``."""
    fig, ax = plots.figure(width=5.2, height=3.5)
    for label, d in curves.items():
        d = np.asarray(d, float)
        n = np.arange(1, d.size + 1)
        ok = np.isfinite(d)
        ax.semilogx(n[ok], d[ok], lw=1.2, base=2, label=label)
    for i, v in enumerate(phase_ends if phase_ends is not None else ()):
        ax.axvline(v, color="gray", lw=0.6, ls=":", label="phase ends V_p" if i == 0 else None)
    for name, level in (hlines or {}).items():
        ax.axhline(level, color="k", lw=0.8, ls="--", label=name)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("scale n (rank in K)")
    ax.set_ylabel("timely density d_f(n)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def hallucination_figure(curves: Mapping[str, np.ndarray], title: str = "", guide_slope: float | None = None):
    """h(t) against t on log-log axes for each run label, with a dashed ``t^guide_slope`` guide through the
    last curve's value at t = T/64 (where the claim measures its slope)."""
    fig, ax = plots.figure(width=5.2, height=3.5)
    for label, h in curves.items():
        h = np.asarray(h, float)
        t = np.arange(1, h.size + 1)
        ok = h > 0
        ax.loglog(t[ok], h[ok], lw=1.2, label=label)
    if guide_slope is not None and curves:
        h = np.asarray(list(curves.values())[-1], float)
        t0 = max(h.size // 64, 1)
        if h[t0 - 1] > 0:
            t = np.geomspace(t0, h.size, 50)
            ax.loglog(t, h[t0 - 1] * (t / t0) ** guide_slope, "k--", lw=1, label=f"slope {guide_slope:g} guide")
    ax.set_xlabel("time t")
    ax.set_ylabel("hallucination rate h(t)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def phase_points_figure(x, series: Mapping[str, np.ndarray], *, xlabel: str, title: str, hlines=None, predicted=None):
    """Values at discrete points (phase ends, deadline constants) per series, with labelled reference levels
    ``hlines`` and a ``predicted`` curve ``(x_dense, y_dense)`` drawn dashed."""
    fig, ax = plots.figure(width=4.6, height=3.3)
    for name, y in series.items():
        ax.plot(x[: len(y)], np.asarray(y, float), "o-", ms=4, label=name)
    if predicted is not None:
        ax.plot(*predicted, "k--", lw=1, label="predicted")
    for name, level in (hlines or {}).items():
        ax.axhline(level, color="gray", lw=1, ls="--", label=name)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("timely density")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def subsample(curve: np.ndarray, points: int = 64) -> dict[str, list]:
    """Log-spaced (index, value) pairs of a curve, small enough for a claim's JSON details."""
    curve = np.asarray(curve, float)
    idx = np.unique(np.round(np.geomspace(1, curve.size, points)).astype(int)) - 1
    return {"x": (idx + 1).tolist(), "y": [None if not np.isfinite(v) else round(float(v), 5) for v in curve[idx]]}


def save_curves(path: str, **curves: np.ndarray) -> str:
    """Save full curves (density, hallucination) as one .npz for notebooks; returns the path."""
    np.savez_compressed(path, **{k: np.asarray(v) for k, v in curves.items()})
    return path
