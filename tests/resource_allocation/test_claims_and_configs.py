"""Claims registry, configs and (marked ``claims``) the experiments at the tiny preset."""

import ast
import pathlib

import pytest

from jaxpapers.core import config, registry
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.verify import run_claim
from jaxpapers.resource_allocation.config import (
    FeasibleConfig,
    InstanceConfig,
    LiquidConfig,
    SearchConfig,
    SolverConfig,
    agent_counts,
    alpha_grid,
)

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
    assert all(c.id == f"resource_allocation/{name}" for c, name in zip(claims, SPEC_IDS, strict=True))
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
    if "search" in cfg:
        config.to_dataclass(SearchConfig, cfg.search)
    if "liquid" in cfg:
        config.to_dataclass(LiquidConfig, cfg.liquid)
        config.to_dataclass(FeasibleConfig, cfg.feasible)
    if "alphas" in cfg:
        alpha_grid("alphas", cfg.alphas)
    for field in ("kelly_ns", "tight_ns"):
        if field in cfg:
            agent_counts(field, cfg[field])


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
    with pytest.raises(ConfigError, match="increasing integers"):
        agent_counts("tight_ns", (10, 1))
    with pytest.raises(ConfigError, match="alphas is empty"):
        alpha_grid("alphas", ())


def test_config_module_and_config_files_import_no_jax():
    """``config.py`` holds plain settings (stdlib + core checks); config files import only it and core.config."""
    root = pathlib.Path(__file__).resolve().parents[2]

    def imported(path):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                yield node.module
            elif isinstance(node, ast.Import):
                yield from (a.name for a in node.names)

    allowed = {"__future__", "dataclasses", "collections.abc", "jaxpapers.core.checks", "jaxpapers.core.errors"}
    assert set(imported(root / "jaxpapers/resource_allocation/config.py")) <= allowed
    for name in CONFIGS:
        mods = set(imported(root / f"configs/resource_allocation/{name}.py"))
        assert mods <= {"ml_collections", "numpy", "jaxpapers.core.config", "jaxpapers.resource_allocation.config"}


@pytest.mark.claims
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_passes_at_tiny(name, tmp_path):
    """Every claim passes at the tiny preset (RA10 included: its rates hold on 16 instances)."""
    (claim,) = [c for c in registry.claims_of("resource_allocation") if c.name == name]
    res = run_claim(claim, "tiny", out_dir=tmp_path)
    assert res.verdict == "pass", res.reason + (res.error or "")
