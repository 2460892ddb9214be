"""Claims, configs and the cheap experiments at tiny size; bad config values raise one clear error."""

import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.claims import CLAIMS
from jaxpapers.topoged.config import BaselineConfig, ModelConfig, StabilityConfig
from jaxpapers.topoged.experiments import descriptor, forecasting


def test_claim_ids_follow_the_spec_table():
    ids = [c.id.split("/")[1].split("-")[0] for c in CLAIMS]
    assert sorted(ids) == sorted(["T1", "T2", "T3", "T4a", "T4b", "T5", "T6", "T7", "T8"])


@pytest.mark.parametrize("name", ["descriptor", "forecast", "study"])
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load(name, preset):
    cfg = config_lib.load_preset(f"topoged/{name}", preset)
    assert cfg.preset == preset


def test_tiny_descriptor_and_forecast_experiments():
    cfg = config_lib.load_preset("topoged/descriptor", "tiny")
    m = descriptor.measure_wellformed(cfg, None)
    assert all(v == 0 for v in m.measured.values())
    m = descriptor.measure_stability(cfg, None)
    assert m.measured["x_violations"] == m.measured["y_level_violations"] == 0
    assert m.measured["witness_ratio"] == pytest.approx(10 / 11)
    m = forecasting.measure(config_lib.load_preset("topoged/forecast", "tiny"), None)
    assert m.measured["ratio_nodes"] > 0 and set(m.details["pooled_nodes_pct"]) == {"V-EWMA", "SMA", "VAR", "SSM",
                                                                                     "VECM"}


def test_bad_values_name_the_argument():
    with pytest.raises(ConfigError, match="model.history"):
        ModelConfig(history="recent")
    with pytest.raises(ConfigError, match="baseline.tau_objective"):
        BaselineConfig(tau_objective="auc")
    with pytest.raises(ConfigError, match="stability.trials"):
        StabilityConfig(trials=0)
