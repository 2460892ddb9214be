"""online_autoregressive figures on made-up values (no solver): the log2 staircase at every M, legends, captions."""

import numpy as np

from jaxpapers.online_autoregressive import figures
from tests.figure_checks import check_figure


def test_latch_figure_draws_the_staircase_densely_and_the_cot_line():
    ms = np.array([1, 2, 4, 8, 64])
    fig = figures.latch_figure(ms, 1 + np.floor(np.log2(ms)), ms, 1 + np.floor(np.log2(ms)), np.ones(5))
    stair = fig.axes[0].get_lines()[0]
    assert len(stair.get_xdata()) > len(ms)  # a staircase, not a ramp through the samples
    check_figure(fig, "1 + ⌊log2 M⌋", "CoT prediction")


def test_taxonomy_and_ltf_figures():
    ms = np.array([1, 2, 4, 8])
    check_figure(figures.taxonomy_figure(ms, {"N": [1, 2, 3, 4]}), "ceiling")
    check_figure(
        figures.ltf_figure([2, 3], list(ms), {(2, "e2e"): [3, 2, 2, 2], (3, "e2e"): [5, 5, 5, 5]}, [2, 3.8]),
        "log2 N(2)",
    )
    assert {"latch_rates", "taxonomy", "ltf_games_e2e", "ltf_games_cot"} <= set(figures.CAPTIONS)
