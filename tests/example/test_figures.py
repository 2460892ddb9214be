"""The example's learning-curve figure on a made-up history: both panels, both chance levels, a caption."""

import matplotlib.pyplot as plt

from jaxpapers.example import figures


def check_figure(fig, *labels: str, legend: bool = True) -> None:
    """Each axes (colour bars aside) has a title (or the figure a suptitle), both axis labels and, with
    ``legend``, a legend; every ``labels`` entry is in some legend."""
    texts = []
    suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        assert ax.get_title() or suptitle, "missing title"
        assert ax.get_xlabel() and ax.get_ylabel(), "missing axis label"
        leg = ax.get_legend()
        if legend:
            assert leg is not None, "missing legend"
        if leg is not None:
            texts += [t.get_text() for t in leg.get_texts()]
    for label in labels:
        assert any(label in t for t in texts), (label, texts)
    plt.close(fig)


def test_learning_curves_show_loss_accuracy_and_chance():
    history = [
        {"step": 200, "loss": 1.0, "eval/loss": 1.1, "eval/accuracy": 0.5},
        {"step": 400, "loss": 0.01, "eval/loss": 0.02, "eval/accuracy": 1.0},
    ]
    fig = figures.loss_curves(history, vocab_size=16)
    check_figure(fig, "chance ln 16", "chance 1/16", "eval/accuracy")
    assert figures.CAPTION
