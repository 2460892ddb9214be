"""The shared forecasting study (claims T3–T7), memoised with ``core.memo.shared``.

Per seed: a ``pa_churn`` series (pinned parameters) binned into daily snapshots, split 70/15/15; one TopoGED
decoder per seed, trained for every seed at once (one ``lax.scan`` vmapped over the seeds, the examples padded
to one shape so both seeds share the compile); one GCNGRU per seed, likewise. Every test target t is decoded
in every mode (``topoged``, ``oracle``, ``unguided``, ``random_probs``, ``random_phi_ref``,
``random_phi_same``) and every baseline (GCNGRU, copy-last, EdgeBank) builds its graph by the paper's
threshold-and-cap protocol; all of them are scored in one ID space under ``protocol="strict"`` and
``"reference"``. The result is a table of per-snapshot rows that the claims read. The decoder keeps its
early-stopping epoch (validation ROC-AUC, patience 10). ``StudyConfig.modes`` / ``baselines`` restrict the
study (the history-window sweep decodes ``topoged`` only, without baselines); ``baseline.evolvegcn`` adds
EvolveGCN-O (full preset).
"""

from __future__ import annotations

import dataclasses
import time

import jax
import numpy as np

from jaxpapers.core import memo
from jaxpapers.topoged import baselines as bl
from jaxpapers.topoged.config import MODES, BaselineConfig, DecoderTrainConfig, ModelConfig, PaChurnConfig
from jaxpapers.topoged.data.events import Snapshot, to_snapshots
from jaxpapers.topoged.data.synthetic import pa_churn
from jaxpapers.topoged.descriptor import descriptor_error, phi
from jaxpapers.topoged.metrics import forecast_scores, structure_errors
from jaxpapers.topoged.pipeline import TopoGED, split_sizes
from jaxpapers.topoged.training import pad_sizes, stack_examples, train_decoder

BASELINES = ("gcngru", "copy_last", "edgebank")


@dataclasses.dataclass(frozen=True)
class StudyConfig:
    """Seeds and the groups of the study (``configs/topoged/study.py``)."""

    seeds: tuple[int, ...] = (0, 1)
    data: PaChurnConfig = PaChurnConfig()
    model: ModelConfig = ModelConfig()
    train: DecoderTrainConfig = DecoderTrainConfig()
    baseline: BaselineConfig = BaselineConfig()
    modes: tuple[str, ...] = MODES  # decoding modes of TopoGED scored at every test target
    baselines: bool = True  # GCNGRU (+ EvolveGCN-O), copy-last, EdgeBank; off in the history-window sweep


@dataclasses.dataclass
class StudyResult:
    """``rows``: one dict per (seed, test target, model) with the strict and reference scores, the structure
    errors (float[9]), the descriptor error, the budgets and the realised sizes. ``info``: per-seed extras
    (validation AUC of GCNGRU, τ*, memory parameters, losses, seconds)."""

    rows: list[dict]
    info: dict

    def select(self, model: str) -> list[dict]:
        return [r for r in self.rows if r["model"] == model]

    def mean(self, model: str, key: str) -> float:
        return float(np.mean([r[key] for r in self.select(model)]))

    def downstream_accuracy(self, model: str) -> float:
        """The graph-property task (our choice, GraphPulse/MiNT-style): accuracy of predicting
        y_t = 1[|E_t| > |E_{t−1}|] by 1[|Ê_t| > |E_{t−1}|] from the forecast graph, over the test snapshots."""
        rows = self.select(model)
        return float(np.mean([(r["E_pred"] > r["E_prev"]) == (r["E_true"] > r["E_prev"]) for r in rows]))


def _row(model: str, seed: int, t: int, pred: Snapshot, truth: Snapshot, truth_new: np.ndarray,
         thr: np.ndarray, phi_true: np.ndarray, new_bins=None, budgets=None, shortfall: int = 0) -> dict:
    strict = forecast_scores(pred, truth, truth_new, thr, "strict")
    ref = forecast_scores(pred, truth, truth_new, thr, "reference", new_bins)
    row = dict(model=model, seed=seed, t=t, V_pred=pred.n_nodes, E_pred=pred.n_edges, V_true=truth.n_nodes,
               E_true=truth.n_edges, derr=descriptor_error(phi(pred, thr), phi_true),
               structure=structure_errors(pred, truth), shortfall=shortfall)
    row.update({f"{k}_strict": v for k, v in strict.items()})
    row.update({f"{k}_ref": v for k, v in ref.items()})
    if budgets is not None:
        row.update(V_budget=budgets.V, E_budget=budgets.E, n_old_budget=budgets.n_old, n_new_budget=budgets.n_new)
    return row


def series(data: PaChurnConfig, seed: int) -> list[Snapshot]:
    """The daily snapshots of one ``pa_churn`` series."""
    return to_snapshots(pa_churn(data, seed), "1D")


def run_study(cfg: StudyConfig) -> StudyResult:
    """Runs the whole study (uncached); see the module docstring."""
    t0 = time.perf_counter()
    info: dict = {"seconds": {}}
    snaps_all = [series(cfg.data, s) for s in cfg.seeds]
    n = len(snaps_all[0])
    n_train, n_val = split_sizes(n, cfg.model.train_frac, cfg.model.val_frac)
    models = [TopoGED(cfg.model, cfg.train).prepare(sn, n_train, n_val, seed)
              for sn, seed in zip(snaps_all, cfg.seeds, strict=True)]
    info["mem_params"] = [list(m.mem) for m in models]
    info["mem_val_f1"] = [float(getattr(m, "mem_val_f1", float("nan"))) for m in models]
    info["seconds"]["prepare"] = time.perf_counter() - t0

    # decoder: one padded shape for all seeds, one compiled vmapped scan
    t1 = time.perf_counter()
    exs = [m.training_examples() for m in models]
    sizes = np.max([pad_sizes(e) for e in exs], axis=0)
    n_ex = min(len(e) for e in exs)
    stacked = [stack_examples(e[:n_ex], *map(int, sizes)) for e in exs]
    data = jax.tree.map(lambda *a: np.stack(a), *stacked)
    vexs = [m.validation_examples() for m in models]
    vsizes = np.max([pad_sizes(e) for e in vexs], axis=0)
    n_vex = min(len(e) for e in vexs)
    val = jax.tree.map(lambda *a: np.stack(a), *[stack_examples(e[:n_vex], *map(int, vsizes)) for e in vexs])
    keys = jax.vmap(jax.random.key)(np.asarray(cfg.seeds))
    stop_info: dict = {}
    params, losses = train_decoder(data, cfg.model, cfg.train, keys, val, stop_info)
    info["decoder_val_auc_per_epoch"] = stop_info.get("val_auc_per_epoch")
    info["decoder_kept_epoch"] = stop_info.get("kept_epoch")
    for i, m in enumerate(models):
        m.params = jax.tree.map(lambda a, i=i: a[i], params)
    info["decoder_loss_first_last"] = [[float(losses[i, :n_ex].mean()), float(losses[i, -n_ex:].mean())]
                                       for i in range(len(models))]
    info["seconds"]["decoder_train"] = time.perf_counter() - t1

    # GCNGRU: identity features, padded universe
    t2 = time.perf_counter()
    bc = cfg.baseline
    if cfg.baselines:
        gdata = [bl.gcngru_data(sn, n_train, bc.node_bucket) for sn in snaps_all]
        e_pad = max(d["senders"].shape[1] for d in gdata)
        p_pad = max(d["pos"].shape[1] for d in gdata)
        gdata = [_pad_gcngru(d, e_pad, p_pad) for d in gdata]
        gstack = jax.tree.map(lambda *a: np.stack(a), *gdata)
        h_all, g_losses = bl.train_gcngru(gstack, bc.node_bucket, bc, keys)
        info["gcngru_loss_first_last"] = [[float(g_losses[i, 0]), float(g_losses[i, -1])]
                                          for i in range(len(models))]
        gnns = {"gcngru": h_all}
        if bc.evolvegcn:
            gnns["evolvegcn"], ev_losses = bl.train_gcngru(gstack, bc.node_bucket, bc, keys, kind="evolvegcn")
            info["evolvegcn_loss_first_last"] = [[float(ev_losses[i, 0]), float(ev_losses[i, -1])]
                                                 for i in range(len(models))]
    info["seconds"]["gcngru_train"] = time.perf_counter() - t2

    t3 = time.perf_counter()
    rows: list[dict] = []
    if not cfg.baselines:
        gnns = {}
    val_targets = list(range(n_train, n_train + n_val))
    test_targets = list(range(n_train + n_val, n))
    for i, (m, sn, seed) in enumerate(zip(models, snaps_all, cfg.seeds, strict=True)):
        scorers = _tuned_scorers(cfg, info, gnns, i, sn, val_targets, seed) if cfg.baselines else []
        for t in test_targets:
            truth, truth_new, phi_true = sn[t], m.is_new[t], m.phis[t]
            for mode in cfg.modes:
                pred, det = m.forecast(t, mode)
                rows.append(_row(mode, seed, t, pred, truth, truth_new, m.thresholds, phi_true, det["new_bins"],
                                 det["budgets"], det["shortfall"]))
            ids = bl.universe_before(sn, t, bc.universe)
            cap = max(int(bc.cap_factor * sn[t - 1].n_edges), 1)
            for name, score, tau in scorers:
                pred = bl.threshold_and_cap(score(t, ids), ids, tau, cap)
                rows.append(_row(name, seed, t, pred, truth, truth_new, m.thresholds, phi_true))
            if cfg.baselines:
                rows.append(_row("copy_last", seed, t, bl.copy_last(sn, t), truth, truth_new, m.thresholds,
                                 phi_true))
    for r in rows:  # the downstream label y_t = 1[|E_t| > |E_{t−1}|] needs the last observed size
        r["E_prev"] = snaps_all[cfg.seeds.index(r["seed"])][r["t"] - 1].n_edges
    info["seconds"]["evaluate"] = time.perf_counter() - t3
    info["seconds"]["total"] = time.perf_counter() - t0
    info["n_test"] = len(test_targets) * len(cfg.seeds)
    return StudyResult(rows, info)


def _tuned_scorers(cfg: StudyConfig, info: dict, gnns: dict, i: int, sn: list[Snapshot], val_targets: list[int],
                   seed: int) -> list[tuple]:
    """(name, score_fn, τ*) of the threshold-and-cap baselines of seed index i, τ* tuned on validation; the
    validation AUCs and τ* go to ``info``."""
    bc = cfg.baseline
    rng = np.random.default_rng([seed, 7])
    g_score = lambda t, ids, i=i: bl.gcngru_scores(gnns["gcngru"][i], t, ids)  # noqa: E731
    e_score = lambda t, ids, sn=sn: bl.edgebank_scores(sn, t, ids, cfg.model.k)  # noqa: E731
    g_tau, g_auc = bl.tune_tau(g_score, sn, val_targets, bc, rng)
    e_tau, e_auc = bl.tune_tau(e_score, sn, val_targets, bc, rng)
    scorers = [("gcngru", g_score, g_tau), ("edgebank", e_score, e_tau)]
    if bc.evolvegcn:
        v_score = lambda t, ids, i=i: bl.gcngru_scores(gnns["evolvegcn"][i], t, ids)  # noqa: E731
        v_tau, v_auc = bl.tune_tau(v_score, sn, val_targets, bc, rng)
        info.setdefault("evolvegcn_val_auc", []).append(v_auc)
        info.setdefault("evolvegcn_tau", []).append(v_tau)
        scorers.append(("evolvegcn", v_score, v_tau))
    for name, value in (("gcngru_val_auc", g_auc), ("gcngru_tau", g_tau), ("edgebank_val_auc", e_auc),
                        ("edgebank_tau", e_tau)):
        info.setdefault(name, []).append(value)
    return scorers


def _pad_gcngru(d: dict, e_pad: int, p_pad: int) -> dict:
    out = dict(d)
    for k in ("senders", "receivers", "edge_mask"):
        a = d[k]
        out[k] = np.pad(a, ((0, 0), (0, e_pad - a.shape[1])))
    out["pos"] = np.pad(d["pos"], ((0, 0), (0, p_pad - d["pos"].shape[1]), (0, 0)))
    out["pos_mask"] = np.pad(d["pos_mask"], ((0, 0), (0, p_pad - d["pos_mask"].shape[1])))
    return out


def study(cfg: StudyConfig) -> StudyResult:
    """:func:`run_study`, computed once per configuration in this process (T3–T7 share it)."""
    return memo.shared("topoged/study", cfg, fn=lambda: run_study(cfg))
