"""Self-play theorem proving on theorem graphs: random-walk conjecturers, growth, diversity, diffusion similarity.

    config.py        frozen, validated dataclasses (PlayConfig, ExpanderConfig, GridConfig, SmallWorldConfig,
                     DecoratedConfig, SBMConfig, EmbedConfig, ShapeConfig); no JAX
    graphs.py        generators returning padded neighbour lists, spectral gap (Lanczos), Cheeger bound
    diffusion.py     lazy walk, diffusion similarity S_t, diversity, the χ² identity (float64 NumPy)
    selfplay.py      the prover–conjecturer loop: one lax.scan over rounds, vmapped over seeds
    contrastive.py   EmbedNet, the O(Bk²) spectral contrastive estimator, exact population loss, training
    metrics.py       growth fits, clusters touched, variant fraction, backbone proved, pooled diversity
    data.py          load_theorem_graph (whitespace edge lists)
    studies.py       studies several claims share (memoised); experiments/ one module per claim group
    figures.py       the figures the notebook shows (and the claims save)

Public API: ``run_growth(cfg)``, ``compare_conjecturers(cfg)``, ``fit_embeddings(cfg)`` (below) and the modules.
"""

from __future__ import annotations

import ml_collections

from jaxpapers.selfplay_proving import (
    contrastive,
    data,
    diffusion,
    experiments,
    figures,
    graphs,
    metrics,
    selfplay,
    studies,
)
from jaxpapers.selfplay_proving.contrastive import EmbedNet
from jaxpapers.selfplay_proving.data import load_theorem_graph
from jaxpapers.selfplay_proving.selfplay import play


def run_growth(cfg: ml_collections.ConfigDict) -> dict:
    """S1–S3 measurements (a ``configs/selfplay_proving/growth.py`` config): their measured values."""
    g = experiments.growth
    return {
        "S1": g.measure_expanders(cfg, None).measured,
        "S2": g.measure_grids(cfg, None).measured,
        "S3": g.measure_small_world(cfg, None).measured,
    }


def compare_conjecturers(cfg: ml_collections.ConfigDict) -> dict:
    """S4, S5, S7 measurements (a ``configs/selfplay_proving/diversity.py`` config)."""
    d = experiments.diversity
    return {
        "S4": d.measure_decorated(cfg, None).measured,
        "S5": d.measure_clusters(cfg, None).measured,
        "S7": d.measure_embedding_conjecturer(cfg, None).measured,
    }


def fit_embeddings(cfg: ml_collections.ConfigDict) -> dict:
    """S6 measurement (a ``configs/selfplay_proving/diversity.py`` config)."""
    return experiments.embeddings.measure(cfg, None).measured


__all__ = [
    "EmbedNet",
    "compare_conjecturers",
    "contrastive",
    "data",
    "diffusion",
    "experiments",
    "figures",
    "fit_embeddings",
    "graphs",
    "load_theorem_graph",
    "metrics",
    "play",
    "run_growth",
    "selfplay",
    "studies",
]
