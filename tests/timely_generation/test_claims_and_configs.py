"""Claims registry, configs, config errors, tiny measurements, and every claim at tiny with its expected verdict."""

import jax
import numpy as np
import pytest

from jaxpapers.core import config, registry
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.verify import run_claim
from jaxpapers.timely_generation import config as tc
from jaxpapers.timely_generation.experiments import hedging, impossibility, sanity

SPEC_IDS = [
    "T0-oracle-sanity",
    "T1-consistent-not-timely",
    "T2-superlinear-optimal",
    "T3-linear-defeats-hedging",
    "T4-untimed-control",
    "T5-deadline-monotone",
]
CONFIGS = {"sanity": ("sanity", tc.SanityConfig), "phase": ("phase", tc.PhaseConfig)}
# Tiny (P = 3, V_P = 128, T ≤ 1561) is a smoke run with the quick thresholds, so three claims fail there for
# size reasons: G1's last phase is 0.133 (the spec's p = 3 value) > 0.06; h(T/64) = 0 on horizons this short, so
# T2's ratio and T3's slope are not finite (and h(T) is still 0.16 / 0.22); T3(b)'s 2x ratio is 0.98.
EXPECTED_TINY = {name: "pass" for name in SPEC_IDS}
EXPECTED_TINY.update(
    {"T1-consistent-not-timely": "fail", "T2-superlinear-optimal": "fail", "T3-linear-defeats-hedging": "fail"}
)


def test_claim_ids_follow_the_spec():
    claims = registry.claims_of("timely_generation")
    assert [c.name for c in claims] == SPEC_IDS
    assert all("quick" in c.presets and not c.requires and c.x64 for c in claims)
    assert all(c.budget_s["quick"] <= 60 for c in claims)
    (t4,) = [c for c in claims if c.name.startswith("T4")]
    assert t4.control_of == "timely_generation/T1-consistent-not-timely"


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load(name, preset):
    cfg = config.load(f"timely_generation/{name}", f"preset={preset}")
    group, cls = CONFIGS[name]
    config.to_dataclass(cls, cfg[group])


def test_config_errors():
    with pytest.raises(ConfigError, match="preset='huge'"):
        config.load("timely_generation/phase", "preset=huge")
    with pytest.raises(ConfigError, match="phase.P"):
        tc.PhaseConfig(P=1)
    with pytest.raises(ConfigError, match="phase.deadlines"):
        tc.PhaseConfig(deadlines=("cubic",))
    with pytest.raises(ConfigError, match="phase.superlinear"):
        tc.PhaseConfig(superlinear=("lin2",))
    with pytest.raises(ConfigError, match="phase.eps_grid\\[0\\]"):
        tc.PhaseConfig(eps_grid=(1.5,))
    with pytest.raises(ConfigError, match="sparse_m"):
        tc.PhaseConfig(sparse_m=12)
    with pytest.raises(ConfigError, match="sanity.k_b"):
        tc.SanityConfig(k_b=40)
    with pytest.raises(ConfigError, match="has no field"):
        config.to_dataclass(tc.PhaseConfig, {"P": 3, "bogus": 1})


@pytest.mark.slow
def test_tiny_measurements():
    """Each claim experiment's measured value at tiny size, against the spec's per-phase values."""
    key = jax.random.key(0)
    cfg = config.load("timely_generation/phase", "preset=tiny")
    m1 = impossibility.measure_not_timely(cfg, key)
    np.testing.assert_allclose(m1.details["phase_ends"]["critical/lin2"], [0.75, 0.375, 0.1328125])
    np.testing.assert_allclose(m1.details["phase_ends"]["echo/n1.5"], [0.25, 0.125, 0.03125])
    assert m1.measured["final_critical_is_K"] and m1.measured["halluc_after_settle"] == 0
    for name, novel in m1.details["phase_ends_novel_only"].items():  # novel_only credits a subset of the default
        assert np.all(np.array(novel) <= np.array(m1.details["phase_ends"][name]) + 1e-12), name
    m4 = impossibility.measure_untimed_control(cfg, key)
    assert np.all(m4.measured["untimed_ends_but_last"] == 1.0)
    m2 = hedging.measure_superlinear(cfg, key)
    assert np.all(m2.measured["phase_end_density"] == 1.0)
    m3 = hedging.measure_linear(cfg, key)
    assert m3.measured["schedule_h_T_linear"] == pytest.approx(0.5, abs=0.01)
    m5 = hedging.measure_monotone(cfg, key)
    assert m5.measured["last_phase_density"][-1] == 1.0
    m0 = sanity.measure_oracle(config.load("timely_generation/sanity", "preset=tiny"), key)
    assert m0.measured["min_density_rand"] == 1.0 and m0.measured["max_halluc"] == 0.0


@pytest.mark.claims
@pytest.mark.slow
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_runs_at_tiny(name, tmp_path):
    (claim,) = [c for c in registry.claims_of("timely_generation") if c.name == name]
    res = run_claim(claim, "tiny", out_dir=tmp_path)
    assert res.verdict == EXPECTED_TINY[name], res.reason + (res.error or "")
