"""Figures the notebook shows and the claims save (one function per figure; results in, no thresholds).

* :func:`pacing`: the curriculum's competence ``c(t)`` and eligible fraction ``|A_t|/N`` (U4, Platanios et al.
  2019 square-root pacing), and the mean current NLL of the samples served at each step against the pool mean:
  easy first, then the whole pool.
* :func:`layer_errors`: the max abs differences of each core GNN layer against the dense float64 reference (U7).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from jaxpapers.core import plots

PACING_CAPTION = (
    "Left: competence c(t) rises from c0 to 1 at T_c; the eligible fraction |A_t|/N follows it (steps). "
    "Right: mean current NLL of each step's batch (dots) starts well below the pool mean (dashed) and reaches it "
    "once the whole pool is eligible: easy first."
)
LAYERS_CAPTION = "Max abs difference of each layer (float32) against the dense float64 reference, per check."


def pacing(competence: np.ndarray, eligible_frac: np.ndarray, served_nll: np.ndarray, pool_nll: float,
           t_c: float) -> Figure:
    """``competence`` [T+1] and ``eligible_frac`` [T+1] against the step; ``served_nll`` [T] per step."""
    fig, (ax1, ax2) = plots.figure(2)
    t = np.arange(len(competence))
    ax1.plot(t, competence, label="c(t)")
    ax1.step(t, eligible_frac, where="post", ls=":", label="|A_t| / N")
    ax1.axvline(t_c, color="gray", lw=1, ls="--", label="T_c")
    ax1.set_xlabel("step")
    ax1.set_ylim(0, 1.05)
    ax1.legend(fontsize=7)
    ax1.set_title("competence-based pacing")
    ax2.plot(np.arange(len(served_nll)), served_nll, ".", ms=3, label="served batch")
    ax2.axhline(pool_nll, color="gray", ls="--", lw=1, label="pool mean")
    ax2.axvline(t_c, color="gray", lw=1, ls=":")
    ax2.set_xlabel("step")
    ax2.set_ylabel("mean current NLL")
    ax2.legend(fontsize=7)
    ax2.set_title("easy first")
    return fig


def layer_errors(details: Mapping[str, float]) -> Figure:
    """Bars of ``{layer}_{dense|perm|pad}`` max abs differences (log scale; zeros drawn at 1e-12)."""
    fig, ax = plots.figure(1)
    layers = sorted({k.split("_")[0] for k in details})
    kinds = ("dense", "perm", "pad")
    for j, kind in enumerate(kinds):
        vals = [max(details[f"{n}_{kind}"], 1e-12) for n in layers]
        ax.bar(np.arange(len(layers)) + 0.27 * (j - 1), vals, 0.27, label=kind)
    ax.set_xticks(np.arange(len(layers)), layers)
    ax.set_yscale("log")
    ax.set_ylabel("max abs difference")
    ax.legend(fontsize=7)
    ax.set_title("core GNN layers vs dense reference")
    return fig
