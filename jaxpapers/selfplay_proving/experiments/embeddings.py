"""S6: spectral-contrastive embeddings recover diffusion similarity (HaoChen et al. 2021 on the walk kernel).

For each graph (S5's SBM, a random 4-regular graph) and k ∈ ``embed.ks``: the exact population loss of the trained
table against ℒ* = −Σ_{i≤k} μ_i², and the error ‖D_π^{1/2}(FFᵀ − S_t)D_π^{1/2}‖_F against the Eckart–Young error
(Σ_{i>k} μ_i²)^{1/2}. Losses and errors only: μ_k ≈ μ_{k+1} makes single eigenvectors meaningless.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.selfplay_proving import contrastive, diffusion, figures
from jaxpapers.selfplay_proving.config import EmbedConfig, PlayConfig
from jaxpapers.selfplay_proving.studies import embeddings

ERR_FACTOR, ERR_SLACK = 1.1, 0.01  # the spec's error criterion: err ≤ 1.1·EY + 0.01·‖N_t‖_F


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S6: relative population-loss gaps (ℒ − ℒ*)/|ℒ*| and error excess err − (1.1·EY + 0.01·‖N_t‖_F)."""
    del key
    ec = to_dataclass(EmbedConfig, cfg.embed)
    t = to_dataclass(PlayConfig, cfg.play).t
    emb = embeddings(cfg)
    gaps, excess, details = [], [], {}
    for name, g in emb["graphs"].items():
        mu = diffusion.kernel_spectrum(g, t)
        norm = float(np.sqrt(np.sum(mu**2)))
        for k in ec.ks:
            F = emb[(name, k)]
            loss = contrastive.population_loss(F, g, t)
            star = -float(np.sum(mu[:k] ** 2))
            err = contrastive.embedding_error(F, g, t)
            ey = float(np.sqrt(np.sum(mu[k:] ** 2)))
            gaps.append((loss - star) / abs(star))
            excess.append(err - (ERR_FACTOR * ey + ERR_SLACK * norm))
            details[f"{name}_k{k}"] = dict(loss=loss, loss_star=star, gap=gaps[-1], err=err, eckart_young=ey,
                                           mu_k=float(mu[k - 1]), mu_k1=float(mu[k]))
    fig = figures.loss_figure({f"{n} k={k}": emb["losses"][(n, k)] for n in emb["graphs"] for k in ec.ks})
    return Measurement(
        measured={"loss_gap": gaps, "error_excess": excess},
        predicted={"loss_gap": [0.0] * len(gaps)},
        n=len(gaps),
        details=details,
        figures={"contrastive_loss": fig},
        captions={"contrastive_loss": figures.CAPTIONS["loss"]},
    )
