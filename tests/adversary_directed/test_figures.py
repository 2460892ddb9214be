"""adversary_directed figures on made-up values (no solver): closed forms, reference lines, titles, captions."""

import numpy as np

from jaxpapers.adversary_directed import figures
from tests.figure_checks import check_figure


def test_rate_figure_draws_closed_forms_and_references():
    Ts = np.arange(1, 9)
    v = np.floor(np.log2(Ts + 1.0))
    fig = figures.rate_figure(
        Ts, {"thresholds": v}, title="t", log_ref=True, predicted={"thresholds": v}, linear_ref=True
    )
    check_figure(fig, "closed forms", "⌊log2(T+1)⌋", "T")


def test_agnostic_figure_has_both_guides():
    T = np.array([8.0, 16, 32, 64])
    runs = {"thresholds_random": (T, np.sqrt(T)), "prefix_tree": (T, T / 2)}

    class Fit:
        slope = 0.5

    fig = figures.agnostic_figure(runs, {k: Fit() for k in runs})
    check_figure(fig, "√T", "T/2")


def test_every_claim_figure_has_a_caption():
    names = {"constant_regime", "log_regime", "linear_regime", "online_vs_ad", "dimensions", "agnostic", "ad_vs_td"}
    assert names <= set(figures.CAPTIONS)
