"""Figures that the notebook shows and the claims save (one function per figure, returning the Figure).

Layout rule: a figure function takes results (a history, arrays), not a config, and reads no threshold:
the criterion lives only in the claim's predicate. Theory numbers (here chance level) may be drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.figure import Figure

from jaxpapers.core import plots

CAPTION = (
    "Left: training and held-out loss on the copied half (log scale) should fall from the dashed chance level "
    "ln V towards 0. Right: held-out accuracy on the copied half should rise from the dashed chance 1/V to 1."
)


def loss_curves(history: Sequence[dict], *, vocab_size: int) -> Figure:
    """Training and held-out loss on the copied half against the step, with chance level ln V, and the
    held-out accuracy with chance level 1/V."""
    fig, (ax1, ax2) = plots.figure(2)
    plots.training_curves(ax1, history, ("loss", "eval/loss"), logy=True)
    plots.training_curves(ax2, history, ("eval/accuracy",))
    for line in (*ax1.get_lines(), *ax2.get_lines()):  # the measured curves only (no reference lines yet)
        line.set_marker("o")
        line.set_markersize(3)
    ax2.set_xlim(ax1.get_xlim())  # held-out points are sparser than training-loss points: same step axis
    ax1.axhline(math.log(vocab_size), ls="--", color="gray", lw=1, label=f"chance ln {vocab_size}")
    ax1.legend(fontsize=7)
    ax1.set_ylabel("nats per copied token")
    ax1.set_title("copy task: loss on the copied half")
    ax2.axhline(1.0 / vocab_size, ls="--", color="gray", lw=1, label=f"chance 1/{vocab_size}")
    ax2.set_ylim(0.0, 1.02)
    ax2.legend(fontsize=7)
    ax2.set_ylabel("held-out accuracy (copied half)")
    ax2.set_title("copy task: held-out accuracy")
    return fig
