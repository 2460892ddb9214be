"""timely_generation figures on made-up curves (no game is played): reference lines, titles, captions."""

import numpy as np

from jaxpapers.timely_generation import figures
from tests.figure_checks import check_figure


def test_density_figure_labels_phase_ends_and_reference():
    fig = figures.density_figure({"G1": np.linspace(1, 0.1, 64)}, [4, 16], title="t", hlines={"claim 0.06": 0.06})
    check_figure(fig, "phase ends", "claim 0.06")


def test_hallucination_figure_has_the_slope_guide():
    h = 1.0 / np.sqrt(np.arange(1, 1025))
    check_figure(figures.hallucination_figure({"f = n1.5": h}, "t", guide_slope=-0.25), "slope -0.25")


def test_phase_points_figure_and_captions():
    fig = figures.phase_points_figure(
        np.array([1.0, 2, 4, 8]),
        {"G2": np.array([0.0, 0.0, 0.1, 1.0])},
        xlabel="c",
        title="t",
        predicted=(np.linspace(1, 8, 50), np.linspace(1, 8, 50) >= 5),
    )
    check_figure(fig, "predicted")
    names = {"oracle_density", "g1_density", "g2_hallucination", "eps_frontier", "untimed_control", "monotone"}
    assert names <= set(figures.CAPTIONS)
