"""Figures the notebook shows (claim-specific figures live with their experiment module)."""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots
from jaxpapers.resource_allocation import bounds


def efficiency_figure(alphas, random_worst, tight, ns):
    """Efficiency vs α: the bound curve, the worst random instance and the tight family per α (the key figure).

    ``alphas [A]`` ascending, ``random_worst [A]``, ``tight [A, K]`` for the family sizes ``ns [K]``.
    """
    fig, ax = plots.figure(width=5.0, height=3.6)
    dense = np.geomspace(min(1e-3, float(np.min(alphas))), 1.0, 200)
    ax.semilogx(dense, bounds.poa_bound(dense), "-", color="k", lw=1.2, label="bound (1+2√α)/(1+√α)²")
    ax.semilogx(alphas, random_worst, "o", ms=5, label="worst random instance")
    for k, n in enumerate(ns):
        ax.semilogx(alphas, tight[:, k], "x", ms=5, label=f"tight family, n = {n}")
    ax.axhline(0.75, ls="--", color="gray", lw=1)
    ax.set_xlabel("α (1 = Kelly, → 0: first price)")
    ax.set_ylabel("SW(NE) / OPT")
    ax.legend(fontsize=7)
    return fig
