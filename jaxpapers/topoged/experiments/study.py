"""T3–T7 on the shared forecasting study (:mod:`jaxpapers.topoged.studies`, memoised: the first claim run in a
process pays for it, the others read it).

Every number is pooled over the test snapshots of all seeds (mean of per-snapshot values unless a median is
named). Copy-last and EdgeBank are reported beside the criteria, never judged.
"""

from __future__ import annotations

import dataclasses

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.topoged import figures
from jaxpapers.topoged.config import BaselineConfig, DecoderTrainConfig, ModelConfig, PaChurnConfig
from jaxpapers.topoged.metrics import STRUCTURE, wins
from jaxpapers.topoged.studies import BASELINES, StudyConfig, StudyResult, study


def study_config(cfg: ml_collections.ConfigDict) -> StudyConfig:
    """The :class:`StudyConfig` of a ``configs/topoged/study.py`` preset."""
    return StudyConfig(
        seeds=tuple(int(s) for s in cfg.seeds),
        data=to_dataclass(PaChurnConfig, cfg.data),
        model=to_dataclass(ModelConfig, cfg.model),
        train=to_dataclass(DecoderTrainConfig, cfg.decoder_train),
        baseline=to_dataclass(BaselineConfig, cfg.baseline),
    )


def _run(cfg) -> StudyResult:
    return study(study_config(cfg))


def window_sweep(base: StudyConfig, ks: tuple[int, ...]) -> dict[str, list[float]]:
    """The history-window sweep (paper Fig. 4): for each k (edge bank, memory window, features) a TopoGED
    decoder is trained and decoded in mode ``topoged`` only (no baselines); strict node / edge F1 and the
    reference edge F1, pooled over the test snapshots of all seeds."""
    out: dict[str, list[float]] = {"k": [], "node_f1_strict": [], "edge_f1_strict": [], "edge_f1_ref": []}
    for k in ks:
        cfg = dataclasses.replace(base, model=dataclasses.replace(base.model, k=int(k)), modes=("topoged",),
                                  baselines=False)
        r = study(cfg)
        out["k"].append(int(k))
        for key in ("node_f1_strict", "edge_f1_strict", "edge_f1_ref"):
            out[key].append(round(r.mean("topoged", key), 4))
    return out


def _common(r: StudyResult) -> dict:
    return {"seconds": {k: round(v, 2) for k, v in r.info["seconds"].items()}, "n_test_snapshots": r.info["n_test"]}


def measure_budgets(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T3: oracle budgets; the guided decoder vs the unguided one (same heads and budgets, no caps or level
    penalty): violations of |V̂| = |V|, |Ê| = |E|, and the median relative ℓ2 descriptor errors."""
    del key
    r = _run(cfg)
    g, u = r.select("oracle"), r.select("unguided")
    viol = sum(int(x["V_pred"] != x["V_true"] or x["E_pred"] != x["E_true"]) for x in g + u)
    dg = float(np.median([x["derr"] for x in g]))
    du = float(np.median([x["derr"] for x in u]))
    return Measurement(
        measured={"budget_violations": viol, "median_derr_guided": dg, "derr_ratio": dg / max(du, 1e-12)},
        n=len(g),
        details={"median_derr_unguided": du, "median_derr_copy_last": float(np.median([x["derr"] for x in
                                                                                      r.select("copy_last")])),
                 "shortfall_edges": [x["shortfall"] for x in g], **_common(r)},
    )


def _strict_table(r: StudyResult) -> dict:
    keys = ("node_f1_strict", "node_f1_old_strict", "edge_f1_strict", "node_f1_ref", "edge_f1_ref")
    return {m: {k: round(r.mean(m, k), 4) for k in keys} for m in ("topoged", *BASELINES)}


def measure_nodes(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T4a: strict node F1 (all nodes) and F1 of the old nodes, TopoGED vs GCNGRU, and GCNGRU's validation
    ROC-AUC per seed (sampled negatives: the precondition)."""
    del key
    r = _run(cfg)
    t, b = r.mean("topoged", "node_f1_strict"), r.mean("gcngru", "node_f1_strict")
    to, bo = r.mean("topoged", "node_f1_old_strict"), r.mean("gcngru", "node_f1_old_strict")
    return Measurement(
        measured={"gcngru_val_auc": list(map(float, r.info["gcngru_val_auc"])), "f1_diff": t - b,
                  "f1_old_diff": to - bo, "f1_topoged": t, "f1_gcngru": b},
        predicted={"f1_topoged": 0.49, "f1_gcngru": 0.05},  # paper, reference protocol, 14 real datasets
        n=r.info["n_test"],
        details={"by_model": _strict_table(r), "gcngru_tau": r.info["gcngru_tau"],
                 "edgebank_val_auc": r.info["edgebank_val_auc"], "memory_params": r.info["mem_params"],
                 "decoder_loss_first_last": r.info["decoder_loss_first_last"],
                 "decoder_kept_epoch": r.info.get("decoder_kept_epoch"),
                 "decoder_val_auc_per_epoch": r.info.get("decoder_val_auc_per_epoch"),
                 "gcngru_loss_first_last": r.info["gcngru_loss_first_last"], **_common(r)},
        figures={"f1": figures.f1_bars(_strict_table(r))},
        captions={"f1": figures.F1_CAPTION},
    )


def measure_reference_gap(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T4b: under the reference protocol new-node TP = min(n̂_new, n_new) on every test snapshot (failures
    counted), strict new-node matches (must be 0), and the gap F1_ref − F1_strict of TopoGED's node F1."""
    del key
    r = _run(cfg)
    rows = r.select("topoged")
    ident = sum(int(x["new_tp_ref"] != min(x["n_new_pred_ref"], x["n_new_true_ref"])) for x in rows)
    strict_new = sum(int(x["new_tp_strict"]) for x in rows)
    gap = r.mean("topoged", "node_f1_ref") - r.mean("topoged", "node_f1_strict")
    return Measurement(
        measured={"identity_failures": ident, "strict_new_matches": strict_new, "gap": gap},
        predicted={"gap": 0.49 - 0.20},  # paper's macro vs the ID-free estimate from its own tables
        n=len(rows),
        details={"f1_ref": r.mean("topoged", "node_f1_ref"), "f1_strict": r.mean("topoged", "node_f1_strict"),
                 "edge_f1_ref": r.mean("topoged", "edge_f1_ref"), "edge_f1_strict": r.mean("topoged",
                                                                                          "edge_f1_strict"),
                 **_common(r)},
    )


def measure_edges(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T5: strict edge F1, TopoGED − GCNGRU (copy-last and EdgeBank in the details, and the downstream
    graph-property task: accuracy of 1[|Ê_t| > |E_{t−1}|] for the label 1[|E_t| > |E_{t−1}|], per model).
    Where the preset names ``sweep_ks`` (full), the history-window sweep :func:`window_sweep` is reported too."""
    del key
    r = _run(cfg)
    t, b = r.mean("topoged", "edge_f1_strict"), r.mean("gcngru", "edge_f1_strict")
    rows = r.select("topoged")
    return Measurement(
        measured={"edge_f1_diff": t - b, "edge_f1_topoged": t, "edge_f1_gcngru": b},
        predicted={"edge_f1_topoged": 0.12, "edge_f1_gcngru": 0.0},  # paper, reference protocol
        n=r.info["n_test"],
        details={"by_model": _strict_table(r),
                 "downstream_accuracy": {m: r.downstream_accuracy(m) for m in ("topoged", "oracle", *BASELINES)},
                 "downstream_share_growing": float(np.mean([x["E_true"] > x["E_prev"] for x in rows])),
                 **({"window_sweep": window_sweep(study_config(cfg), tuple(cfg.sweep_ks))}
                    if cfg.get("sweep_ks") else {}),
                 **_common(r)},
    )


def _errors(r: StudyResult, model: str) -> np.ndarray:
    return np.stack([x["structure"] for x in r.select(model)])


def measure_structure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T6: structure-metric wins (9 metrics, pooled mean |error|, ties split) among TopoGED and GCNGRU (and
    EvolveGCN-O where the study trained it: the full preset); the count with copy-last and EdgeBank added is
    reported."""
    del key
    r = _run(cfg)
    gnns = ("gcngru", "evolvegcn") if r.select("evolvegcn") else ("gcngru",)
    w, skipped = wins({m: _errors(r, m) for m in ("topoged", *gnns)})
    w_all, skipped_all = wins({m: _errors(r, m) for m in ("topoged", *BASELINES)})
    mean_abs = {m: dict(zip(STRUCTURE, np.nanmean(np.abs(_errors(r, m)), 0).round(4).tolist(), strict=True))
                for m in ("topoged", *BASELINES)}
    return Measurement(
        measured={"topoged_wins": w["topoged"], "gcngru_wins": w["gcngru"]},
        predicted={"topoged_wins": 6.78, "gcngru_wins": 3.35},  # paper (its baselines, real data)
        n=r.info["n_test"],
        details={"wins_among_gnns": w, "wins_with_copy_last_edgebank": w_all, "nan_skipped": skipped,
                 "nan_skipped_all": skipped_all,
                 "mean_abs_error": mean_abs, **_common(r)},
    )


def measure_ablations(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """T7: derr(Oracle) / derr(TopoGED) (pooled means), budget mismatches of ``random_probs`` against TopoGED
    (|V̂|, |Ê|), and its strict edge F1 relative to TopoGED's; ``random_phi_ref`` / ``random_phi_same``
    reported."""
    del key
    r = _run(cfg)
    topo, rp = r.select("topoged"), r.select("random_probs")
    mism = sum(int(a["V_budget"] != b["V_budget"] or a["E_budget"] != b["E_budget"])
               for a, b in zip(topo, rp, strict=True))
    report = {}
    for m in ("oracle", "topoged", "random_probs", "random_phi_ref", "random_phi_same"):
        rows = r.select(m)
        err = _errors(r, m)
        report[m] = {
            "derr": r.mean(m, "derr"), "edge_f1_strict": r.mean(m, "edge_f1_strict"),
            "clustering_err": float(np.nanmean(err[:, 1])),
            "assortativity_abs_err": float(np.nanmean(np.abs(err[:, 0]))),
            "median_extra_nodes": float(np.median([max(x["V_pred"] - x["V_true"], 0) for x in rows])),
            "median_extra_edges": float(np.median([max(x["E_pred"] - x["E_true"], 0) for x in rows])),
            "median_shortfall": float(np.median([x["shortfall"] for x in rows])),
        }
    return Measurement(
        measured={"derr_ratio_oracle": report["oracle"]["derr"] / max(report["topoged"]["derr"], 1e-12),
                  "random_probs_budget_mismatches": mism,
                  "random_probs_edge_ratio": report["random_probs"]["edge_f1_strict"]
                  / max(report["topoged"]["edge_f1_strict"], 1e-12)},
        n=len(topo),
        details={"by_mode": report, **_common(r)},
    )
