"""The shared study at tiny size: its measured values against recomputation from the rows.

Marked slow: the tiny study still compiles three XLA programs (decoder trainer, GCNGRU trainer, GCNGRU
forward), ~20 s on quiet cores.
"""

import numpy as np
import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.core import memo
from jaxpapers.topoged.experiments import study as ex
from jaxpapers.topoged.studies import BASELINES

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny():
    cfg = config_lib.load_preset("topoged/study", "tiny")
    memo.clear()
    return cfg, ex._run(cfg)


def test_every_model_scored_on_every_test_snapshot(tiny):
    cfg, r = tiny
    n = r.info["n_test"]
    for m in ("topoged", "oracle", "unguided", "random_probs", "random_phi_ref", "random_phi_same", *BASELINES):
        assert len(r.select(m)) == n


def test_oracle_budgets_realised_and_reference_identity(tiny):
    cfg, r = tiny
    for x in r.select("oracle"):
        assert x["V_pred"] == x["V_budget"] == x["V_true"]
    for x in r.select("topoged"):
        assert x["new_tp_ref"] == min(x["n_new_pred_ref"], x["n_new_true_ref"])
        assert x["new_tp_strict"] == 0
    for a, b in zip(r.select("topoged"), r.select("random_probs"), strict=True):
        assert (a["V_budget"], a["E_budget"]) == (b["V_budget"], b["E_budget"])


def test_measurements_recompute_from_rows(tiny):
    cfg, r = tiny
    m = ex.measure_nodes(cfg, None)
    t = np.mean([x["node_f1_strict"] for x in r.select("topoged")])
    g = np.mean([x["node_f1_strict"] for x in r.select("gcngru")])
    assert np.isclose(m.measured["f1_diff"], t - g)
    m = ex.measure_budgets(cfg, None)
    assert np.isclose(m.measured["median_derr_guided"], np.median([x["derr"] for x in r.select("oracle")]))
    m = ex.measure_edges(cfg, None)
    assert np.isclose(m.measured["edge_f1_gcngru"], np.mean([x["edge_f1_strict"] for x in r.select("gcngru")]))
    assert ex.measure_reference_gap(cfg, None).measured["identity_failures"] == 0
    assert 0 <= ex.measure_structure(cfg, None).measured["topoged_wins"] <= 9
    assert ex.measure_ablations(cfg, None).measured["random_probs_budget_mismatches"] == 0


def test_downstream_accuracy_recomputed_from_the_rows(tiny):
    cfg, r = tiny
    for m in ("topoged", "copy_last"):
        rows = r.select(m)
        want = np.mean([int(x["E_pred"] > x["E_prev"]) == int(x["E_true"] > x["E_prev"]) for x in rows])
        assert r.downstream_accuracy(m) == pytest.approx(want)
    # copy-last forecasts |Ê_t| = |E_{t−1}|: it never predicts growth
    assert r.downstream_accuracy("copy_last") == pytest.approx(
        np.mean([x["E_true"] <= x["E_prev"] for x in r.select("copy_last")]))


def test_window_sweep_at_the_study_k_reproduces_the_study(tiny):
    cfg, r = tiny
    base = ex.study_config(cfg)
    sweep = ex.window_sweep(base, (base.model.k, 2))
    assert sweep["k"] == [base.model.k, 2]
    # same decoder training and decoding rng: restricting modes and dropping baselines changes nothing
    assert sweep["edge_f1_strict"][0] == round(r.mean("topoged", "edge_f1_strict"), 4)
    assert sweep["node_f1_strict"][0] == round(r.mean("topoged", "node_f1_strict"), 4)
    assert all(0.0 <= v <= 1.0 for v in sweep["edge_f1_strict"] + sweep["node_f1_strict"])


def test_evolvegcn_joins_the_study_and_the_structure_count(tiny):
    cfg, r = tiny
    cfg = cfg.copy_and_resolve_references()
    cfg.baseline.evolvegcn = True
    ev = ex._run(cfg)
    assert len(ev.select("evolvegcn")) == ev.info["n_test"] and len(ev.info["evolvegcn_val_auc"]) == len(cfg.seeds)
    # the other models are untouched by the extra baseline
    assert ev.mean("topoged", "edge_f1_strict") == r.mean("topoged", "edge_f1_strict")
    assert ev.mean("gcngru", "node_f1_strict") == r.mean("gcngru", "node_f1_strict")
    m = ex.measure_structure(cfg, None)
    assert set(m.details["wins_among_gnns"]) == {"topoged", "gcngru", "evolvegcn"}
    assert 0 < sum(m.details["wins_among_gnns"].values()) <= 9 + 1e-9
