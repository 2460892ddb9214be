"""Registry, configs, config errors, the experiments at tiny size and the notebook's public imports."""

import ast
from pathlib import Path

import jax
import numpy as np
import pytest

from jaxpapers.adversary_directed import closed_forms
from jaxpapers.adversary_directed.config import AgnosticConfig, DimsConfig, ExactConfig, RegimeConfig
from jaxpapers.adversary_directed.experiments import agnostic, dimensions, exact, regimes
from jaxpapers.core import config, registry
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.verify import run_claim

SPEC_IDS = [
    "D1-solver-exact",
    "D2-constant-regime",
    "D3-log-regime",
    "D4-linear-regime",
    "D5-pldim-predicts-regime",
    "D6-vs-standard-online",
    "D7-agnostic-dichotomy",
    "D8-harder-than-transductive",
]
GROUPS = {
    "exact": ("exact", ExactConfig),
    "regimes": ("regimes", RegimeConfig),
    "dimensions": ("dims", DimsConfig),
    "agnostic": ("agnostic", AgnosticConfig),
}
ROOT = Path(__file__).resolve().parents[2]


def test_claim_ids_follow_the_spec():
    claims = registry.claims_of("adversary_directed")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.budget_s["quick"] <= 60 for c in claims)
    by = {c.name.split("-")[0]: c for c in claims}
    assert "RECONSTRUCTED" in by["D5"].statement and "RECONSTRUCTED" in by["D8"].statement


@pytest.mark.parametrize("name", list(GROUPS))
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load(name, preset):
    cfg = config.load(f"adversary_directed/{name}", f"preset={preset}")
    group, cls = GROUPS[name]
    config.to_dataclass(cls, cfg[group])


def test_config_errors():
    with pytest.raises(ConfigError, match="preset='huge'"):
        config.load("adversary_directed/exact", "preset=huge")
    cfg = config.load("adversary_directed/regimes", overrides=["regimes.log_t_max=3"])
    with pytest.raises(ConfigError, match="regimes.log_t_max=3"):
        config.to_dataclass(RegimeConfig, cfg.regimes)
    with pytest.raises(ConfigError, match="agnostic.prefix_ts"):
        AgnosticConfig(prefix_ts=(4,))
    with pytest.raises(ConfigError, match="dims.gap_ts"):
        DimsConfig(gap_ts=(5, 4))
    with pytest.raises(ConfigError, match="has no field"):
        config.to_dataclass(ExactConfig, {"bogus": 1})


def _tiny(name):
    return config.load(f"adversary_directed/{name}", "preset=tiny")


def test_tiny_measurements_have_their_values():
    key = jax.random.key(0)
    m = regimes.measure_log(_tiny("regimes"), key)
    assert m.measured["thresholds"] == closed_forms.thresholds_value(np.arange(1, 8)).tolist()
    assert m.measured["octave_slopes"][0] == pytest.approx(1.0)
    m = regimes.measure_online(_tiny("regimes"), key)
    assert m.measured["standard"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    m = dimensions.measure_transductive_gap(_tiny("dimensions"), key)
    assert m.measured["td"] == [2.0, 3.0, 3.0] and m.measured["ad"] == [3.0, 4.0, 5.0]


@pytest.mark.slow
def test_tiny_exact_and_agnostic_measurements():
    key = jax.random.key(0)
    m = exact.measure(_tiny("exact"), key)
    assert m.measured["det_mismatches"] == 0 and m.measured["rand_max_abs_err"] < 1e-5
    m = agnostic.measure(_tiny("agnostic"), key)
    assert m.measured["bound_violations"] == 0 and m.measured["infinite_min_regret_over_T"] >= 0.45
    assert min(m.measured["anti_minus_random_regret"]) >= 0 and m.measured["anti_learner_loss_over_T"] >= 0.5


@pytest.mark.claims
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_passes_at_tiny(name, tmp_path):
    (claim,) = [c for c in registry.claims_of("adversary_directed") if c.name == name]
    res = run_claim(claim, "tiny", out_dir=tmp_path)
    assert res.verdict == "pass", res.reason + (res.error or "")


def test_notebook_imports_are_public():
    src = (ROOT / "notebooks" / "adversary_directed.py").read_text()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jaxpapers.adversary_directed"):
            import importlib

            mod = importlib.import_module(node.module)
            for alias in node.names:
                assert not alias.name.startswith("_") and hasattr(mod, alias.name)
