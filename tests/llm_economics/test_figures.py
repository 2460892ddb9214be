"""llm_economics figures on made-up numbers (no solver): titles, labelled axes, legends, reference lines, captions."""

import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.llm_economics import figures


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


def test_statics_figure_has_the_no_change_line_and_predictions():
    fig = figures.statics_figure(
        [0.0, 2e5], {"N": np.array([5.8, 2.2])}, {"N": np.array([5.8, 2.2])}, "data-efficiency gain, m = 0.5"
    )
    check_figure(fig, "no change", "predicted", "solver")


def test_every_figure_has_a_caption():
    assert {"frontier", "key", "rho", "spend", "statics"} <= set(figures.CAPTIONS)
