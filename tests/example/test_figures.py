"""The example's learning-curve figure on a made-up history: both panels, both chance levels, a caption."""

from jaxpapers.example import figures
from tests.figure_checks import check_figure


def test_learning_curves_show_loss_accuracy_and_chance():
    history = [
        {"step": 200, "loss": 1.0, "eval/loss": 1.1, "eval/accuracy": 0.5},
        {"step": 400, "loss": 0.01, "eval/loss": 0.02, "eval/accuracy": 1.0},
    ]
    fig = figures.loss_curves(history, vocab_size=16)
    check_figure(fig, "chance ln 16", "chance 1/16", "eval/accuracy")
    assert figures.CAPTION
