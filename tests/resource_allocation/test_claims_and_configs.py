"""Claims registry, configs and (marked ``claims``) the experiments at the tiny preset."""

import jax
import pytest

from jaxpapers.core import config, registry
from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.verify import run_claim
from jaxpapers.resource_allocation.equilibrium import SolverConfig
from jaxpapers.resource_allocation.experiments import FeasibleConfig, FirstPriceConfig, LiquidConfig
from jaxpapers.resource_allocation.valuations import InstanceConfig

SPEC_IDS = [
    "RA1-kelly-tight-family",
    "RA2-kelly-bound",
    "RA3-alpha-bound",
    "RA4-alpha-tight",
    "RA5-alpha-monotone",
    "RA6-equilibrium-audit",
    "RA7-revenue-vcg",
    "RA8-liquid-welfare",
    "RA9-budget-feasible",
    "RA10-first-price-limit",
]
CONFIGS = ["poa", "audit", "revenue", "budgets", "first_price"]


def test_claim_ids_follow_the_spec():
    claims = registry.claims_of("resource_allocation")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.x64 for c in claims)
    assert all("quick" in c.presets and not c.requires for c in claims)  # every claim runs quick on a CPU
    assert all(c.budget_s["quick"] <= 40 for c in claims) and sum(c.budget_s["quick"] for c in claims) <= 240


def test_our_constructions_are_labelled():
    """Spec pitfall: RA7-RA9's constants/constructions are ours, and verify output must say so."""
    by_name = {c.name.split("-")[0]: c for c in registry.claims_of("resource_allocation")}
    for key in ("RA7", "RA8", "RA9"):
        assert "OUR" in by_name[key].statement


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load(name, preset):
    cfg = config.load(f"resource_allocation/{name}", f"preset={preset}")
    assert cfg.preset == preset
    if "solver" in cfg:
        config.to_dataclass(SolverConfig, cfg.solver)
    if "instances" in cfg:
        config.to_dataclass(InstanceConfig, cfg.instances)
    if "liquid" in cfg:
        config.to_dataclass(LiquidConfig, cfg.liquid)
        config.to_dataclass(FeasibleConfig, cfg.feasible)
    if "bids" in cfg:
        config.to_dataclass(FirstPriceConfig, cfg.bids)


def test_config_errors():
    with pytest.raises(ConfigError, match="preset='huge'"):
        config.load("resource_allocation/poa", "preset=huge")
    with pytest.raises(ConfigError, match="instances.nope"):
        config.load("resource_allocation/poa", overrides=["instances.nope=3"])
    cfg = config.load("resource_allocation/poa", overrides=["solver.outer_iters=0"])
    with pytest.raises(ConfigError, match="solver.outer_iters"):
        config.to_dataclass(SolverConfig, cfg.solver)
    with pytest.raises(ConfigError, match="has no field"):
        config.to_dataclass(LiquidConfig, {"alphas": (1.0,), "bogus": 1})
    with pytest.raises(ConfigError, match="liquid.alphas"):
        LiquidConfig(alphas=(0.0,))


@pytest.mark.claims
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_runs_at_tiny(name, tmp_path):
    (claim,) = [c for c in registry.claims_of("resource_allocation") if c.name == name]
    res = run_claim(claim, "tiny", out_dir=tmp_path)
    assert res.verdict in ("pass", "fail"), res.reason + (res.error or "")


def test_experiment_returns_a_measurement(x64):
    from jaxpapers.resource_allocation import experiments

    cfg = config.load("resource_allocation/first_price", "preset=tiny")
    m = experiments.first_price_limit(cfg, jax.random.key(0))
    assert isinstance(m, Measurement) and m.measured["min_top_share"] > 0.999
