"""Figures the claims save and the notebook shows: training curves, compiled cost against the number
of frames, and where the router looks on the needle task."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import plots
from jaxpapers.core.stats import fit_loglog

LEARNING_CAPTION = (
    "Left: training loss (single batches, so noisy) against the dashed chance level ln C, on an axis from 0 so "
    "that noise around ln C does not look like learning. Right: held-out accuracy against the dashed chance "
    "level 1/C; only a curve or end point clearly above it shows the model learned the task."
)


def loss_curves(runs: Mapping[str, Mapping[str, Any]], title: str, *, num_classes: int | None = None):
    """Learning curves of trained runs (``studies.trained`` results): training loss and held-out accuracy.

    Left: training loss against step, with the loss of a uniform guess, ln C, when ``num_classes`` (C)
    is given; the y axis starts at 0. Right: held-out accuracy (``eval/accuracy`` rows of the history
    when the run logged them, and the final held-out accuracy at the last step) with chance 1/C.
    """
    fig, (ax1, ax2) = plots.figure(2, width=4.2)
    top = 0.0
    for k, (impl, r) in enumerate(runs.items()):
        colour = f"C{k}"
        rows = [h for h in r["history"] if "loss" in h]
        loss = [h["loss"] for h in rows]
        top = max([top, *loss])
        ax1.plot([h["step"] for h in rows], loss, "o-", ms=3, color=colour, label=impl)
        ev = [h for h in r["history"] if "eval/accuracy" in h]
        last = max((h["step"] for h in r["history"]), default=0)
        if ev:
            ax2.plot([h["step"] for h in ev], [h["eval/accuracy"] for h in ev], "o-", ms=3, color=colour, label=impl)
        ax2.plot([last], [r["accuracy"]], "*", ms=10, color=colour, label=f"{impl}: final {r['accuracy']:.2f}")
    if num_classes:
        chance_loss = float(np.log(num_classes))
        top = max(top, chance_loss)
        ax1.axhline(chance_loss, ls="--", color="gray", lw=1, label=f"chance: ln {num_classes} = {chance_loss:.2f}")
        ax2.axhline(1.0 / num_classes, ls="--", color="gray", lw=1, label=f"chance 1/{num_classes}")
    ax1.set_ylim(0.0, 1.1 * top if top > 0 else 1.0)
    ax2.set_ylim(0.0, 1.02)
    ax2.set_xlim(ax1.get_xlim())  # same steps as the loss panel, even with a single end point
    ax1.set(xlabel="step", ylabel="training loss (cross-entropy, nats)", title=f"{title}: training loss")
    ax2.set(xlabel="step", ylabel="held-out accuracy", title=f"{title}: held-out accuracy")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    return fig


def cost_and_memory(table: Mapping[str, np.ndarray], tokens_per_frame: int, k: int):
    """Two log-log panels of ``experiments.scaling.scaling_table(cfg, backward=True)``: FLOPs and temp
    memory of FSA and dense frame-causal attention against T, each with its fitted slope."""
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    frames = np.asarray(table["frames"])
    for kind, colour, name in (("fsa", "C0", "FSA"), ("dense", "C3", "dense frame-causal")):
        for ax, key in ((ax1, f"{kind}_flops"), (ax2, f"{kind}_temp_bytes")):
            fit = fit_loglog(frames, table[key])
            ax.loglog(frames, table[key], "o-", color=colour, label=f"{name} (slope {fit.slope:.2f})")
    for ax, key in ((ax1, "fsa_flops"), (ax2, "fsa_temp_bytes")):
        ax.loglog(frames, table[key][0] * frames / frames[0], ":", color="gray", lw=1, label="slope 1 (FSA, predicted)")
    for ax, key in ((ax1, "dense_flops"), (ax2, "dense_temp_bytes")):
        ax.loglog(frames, table[key][0] * (frames / frames[0]) ** 2, "--", color="gray", lw=1, label="slope 2 (dense)")
    ax1.set(xlabel=f"frames T (P = {tokens_per_frame}, k = {k})", ylabel="FLOPs, fwd + bwd", title="compute")
    ax2.set(xlabel="frames T", ylabel="XLA temp bytes, fwd + bwd", title="memory")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    return fig


def selection_rates(sel: ArrayLike, needle: ArrayLike, frames: int) -> np.ndarray:
    """How often the last frame selects key frame j, by layer, head and offset j − needle frame:
    [L, N, 2T − 1] (NaN where an offset never occurs). ``sel`` [L, B, N, T, K], ``needle`` [B]."""
    sel, needle = np.asarray(sel), np.asarray(needle)
    last = sel[:, :, :, -1, :]  # [L, B, N, K]
    member = (last[..., None] == np.arange(frames)).any(axis=-2)  # [L, B, N, T(j)]
    offset = np.arange(frames)[None, :] - needle[:, None]  # [B, T(j)]
    rates = np.full((sel.shape[0], sel.shape[2], 2 * frames - 1), np.nan)
    for d in range(-(frames - 1), frames):
        hit = offset == d  # [B, T(j)]
        if hit.any():
            rates[:, :, d + frames - 1] = member.transpose(0, 2, 1, 3)[:, :, hit].mean(-1)
    return rates


def routing_map(sel: ArrayLike, needle: ArrayLike, frames: int):
    """One heat map per layer: the last frame's selection rate by head and key frame − needle frame."""
    import matplotlib.pyplot as plt

    rates = selection_rates(sel, needle, frames)
    layers, heads = rates.shape[:2]
    fig, axes = plt.subplots(1, layers, figsize=(4.2 * layers, 3.2), constrained_layout=True, squeeze=False)
    extent = (-(frames - 1) - 0.5, frames - 0.5, heads - 0.5, -0.5)
    for layer in range(layers):
        ax = axes[0, layer]
        im = ax.imshow(np.nan_to_num(rates[layer]), aspect="auto", cmap="viridis", vmin=0, vmax=1, extent=extent)
        ax.axvline(0, color="w", lw=0.8, label="needle frame")
        ax.set_yticks(range(heads))
        ax.set(title=f"layer {layer}: last frame selects", xlabel="key frame − needle frame", ylabel="head")
        ax.legend(fontsize=7, loc="lower left")
    fig.colorbar(im, ax=axes[0, -1], label="selection rate")
    fig.suptitle("Where the router looks on the needle task", fontsize=9)
    return fig


ROUTING_CAPTION = (
    "How often the last frame's router selects each history frame, by head, against its offset from the needle "
    "frame (white line at 0): a learned router lights up the column at 0; a random one is uniform."
)

SCALING_CAPTIONS = {
    "flops": "Compiled forward FLOPs of one attention layer against the number of frames on log-log axes: FSA's "
    "fitted slope (with its 95 % interval) should match the dashed slope 1, dense frame-causal attention's slope 2.",
    "temp_bytes": "XLA's temporary memory for forward + backward against the number of frames: FSA's fitted slope "
    "should match the dashed slope 1 (linear memory), dense frame-causal attention's slope 2.",
}


def slope_figure(table: Mapping[str, np.ndarray], quantity: str, ylabel: str, xlabel: str, title: str):
    """F6/F11: log-log plot of ``<kind>_<quantity>`` against T, each kind's fitted slope, the predicted
    slopes (1 for FSA, 2 for dense frame-causal attention) drawn through the first point."""
    fig, ax = plots.figure(width=4.6, height=3.6)
    for kind, label, pred in (("fsa", "FSA", 1.0), ("dense", "dense frame-causal", 2.0)):
        fit = fit_loglog(table["frames"], table[f"{kind}_{quantity}"])
        plots.loglog_fit(ax, table["frames"], table[f"{kind}_{quantity}"], fit, label=label, predicted_slope=pred)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig
