"""Figures the notebook shows and the claims save: strict vs reference node/edge F1 per model."""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots

F1_CAPTION = (
    "Node and edge F1 on the pa_churn test snapshots (2 seeds pooled). Solid: strict protocol (predicted new nodes "
    "never match); hatched: the paper's reference protocol, which credits every correctly counted new node. "
    "Copy-last, which the paper never reports, beats TopoGED under strict scoring."
)


def f1_bars(table: dict[str, dict[str, float]]):
    """Grouped bars: per model, strict and reference node F1 and edge F1 (``table``: model → scores)."""
    models = list(table)
    fig, axes = plots.figure(ncols=2, width=4.0, height=3.0)
    x = np.arange(len(models))
    for ax, what in zip(axes, ("node", "edge"), strict=True):
        strict = [table[m][f"{what}_f1_strict"] for m in models]
        ref = [table[m][f"{what}_f1_ref"] for m in models]
        ax.bar(x - 0.2, strict, 0.4, label="strict")
        ax.bar(x + 0.2, ref, 0.4, hatch="//", alpha=0.6, label="reference")
        ax.set_xticks(x, models, rotation=30, ha="right")
        ax.set_title(f"{what} F1")
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=8)
    return fig
