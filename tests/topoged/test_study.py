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
