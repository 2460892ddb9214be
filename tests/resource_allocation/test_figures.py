"""Every claim figure at a tiny size: a title, labelled axes, a legend, the reference lines, a caption.

The figure functions take arrays the claims already computed, so they are checked on made-up arrays
(no solver runs).
"""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from jaxpapers.resource_allocation import figures
from tests.figure_checks import check_figure

A = np.array([1.0, 0.25, 0.01])
NS = [1, 10, 1000]


@pytest.mark.parametrize(
    ("name", "make", "labels"),
    [
        ("kelly_family", lambda: figures.kelly_family_figure(NS, 0.75 + 0.25 / np.array(NS)), ["3/4", "(3n+2)"]),
        ("kelly_histogram", lambda: figures.kelly_histogram_figure(np.linspace(0.8, 1, 50)), ["bound 3/4"]),
        ("alpha_bound", lambda: figures.alpha_bound_figure(A, np.array([0.8, 0.9, 0.995])), ["bound", "3/4"]),
        ("tight_gap", lambda: figures.tight_gap_figure(A, NS, 1e-2 / np.array([NS] * 3)), ["1/n"]),
        (
            "efficiency_vs_alpha",
            lambda: figures.efficiency_figure(A[::-1], np.array([0.99, 0.9, 0.8]), np.full((3, 3), 0.8), NS),
            ["bound", "3/4"],
        ),
        ("audit", lambda: figures.audit_figure(A, np.zeros(3), np.full(3, 1e-13)), ["tolerance"]),
        ("revenue", lambda: figures.revenue_figure(A, 1 / (1 + A), 1 / (1 + A) + 0.01), ["1/(1+α)"]),
        ("liquid_welfare", lambda: figures.liquid_figure(A, np.array([0.51, 0.52, 0.53])), ["1/2", "0.48"]),
        ("budget_feasible", lambda: figures.budget_feasible_figure(np.linspace(0, 1, 30), 3, list(A)), ["budget"]),
        (
            "first_price_limit",
            lambda: figures.first_price_figure(
                np.array([0.1, 0.01, 0.001]), {k: np.full((3, 4), 0.01) for k in ("price", "share", "loss")}
            ),
            ["slope 1", "loss bound"],
        ),
    ],
)
def test_figure_has_title_axes_legend_references_and_caption(name, make, labels):
    check_figure(make(), *labels)
    assert figures.CAPTIONS[name]


def test_closed_forms_are_smooth_curves():
    """RA1's and RA3's closed forms are drawn on a dense grid, not through the few sampled points."""
    fig = figures.alpha_bound_figure(A, np.array([0.8, 0.9, 0.995]))
    assert max(len(line.get_xdata()) for line in fig.axes[0].get_lines()) >= 100
    plt.close(fig)
    fig = figures.kelly_family_figure(NS, 0.75 + 0.25 / np.array(NS))
    assert max(len(line.get_xdata()) for line in fig.axes[0].get_lines()) >= 100
    plt.close(fig)
