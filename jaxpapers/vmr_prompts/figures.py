"""Figures the notebook shows and the claims save."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.vmr_prompts.config import TAGS


def variant_bars(table: dict, variants=("base", "es", "od", "km", "all", "sel", "random_choice", "best4")):
    """mIoU of each variant overall and per difficulty tag (SynthVMR, scripted oracle)."""
    groups = ("all", *TAGS)
    fig, ax = plt.subplots(figsize=(9, 3.2))
    w = 0.8 / len(variants)
    for i, v in enumerate(variants):
        ax.bar(np.arange(len(groups)) + i * w, [table[v][g]["mIoU"] for g in groups], w, label=v)
    ax.set_xticks(np.arange(len(groups)) + 0.4 - w / 2, groups)
    ax.set_ylabel("mIoU (%)")
    ax.set_title("SynthVMR under the scripted oracle: candidates, selection and best-of-4")
    ax.legend(ncol=4, fontsize=7)
    fig.tight_layout()
    return fig


def overlay_strip(frames_by_variant: dict, every: int = 4):
    """A few frames of each rendered variant side by side (rows: variants)."""
    names = list(frames_by_variant)
    m = next(iter(frames_by_variant.values())).shape[0]
    idx = list(range(0, m, every))
    fig, axes = plt.subplots(len(names), len(idx), figsize=(1.1 * len(idx), 1.2 * len(names)), squeeze=False)
    for r, n in enumerate(names):
        for c, i in enumerate(idx):
            axes[r, c].imshow(frames_by_variant[n][i])
            axes[r, c].set_xticks([])
            axes[r, c].set_yticks([])
            if c == 0:
                axes[r, c].set_ylabel(n)
            if r == 0:
                axes[r, c].set_title(f"t={i}", fontsize=7)
    fig.tight_layout()
    return fig
