"""Figures of the flow-matching claims; each takes arrays a claim has already computed (drawing re-runs nothing).

* :func:`optimisation` (FM1, the notebook's key figure): L̂(k)/L̂(0) per width against the rate bound
  (1 − ηλ₀/2)^k with K_b marked, and Δ_max(T) against m with the m^{−1/2} reference.
* :func:`generalisation` (FM2/FM3): train and test CFM loss against n with the floor L*, and W2 with its floor.
* :func:`widths` (FM5): excess test loss and train loss against m.
* :func:`images` (FM6): train/test CFM loss per n and a few generated digits.
"""

from __future__ import annotations

import math

import numpy as np

from jaxpapers.core import plots

OPTIMISATION_CAPTION = (
    "FM1: training loss L̂(k)/L̂(0) per width against the rate bound (1 − ηλ₀/2)^k (dashed; K_b dotted), and "
    "Δ_max(T) = max_r ‖w_r(T) − w_r(0)‖ against m with an m^{−1/2} reference."
)
GENERALISATION_CAPTION = "FM2/FM3: train and test CFM loss vs n beside the floor L*, and W2 beside its sampling floor."
WIDTHS_CAPTION = "FM5: excess test loss (test − L*) and train loss vs width m at fixed n."
IMAGES_CAPTION = "FM6: CFM train and test loss on digits per n, and samples of the learned flow."


def optimisation(sweep: dict, widths, seed: int = 0):
    """FM1. ``sweep`` from :func:`~jaxpapers.flow_matching.studies.optimisation_sweep`; draws seed ``seed``."""
    fig, (ax, bx) = plots.figure(2, width=4.4)
    loss = sweep["loss"][seed]
    k = np.arange(loss.shape[-1])
    lam0, eta = float(sweep["lambda0"][seed]), float(sweep["eta"][seed])
    for j, m in enumerate(widths):
        ax.semilogy(k, loss[j] / loss[j, 0], lw=1, label=f"m = {int(m)}")
    ax.semilogy(k, np.exp(k * math.log1p(-eta * lam0 / 2)), "k--", lw=1, label="(1 − ηλ₀/2)^k")
    ax.axvline(min(k[-1], math.ceil(4 / (eta * lam0))), color="gray", ls=":", lw=1, label="K_b")
    ax.set_xlabel("GD step k")
    ax.set_ylabel("L̂(k) / L̂(0)")
    ax.set_title("Geometric decay")
    ax.legend(fontsize=7)
    delta = sweep["delta_max"][seed, :, -1]
    w = np.asarray(widths, float)
    bx.loglog(w, delta, "o-", label="Δ_max(T)")
    bx.loglog(w, delta[0] * np.sqrt(w[0] / w), "k--", lw=1, label="∝ m^{−1/2}")
    bx.set_xlabel("width m")
    bx.set_ylabel("max_r ‖w_r(T) − w_r(0)‖")
    bx.set_title("Laziness")
    bx.legend(fontsize=7)
    return fig


def generalisation(runs: list[dict]):
    """FM2/FM3. ``runs``: the per-n results of :func:`~jaxpapers.flow_matching.studies.generalisation_run`."""
    fig, (ax, bx) = plots.figure(2, width=4.4)
    n = np.array([r["n"] for r in runs], float)
    ax.semilogx(n, [r["train"] for r in runs], "o-", label="train")
    ax.errorbar(n, [r["test"] for r in runs], yerr=[3 * r["test_se"] for r in runs], fmt="s-", label="test (±3 SE)")
    ax.semilogx(n, [r["floor"] for r in runs], "k--", lw=1, label="floor L*")
    ax.set_xlabel("n (fixed triples)")
    ax.set_ylabel("mean ½‖v − u‖²")
    ax.set_title("CFM loss")
    ax.legend(fontsize=7)
    if "w2" in runs[0]:
        bx.semilogx(n, [r["w2"] for r in runs], "o-", label="W2(generated, target)")
        bx.semilogx(n, [r["w2_floor"] for r in runs], "k--", lw=1, label="sampling floor")
        bx.legend(fontsize=7)
    bx.set_xlabel("n")
    bx.set_ylabel("W2")
    bx.set_title("Samples")
    return fig


def widths(runs: list[dict]):
    """FM5. ``runs``: the per-width results at fixed n."""
    fig, ax = plots.figure()
    m = np.array([r["m"] for r in runs], float)
    ax.semilogx(m, [r["excess"] for r in runs], "o-", label="excess test loss")
    ax.semilogx(m, [r["train"] - r["floor"] for r in runs], "s-", label="train − L*")
    ax.axhline(0, color="gray", lw=1)
    ax.set_xlabel("width m")
    ax.set_ylabel("loss − L*")
    ax.set_title(f"n = {runs[0]['n']}")
    ax.legend(fontsize=7)
    return fig


def images(ns, train, test, samples=None, shape=(8, 8), baseline_test=None):
    """FM6. Losses per n (the MLP baseline's test loss beside them, if given) and (optionally) up to 8 generated
    images of the largest n (``samples [k, prod(shape)]``, ``shape`` (h, w) grey or (h, w, 3) colour)."""
    cols = 2 if samples is not None else 1
    fig, axes = plots.figure(cols, width=4.2)
    ax = axes[0] if cols > 1 else axes
    ax.semilogx(ns, train, "o-", label="train")
    ax.semilogx(ns, test, "s-", label="test (held out)")
    if baseline_test is not None:
        ax.semilogx(ns, baseline_test, "^--", label="test, MLP baseline")
    ax.set_xlabel("n (training images)")
    ax.set_ylabel("CFM loss")
    ax.legend(fontsize=7)
    if samples is not None:
        s = np.asarray(samples)[:8].reshape((-1, *shape))
        strip = np.concatenate(list(s), axis=1)
        if len(shape) == 3:
            axes[1].imshow(np.clip((strip + 1) / 2, 0, 1))
        else:
            axes[1].imshow(strip, cmap="gray", vmin=-1, vmax=1)
        axes[1].set_axis_off()
        axes[1].set_title("generated")
    return fig
