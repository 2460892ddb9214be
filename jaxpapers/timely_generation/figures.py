"""Figures the notebook shows: timely density d_f(n) curves with phase ends, and hallucination rates h(t)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from jaxpapers.core import plots


def density_figure(curves: Mapping[str, np.ndarray], phase_ends=None, title: str = ""):
    """The key figure: d_f(n) against n (log x) for each run label; dotted lines at the phase ends V_p."""
    fig, ax = plots.figure(width=5.2, height=3.5)
    for label, d in curves.items():
        d = np.asarray(d, float)
        n = np.arange(1, d.size + 1)
        ok = np.isfinite(d)
        ax.semilogx(n[ok], d[ok], lw=1.2, base=2, label=label)
    for v in phase_ends if phase_ends is not None else ():
        ax.axvline(v, color="gray", lw=0.6, ls=":")
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("scale n (rank in K)")
    ax.set_ylabel("timely density d_f(n)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def hallucination_figure(curves: Mapping[str, np.ndarray], title: str = ""):
    """h(t) against t on log-log axes for each run label."""
    fig, ax = plots.figure(width=5.2, height=3.5)
    for label, h in curves.items():
        h = np.asarray(h, float)
        t = np.arange(1, h.size + 1)
        ok = h > 0
        ax.loglog(t[ok], h[ok], lw=1.2, label=label)
    ax.set_xlabel("time t")
    ax.set_ylabel("hallucination rate h(t)")
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
