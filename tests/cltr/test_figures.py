"""The paper's figures on made-up results: labelled lines, a caption each."""

import numpy as np

from jaxpapers.cltr import figures
from tests.figure_checks import check_figure


def test_radius_and_method_figures():
    x = np.array([10.0, 100.0, 1000.0])
    fig = figures.radius_law(x, 1 / x, 2 / np.sqrt(x), 1 / x)
    check_figure(fig, "Theorem A bound", "slope -1/2")
    acc = {m: {k: np.array([0.5, 0.6]) for k in ("balanced", "head", "tail")} for m in ("erm", "replay")}
    check_figure(figures.method_accuracies(acc), "balanced", "tail")
    assert figures.RADIUS_CAPTION and figures.METHODS_CAPTION and figures.CL_BOUND_CAPTION
