"""comonet figures that need no trained model: CO7's parity figure and the captions of every claim figure."""

import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.comonet import figures


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


def test_parity_figure_draws_parity_and_the_claim_bound():
    fig = figures.parity_figure({"comonet": np.array([0.5, 0.52, 0.55]), "mlp": np.array([0.5, 0.5, 0.53])})
    check_figure(fig, "parity", "1.1", "mean")


def test_every_claim_figure_has_a_caption():
    names = {"violations", "controls", "shape_curves", "noise", "extrapolation", "parity"}
    assert names <= set(figures.CAPTIONS) and all(figures.CAPTIONS[n] for n in names)
