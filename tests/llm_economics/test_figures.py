"""llm_economics figures on made-up numbers (no solver): titles, labelled axes, legends, reference lines, captions."""

import numpy as np

from jaxpapers.llm_economics import figures
from tests.figure_checks import check_figure


def test_statics_figure_has_the_no_change_line_and_predictions():
    fig = figures.statics_figure(
        [0.0, 2e5], {"N": np.array([5.8, 2.2])}, {"N": np.array([5.8, 2.2])}, "data-efficiency gain, m = 0.5"
    )
    check_figure(fig, "no change", "predicted", "solver")


def test_every_figure_has_a_caption():
    assert {"frontier", "key", "rho", "spend", "statics"} <= set(figures.CAPTIONS)
