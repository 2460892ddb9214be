"""The shared figure check rejects what it should (so the papers' figure tests can fail)."""

import matplotlib.pyplot as plt
import pytest

from tests.figure_checks import check_figure


def _fig(title="t", xlabel="x", ylabel="y", label="chance"):
    fig, ax = plt.subplots()
    ax.plot([0, 1], label=label)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.legend()
    return fig


def test_a_complete_figure_passes_and_each_missing_part_fails():
    check_figure(_fig(), "chance")
    for bad, kw in [("missing title", {"title": ""}), ("missing axis label", {"ylabel": ""})]:
        with pytest.raises(AssertionError, match=bad):
            check_figure(_fig(**kw))
    with pytest.raises(AssertionError):
        check_figure(_fig(), "a reference line that is not drawn")
    fig, ax = plt.subplots()
    ax.set(title="t", xlabel="x", ylabel="y")
    with pytest.raises(AssertionError, match="missing legend"):
        check_figure(fig)
