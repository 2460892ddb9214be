"""The claim figures at a tiny size on made-up arrays (no training, no sweep): a title, labelled axes,
a legend naming the reference lines, and a caption for every figure a claim writes."""

import numpy as np

from jaxpapers.vlm_objectives import figures
from jaxpapers.vlm_objectives.experiments import v1_closed_forms, v2_trained, v3_staircase, v4_one_sided, v6_nonlinear
from tests.figure_checks import check_figure


def test_staircase_figure_names_the_predicted_steps():
    nu = np.linspace(0, 0.99, 12)
    pop = {n: np.clip(nu - 0.5, 0, 1) for n in ("cca", "captioning", "gen_t2i")}
    fig = figures.staircase_figure(nu, pop, pop, {"cca": np.array([0.69, 0.8]), "gen_t2i": np.array([0.3])})
    check_figure(fig, "predicted steps", "n-sample")
    assert set(v3_staircase.CAPTIONS) == {"staircase", "phase_diagram"}


def test_recall_figure_has_chance_and_a_legend():
    names = ["clip_cos", "jepa_x2y", "jepa_y2x", "oracle"]
    mean = {f"{d}/{n}": 0.3 for d in ("t2i", "i2t") for n in names}
    fig = figures.recall_figure(mean, dict.fromkeys(mean, 0.01), names, chance=1e-3)
    check_figure(fig, "chance", "oracle")


def test_v1_v4_v6_figures_have_reference_lines():
    check_figure(v1_closed_forms.figure({"clip": 1e-15, "gen": 0.0}, {"clip": 1e-16, "gen": 1e-15}, 3), "tolerance")
    b = np.geomspace(0.1, 1, 20)
    check_figure(v4_one_sided.figure(b, 2 * b, b > 0.5), "Δ_gen = bound")
    measured = {f"planted_{v}/{n}": 0.6 for v in ("clean", "contaminated") for n in ("clip", "gen_x2y")}
    check_figure(v6_nonlinear.figure(measured), "0.7")
    assert v1_closed_forms.CAPTION and v2_trained.CAPTION


def test_v2_training_figure_has_the_thresholds():
    steps = np.array([10, 100, 1000])
    ev = {k: np.full((2, 3), 0.01) for k in ("distance_img", "jepa_gap", "distance_img_to_signal")}
    runs = {"clip": {"steps": steps, "eval": ev}, "jepa_x2y": {"steps": steps, "eval": ev}}
    check_figure(v2_trained.figure(runs, "clean"), "0.05", "0.02")
