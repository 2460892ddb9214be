"""Registry, configs and predicates: ids as in the spec, presets load, and the predicates can fail."""

import numpy as np
import pytest

from jaxpapers.core import config, registry, verify
from jaxpapers.core.claims import Divergent, Measurement, Report
from jaxpapers.core.errors import ConfigError

SPEC_IDS = [
    "E1-chinchilla-frontier",
    "E2-compute-bound-exponents",
    "E3-calibration-point",
    "E4-inference-cost",
    "E5-data-efficiency",
    "E6a-param-efficiency-size",
    "E6b-param-efficiency-data-spend",
    "E7-data-bound-hard-cap",
    "E8-data-bound-soft-cap",
    "E9-trend-comparison",
]
CONFIGS = ["frontier", "compute_bound", "inference", "statics", "data_bound", "trends"]


def _claim(name):
    return next(c for c in registry.claims_of("llm_economics") if c.name == name)


def test_claim_ids_and_kinds_follow_the_spec():
    claims = registry.claims_of("llm_economics")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.x64 for c in claims)
    assert sum(c.budget_s["quick"] for c in claims) <= 120
    for name in ("E6b-param-efficiency-data-spend", "E8-data-bound-soft-cap"):
        assert isinstance(_claim(name).predicate, Divergent)
    assert isinstance(_claim("E9-trend-comparison").predicate, Report)


@pytest.mark.parametrize("name", CONFIGS)
def test_configs_load_every_preset(name):
    for preset in ("tiny", "quick", "full"):
        cfg = config.load(f"llm_economics/{name}:preset={preset}")
        assert cfg.preset == preset
    with pytest.raises(ConfigError, match="preset='huge' is not allowed"):
        config.load(f"llm_economics/{name}:preset=huge")


def test_unknown_config_field_is_rejected():
    with pytest.raises(ConfigError, match="'gama' not in firm"):
        config.load("llm_economics/compute_bound", overrides=["firm.gama=3"])


def test_e6b_predicate_is_divergent_on_our_numbers_and_fails_otherwise():
    pred = _claim("E6b-param-efficiency-data-spend").predicate
    ours = {"D_ratio": np.array([5.769, 5.712]), "spend_ratio": np.array([4.966, 5.198])}
    predicted = {"D_ratio": np.array([5.77, 5.71]), "spend_ratio": np.array([4.97, 5.20])}
    m = Measurement(dict(ours, D_ratio_all=ours["D_ratio"], spend_ratio_all=ours["spend_ratio"]), predicted)
    out = pred(m)
    assert out.verdict == "divergent" and "paper: D* and spend fall" in out.reason
    paper_like = {"D_ratio": np.array([0.8, 0.8]), "spend_ratio": np.array([0.7, 0.7])}
    m = Measurement(
        dict(paper_like, D_ratio_all=paper_like["D_ratio"], spend_ratio_all=paper_like["spend_ratio"]), predicted
    )
    assert pred(m).verdict == "fail"


def test_e8_predicate_fails_on_wrong_sign_or_a_miss():
    pred = _claim("E8-data-bound-soft-cap").predicate
    predicted = {"slope_D": 1.309, "slope_E": -0.331}
    assert pred(Measurement({"slope_D": 1.3094, "slope_E": -0.3328}, predicted)).verdict == "divergent"
    assert pred(Measurement({"slope_D": 2.0, "slope_E": -1.0}, predicted)).verdict == "fail"  # the paper's, not ours
    assert pred(Measurement({"slope_D": 1.31, "slope_E": 0.33}, predicted)).verdict == "fail"


def test_e7_predicate_fails_when_the_cap_does_not_bind():
    """Spec Pitfall: the slope is only meaningful while the cap binds; the claim asserts it."""
    pred = _claim("E7-data-bound-hard-cap").predicate
    good = {"slope_D": 2.05175, "slope_E": -1.0, "tpp_slope_D": 2.0, "tpp_slope_E": -1.0}
    predicted = dict(good, cap_ratio_min=1.0, cap_ratio_max=1.0)
    assert pred(Measurement(dict(good, cap_ratio_min=1.0, cap_ratio_max=1.0), predicted)).verdict == "pass"
    assert pred(Measurement(dict(good, cap_ratio_min=0.36, cap_ratio_max=1.0), predicted)).verdict == "fail"


@pytest.mark.claims
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_tiny_preset_gets_its_expected_verdict(name):
    res = verify.run_claim(_claim(name), "tiny")
    expected = {"E6b": "divergent", "E8": "divergent", "E9": "report"}.get(name.split("-")[0], "pass")
    assert res.verdict == expected, res.reason
