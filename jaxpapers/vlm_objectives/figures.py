"""Figures the notebook shows (the claims' experiments build them too)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core import plots

_COLORS = {"cca": "C0", "captioning": "C2", "gen_t2i": "C3"}
_LABELS = {
    "cca": "CCA family (CLIP, SigLIP, JEPA): image side",
    "captioning": "captioning (image→text generation): image side",
    "gen_t2i": "text→image generation: text side",
}


def staircase_figure(
    nu: ArrayLike,
    pop: Mapping[str, ArrayLike],
    smp: Mapping[str, ArrayLike] | None,
    predicted: Mapping[str, ArrayLike],
):
    """The key figure (V3): subspace distance to the semantic subspace vs the nuisance correlation, for
    population (lines) and n-sample (dots) covariances, with the predicted steps (dotted)."""
    nu = np.asarray(nu)
    fig, ax = plots.figure(width=5.5, height=3.6)
    for name, d in pop.items():
        ax.plot(nu, np.asarray(d), color=_COLORS[name], lw=1.8, label=_LABELS[name])
        if smp is not None:
            ax.plot(nu, np.asarray(smp[name]), ".", color=_COLORS[name], ms=3, alpha=0.6)
    for name in ("cca", "gen_t2i"):
        first = True
        for t in np.asarray(predicted[name]):
            if np.isfinite(t) and t <= nu[-1]:
                label = f"predicted steps ({'ν = ρ_i' if name == 'cca' else '5ν = τ′_i'})" if first else None
                ax.axvline(t, color=_COLORS[name], ls=":", lw=1, label=label)
                first = False
    if smp is not None:
        ax.plot([], [], ".", color="gray", label="n-sample covariances")
    ax.set_xlabel("nuisance cross-modal correlation ν")
    ax.set_ylabel("subspace distance to the semantic subspace")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("phase staircase (lines: population; dots: n-sample; dotted: predicted)", fontsize=8)
    ax.legend(fontsize=7, loc="upper left")
    return fig


def recall_figure(mean: Mapping[str, float], se: Mapping[str, float], names: list[str], *, chance: float | None = None):
    """V5: R@1 per method and direction (the query modality's JEPA in red, the oracle in grey), ± 1 s.e.,
    with the chance level ``1/gallery`` when given."""
    from matplotlib.patches import Patch

    fig, axes = plots.figure(2, width=4.3, height=3.9)
    for ax, direction in zip(axes, ("t2i", "i2t"), strict=True):
        best = "jepa_x2y" if direction == "t2i" else "jepa_y2x"
        ax.bar(
            range(len(names)),
            [mean[f"{direction}/{n}"] for n in names],
            yerr=[se[f"{direction}/{n}"] for n in names],
            color=[
                "C3" if n == best else "C7" if n == "oracle" else "C9" if n.startswith("gen") else "C0" for n in names
            ],
        )
        handles = [
            Patch(color="C3", label="JEPA, target = query modality"),
            Patch(color="C0", label="other alignment objectives"),
            Patch(color="C9", label="captioning proxies (report only)"),
            Patch(color="C7", label="Bayes-optimal oracle"),
        ]
        if chance is not None:
            handles.append(ax.axhline(chance, ls="--", color="k", lw=1, label=f"chance 1/gallery = {chance:.2g}"))
        ax.set_xticks(range(len(names)), names, rotation=60, fontsize=7)
        ax.set_xlabel("retrieval score")
        ax.set_ylabel("R@1 (mean ± s.e. over galleries)", fontsize=8)
        ax.set_title({"t2i": "text→image", "i2t": "image→text"}[direction], fontsize=9)
    fig.legend(handles=handles, fontsize=7, loc="outside lower center", ncol=3)
    fig.suptitle("V5: recall@1 on fresh galleries", fontsize=9)
    return fig
