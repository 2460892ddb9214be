"""Figures the notebook shows and the claims save: each takes results (arrays, solutions), never a config.

* :func:`key_figure`: N*, D*, C* and spend against hardware efficiency E (the paper's headline figure; E2).
* :func:`spend_figure`: data-bound training spend against available data D and against E (E7, E8).
* :func:`statics_figure`: the ratios of N*, D* and spend after an efficiency gain, per ρ (E5, E6a, E6b).

``CAPTIONS`` holds the caption ``report.md`` prints under each claim's figure.
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
        ax.set_title(_LABELS[k].split(" (")[0], fontsize=8)
    fig.suptitle(title, fontsize=9)
    return fig


_STATIC_LABELS = {"N": "N* ratio", "D": "D* ratio", "spend": "spend ratio"}


def statics_figure(rhos, measured: Mapping[str, ArrayLike], predicted: Mapping[str, ArrayLike], title: str) -> Figure:
    """Ratio (after / before an efficiency gain) of each quantity per inference cost ρ: measured dots,
    our reconstruction's predicted numbers as crosses, the no-change level 1 dashed."""
    fig, ax = plots.figure(width=4.4, height=3.2)
    x = np.arange(len(rhos))
    for k, (q, vals) in enumerate(measured.items()):
        name = _STATIC_LABELS.get(q, q)
        ax.plot(x, np.asarray(vals, float), "o-", color=f"C{k}", label=f"{name}: solver")
        ax.plot(x, np.asarray(predicted[q], float), "x", ms=9, color=f"C{k}", label=f"{name}: predicted")
    ax.axhline(1.0, ls="--", color="gray", lw=1, label="1 (no change)")
    ax.set_xticks(x, [f"{r:g}" for r in rhos])
    ax.set_xlabel("inference cost ρ")
    ax.set_ylabel("ratio after / before the gain")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


CAPTIONS = {
    "frontier": "N_opt against compute for each scaling law: the solver's points should lie on their fitted line, "
    "and the fitted slope should equal the dashed closed-form slope β/(α+β).",
    "key": "The headline figure: the profit-optimal N*, D*, C* and training spend against hardware efficiency E; "
    "each fitted slope should match the dashed predicted exponent of the closed form.",
    "rho": "N* and D* against E for several inference costs ρ: the legend's slopes show how inference cost shifts "
    "the optimum towards smaller models trained on more data.",
    "spend": "Training spend against available data D (top) and hardware efficiency E (bottom) when data bind: "
    "each fitted slope should match its dashed predicted slope.",
    "statics": "Each dot is the solver's ratio of a quantity after the efficiency gain to before it, per ρ; it "
    "should sit on the cross of the same colour (our reconstruction's number). Above the dashed 1 means the gain "
    "increases the quantity.",
}


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
    axes[1].set_xlabel("hardware efficiency E (FLOP/$)")
    axes[0].set_title("spend vs data", fontsize=8)
    axes[1].set_title("spend vs hardware efficiency", fontsize=8)
    for ax in axes:
        ax.set_ylabel("training spend ($)")
    fig.suptitle(title, fontsize=9)
    return fig
