"""Figures that the notebook shows and the claims save (one function per figure, returning the Figure).

Layout rule: a figure function takes results (a history, arrays), not a config, and reads no threshold:
the criterion lives only in the claim's predicate. Theory numbers (here chance level) may be drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.figure import Figure

from jaxpapers.core import plots


def loss_curves(history: Sequence[dict], *, vocab_size: int) -> Figure:
    """Training and held-out loss on the copied half against the step, with chance level ln V."""
    fig, ax = plots.figure()
    plots.training_curves(ax, history, ("loss", "eval/loss"), logy=True)
    ax.axhline(math.log(vocab_size), ls="--", color="gray", lw=1, label=f"chance ln {vocab_size}")
    ax.legend(fontsize=7)
    ax.set_ylabel("nats per copied token")
    ax.set_title("copy task: loss on the copied half")
    return fig
