"""Shared check for claim figures: every axes has a title (or the figure a suptitle), both axis labels and,
with ``legend``, a legend; named reference lines must appear in a legend."""

import matplotlib.pyplot as plt


def check_figure(fig, *labels: str, legend: bool = True) -> None:
    """Each axes (colour bars aside) has a title (or the figure a suptitle), both axis labels and, with
    ``legend``, a legend; every ``labels`` entry is in some legend."""
    texts = [t.get_text() for leg in fig.legends for t in leg.get_texts()]  # figure-level legends
    suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        assert ax.get_title() or suptitle, "missing title"
        assert ax.get_xlabel() and ax.get_ylabel(), "missing axis label"
        leg = ax.get_legend()
        if legend:
            assert leg is not None or fig.legends, "missing legend"
        if leg is not None:
            texts += [t.get_text() for t in leg.get_texts()]
    for label in labels:
        assert any(label in t for t in texts), (label, texts)
    plt.close(fig)
