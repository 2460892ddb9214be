"""Figures the notebook shows and the claims save: each takes results (arrays, solutions), never a config.

* :func:`key_figure`: N*, D*, C* and spend against hardware efficiency E (the paper's headline figure; E2).
* :func:`spend_figure`: data-bound training spend against available data D and against E (E7, E8).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from jaxtyping import ArrayLike
from matplotlib import ticker
from matplotlib.figure import Figure

from jaxpapers.core import plots
from jaxpapers.core.stats import fit_loglog

QUANTITIES = ("N", "D", "C", "spend")
EXPONENT_KEYS = {"N": "e_N", "D": "e_D", "C": "e_C", "spend": "e_spend"}
_LABELS = {"N": "N* (parameters)", "D": "D* (tokens)", "C": "C* = 6N*D* (FLOP)", "spend": "training spend ($)"}


def key_figure(E: ArrayLike, sol, predicted: Mapping[str, float] | None, title: str) -> Figure:
    """N*, D*, C* and spend of ``sol`` (a compute-bound ``Solution`` over ``E``) on log-log axes with their
    fitted slopes and, dashed, the ``predicted`` exponents (keys ``e_N``, ``e_D``, ``e_C``, ``e_spend``)."""
    fig, axes = plots.figure(2, 2, width=3.6, height=2.9)
    for ax, k in zip(np.ravel(axes), QUANTITIES, strict=True):
        y = np.asarray(getattr(sol, k))
        pred = None if predicted is None else float(predicted[EXPONENT_KEYS[k]])
        plots.loglog_fit(ax, E, y, fit_loglog(E, y), predicted_slope=pred)
        ax.set_xlabel("hardware efficiency E (FLOP/$)")
        ax.set_ylabel(_LABELS[k])
    fig.suptitle(title, fontsize=9)
    return fig


def spend_figure(D: ArrayLike, E: ArrayLike, curves: Mapping[str, tuple], title: str) -> Figure:
    """Spend against D (top) and E (bottom); ``curves[name] = (by_d, by_e, slope_d, slope_e)`` with the
    data-bound solutions on the two grids and the slopes drawn dashed for comparison."""
    fig, axes = plots.figure(2, 1, width=3.8, height=3.0)
    for name, (by_d, by_e, pred_d, pred_e) in curves.items():
        for ax, x, part, pred in ((axes[0], D, by_d, pred_d), (axes[1], E, by_e, pred_e)):
            spend = np.asarray(part.spend)
            plots.loglog_fit(ax, x, spend, fit_loglog(x, spend), label=name, predicted_slope=pred)
    axes[0].xaxis.set_minor_formatter(ticker.NullFormatter())  # minor labels overlap on a one-decade axis
    axes[0].set_xlabel("available data D (tokens)")
    axes[1].set_xlabel("E (FLOP/$)")
    for ax in axes:
        ax.set_ylabel("training spend ($)")
    fig.suptitle(title, fontsize=9)
    return fig
