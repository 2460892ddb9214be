"""comonet figures that need no trained model: CO7's parity figure and the captions of every claim figure."""

import numpy as np

from jaxpapers.comonet import figures
from tests.figure_checks import check_figure


def test_parity_figure_draws_parity_and_the_claim_bound():
    fig = figures.parity_figure({"comonet": np.array([0.5, 0.52, 0.55]), "mlp": np.array([0.5, 0.5, 0.53])})
    check_figure(fig, "parity", "1.1", "mean")


def test_every_claim_figure_has_a_caption():
    names = {"violations", "controls", "shape_curves", "noise", "extrapolation", "parity"}
    assert names <= set(figures.CAPTIONS) and all(figures.CAPTIONS[n] for n in names)
