"""Figures the claims save and the notebook shows: training curves, compiled cost against the number
of frames, and where the router looks on the needle task."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import plots
from jaxpapers.core.stats import fit_loglog


def loss_curves(runs: Mapping[str, Mapping[str, Any]], title: str):
    """Training loss against step for each trained run (``studies.trained`` results), labelled with its accuracy."""
    fig, ax = plots.figure()
    for impl, r in runs.items():
        rows = [h for h in r["history"] if "loss" in h]
        ax.plot([h["step"] for h in rows], [h["loss"] for h in rows], label=f"{impl} (acc {r['accuracy']:.2f})")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(title)
    ax.legend(fontsize=7)
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
        ax.loglog(frames, table[key][0] * frames / frames[0], ":", color="gray", lw=1, label="slope 1")
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
        ax.axvline(0, color="w", lw=0.8)
        ax.set(title=f"layer {layer}: last frame selects", xlabel="key frame − needle frame", ylabel="head")
    fig.colorbar(im, ax=axes[0, -1], label="selection rate")
    return fig
