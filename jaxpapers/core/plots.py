"""Figure helpers used by claims and notebooks (matplotlib).

Claims return figures in ``Measurement.figures``; ``jaxpapers verify`` saves them as PNG. Nothing
here chooses a matplotlib backend: Jupyter and Colab keep their inline backend (figures show), a
headless process falls back to Agg by itself, and the ``jaxpapers`` command sets ``MPLBACKEND=Agg``.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.core.stats import LogLogFit


def figure(ncols: int = 1, nrows: int = 1, *, width: float = 4.2, height: float = 3.2, **kw):
    """A figure with a grid of axes; returns ``(fig, axes)`` (axes squeezed like ``plt.subplots``)."""
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), constrained_layout=True, **kw)


def loglog_fit(
    ax,
    x,
    y,
    fit: LogLogFit | None = None,
    *,
    label: str = "measured",
    color: str | None = None,
    predicted_slope: float | None = None,
) -> None:
    """Scatter of y vs x on log-log axes with the fitted power law (and the predicted slope)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    line = ax.loglog(x, y, "o", label=label, color=color, ms=4)[0]
    if fit is not None:
        ax.loglog(
            x,
            fit.predict(x),
            "-",
            color=line.get_color(),
            lw=1,
            label=f"fit slope {fit.slope:.3f} [{fit.ci95[0]:.3f}, {fit.ci95[1]:.3f}]",
        )
    if predicted_slope is not None:
        ax.loglog(
            x, y[0] * (x / x[0]) ** predicted_slope, "--", color="gray", lw=1, label=f"predicted {predicted_slope:.3f}"
        )
    ax.legend(fontsize=7)


def curves(
    ax,
    x,
    ys: dict[str, Sequence[float]],
    *,
    xlabel: str = "",
    ylabel: str = "",
    logx: bool = False,
    logy: bool = False,
    hlines: dict[str, float] | None = None,
) -> None:
    """Several named curves over one x, with optional labelled horizontal reference lines."""
    for name, y in ys.items():
        ax.plot(x, y, label=name, lw=1.5)
    for name, level in (hlines or {}).items():
        ax.axhline(level, ls="--", color="gray", lw=1)
        ax.annotate(name, (ax.get_xlim()[0], level), fontsize=7, va="bottom")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ys:
        ax.legend(fontsize=7)


def training_curves(ax, history: Sequence[dict], keys: Sequence[str] = ("loss",), *, logy: bool = False) -> None:
    """Plots metrics of a trainer history (``FitResult.history``) against the step."""
    for key in keys:
        rows = [(r["step"], r[key]) for r in history if key in r]
        if rows:
            s, v = zip(*rows, strict=True)
            ax.plot(s, v, label=key)
    ax.set_xlabel("step")
    if logy:
        ax.set_yscale("log")
    ax.legend(fontsize=7)
