"""fuxvit figures on made-up arrays (no training): learning curves with the chance lines and held-out
accuracy, the scaling figure's predicted slopes, integer head ticks on the routing map, captions."""

import numpy as np

from jaxpapers.fuxvit import figures
from tests.figure_checks import check_figure


def _run(acc):
    history = [{"step": s, "loss": 1.39 - 1e-3 * s} for s in (50, 100, 150, 200)]
    history[-1]["eval/accuracy"] = acc
    return {"history": history, "accuracy": acc}


def test_learning_curves_show_chance_and_held_out_accuracy():
    fig = figures.loss_curves({"fsa": _run(1.0), "static": _run(0.25)}, "needle task", num_classes=4)
    check_figure(fig, "chance: ln 4", "chance 1/4", "final 1.00")
    loss_ax, acc_ax = fig.axes
    assert loss_ax.get_ylim()[0] == 0.0  # noise around ln C cannot look like learning
    assert acc_ax.get_ylim() == (0.0, 1.02)
    assert figures.LEARNING_CAPTION


def test_slope_figure_draws_both_predicted_slopes():
    t = np.array([8.0, 16, 32, 64])
    table = {"frames": t, "fsa_flops": 3 * t, "dense_flops": 0.5 * t**2}
    fig = figures.slope_figure(table, "flops", "FLOPs", "frames T", "Attention FLOPs vs frames")
    check_figure(fig, "predicted 1.000", "predicted 2.000")
    assert set(figures.SCALING_CAPTIONS) == {"flops", "temp_bytes"}


def test_routing_map_has_integer_head_ticks():
    frames, heads = 4, 2
    sel = np.tile(np.array([0, 1, 2])[None, None, None, None, :], (1, 3, heads, frames, 1))
    fig = figures.routing_map(sel, np.array([0, 1, 2]), frames)
    ticks = fig.axes[0].get_yticks()
    assert np.array_equal(ticks, np.arange(heads))
    check_figure(fig, "needle frame")
    assert figures.ROUTING_CAPTION
