"""S4, S5, S7: the diversity-seeking conjecturer against the plain walk on one fixed graph, 16 play seeds.

Div of a run = Div_t of the pooled empirical distribution of all its conjectures (every round), evaluated with
the exact S_t; ratios are ratios of seed means. The thresholds are our formalisation's, not the paper's.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.selfplay_proving import figures, metrics
from jaxpapers.selfplay_proving.config import DecoratedConfig, SBMConfig
from jaxpapers.selfplay_proving.studies import diversity_plays, similarity


def _summary(res: dict, S: np.ndarray, rounds: int) -> dict:
    conj = res["conj"][:, :rounds]
    return dict(
        div=metrics.pooled_diversity(conj, S),
        round_div=np.nanmean(metrics.round_diversity(conj, S), axis=1),
        total=res["sizes"][:, rounds].astype(np.float64),
        truncated=int(res["truncated"].sum()),
    )


def measure_decorated(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S4: decorated backbone, seed node B: Div ratio, backbone theorems proved ratio, variant-fraction drop."""
    del key
    dc = to_dataclass(DecoratedConfig, cfg.decorated)
    S = similarity(cfg, "decorated")
    out = {}
    for name in ("plain", "diverse"):
        res = diversity_plays(cfg, "decorated", name)
        s = _summary(res, S, dc.rounds)
        s["backbone"] = metrics.backbone_proved(res["proved_round"], dc.backbone, dc.rounds).astype(np.float64)
        s["variant_fraction"] = metrics.variant_fraction(res["conj"][:, : dc.rounds], dc.backbone)
        out[name] = s
    p, d = out["plain"], out["diverse"]
    measured = {
        "div_ratio": float(d["div"].mean() / p["div"].mean()),
        "backbone_ratio": float(d["backbone"].mean() / p["backbone"].mean()),
        "variant_fraction_drop": float(p["variant_fraction"].mean() - d["variant_fraction"].mean()),
    }
    details = {
        f"{k}_{name}": float(np.mean(v)) for name, s in out.items() for k, v in s.items() if k != "truncated"
    }
    details.update(truncated_rounds=p["truncated"] + d["truncated"], seed_node=dc.seed_node, seeds=dc.seeds)
    fig = figures.diversity_figure(out, ("div", "backbone", "variant_fraction"), title="S4: decorated backbone")
    return Measurement(measured=measured, n=dc.seeds, details=details, figures={"diversity_decorated": fig},
                       captions={"diversity_decorated": figures.CAPTIONS["diversity"]})


def _clusters(cfg, conjecturer: str, S: np.ndarray) -> dict:
    sc = to_dataclass(SBMConfig, cfg.sbm)
    res = diversity_plays(cfg, "sbm", conjecturer)
    s = _summary(res, S, sc.rounds)
    labels = np.arange(sc.blocks * sc.block_size) // sc.block_size
    s["clusters"] = metrics.clusters_touched(res["proved_round"], labels, sc.rounds).astype(np.float64)
    return s


def _sbm_measure(cfg, other: str, title: str, fig_name: str) -> Measurement:
    sc = to_dataclass(SBMConfig, cfg.sbm)
    S = similarity(cfg, "sbm")
    out = {"plain": _clusters(cfg, "plain", S), other: _clusters(cfg, other, S)}
    p, d = out["plain"], out[other]
    measured = {
        "div_ratio": float(d["div"].mean() / p["div"].mean()),
        "clusters_gain": float(d["clusters"].mean() - p["clusters"].mean()),
    }
    details = {
        f"{k}_{name}": float(np.mean(v)) for name, s in out.items() for k, v in s.items() if k != "truncated"
    }
    details.update(truncated_rounds=p["truncated"] + d["truncated"], seeds=sc.seeds, blocks=sc.blocks)
    fig = figures.diversity_figure(out, ("div", "clusters", "total"), title=title)
    return Measurement(measured=measured, n=sc.seeds, details=details, figures={fig_name: fig},
                       captions={fig_name: figures.CAPTIONS["diversity"]})


def measure_clusters(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S5: SBM (p_out = 0.0005), exact S_t scorer: Div ratio and clusters touched gain."""
    del key
    return _sbm_measure(cfg, "diverse", "S5: stochastic block model", "diversity_sbm")


def measure_embedding_conjecturer(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S7: S5 with [S_t q̂] from trained k = 32 embeddings (Div still scored with exact S_t)."""
    del key
    return _sbm_measure(cfg, "embedding", "S7: embedding conjecturer", "diversity_embedding")
