"""The registry: claim ids as the spec lists them; every experiment runs at its tiny preset."""

import jax
import numpy as np
import pytest

from jaxpapers.comonet import claims, experiments
from jaxpapers.core import config, memo, registry
from jaxpapers.core.claims import Measurement

SPEC_IDS = [
    "comonet/CO1-by-construction",
    "comonet/CO2-certifier-controls",
    "comonet/CO3-smnn-reduction",
    "comonet/CO4-accuracy",
    "comonet/CO5-noise-robustness",
    "comonet/CO6-extrapolation",
    "comonet/CO7-diabetes-parity",
    "comonet/CO8-benchmarks",
]


def test_claim_ids_follow_the_spec():
    assert [c.id for c in claims.CLAIMS] == SPEC_IDS
    assert [c.id for c in registry.claims_of("comonet")] == SPEC_IDS
    co8 = claims.CLAIMS[-1]
    assert co8.requires == ("gpu",) and tuple(co8.presets) == ("full",)
    assert all(c.budget_s.get("quick", 0) <= 60 for c in claims.CLAIMS)


def run_tiny(claim_id, check_predicate=True, **overrides):
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    cfg = config.load(claim.config, "preset=tiny", overrides)
    if claim.x64:
        with jax.enable_x64(True):
            m = claim.experiment(cfg, jax.random.key(0))
    else:
        m = claim.experiment(cfg, jax.random.key(0))
    assert isinstance(m, Measurement)
    if check_predicate:
        assert claim.predicate(m).verdict in ("pass", "fail")
    return m


def test_co3_tiny_reduces_exactly():
    m = run_tiny("comonet/CO3-smnn-reduction")
    assert m.measured["max_abs_diff"] < 1e-12


@pytest.mark.slow
def test_co1_co2_tiny():
    m1 = run_tiny("comonet/CO1-by-construction")
    assert m1.measured["mono_violations"] == 0 and m1.measured["worst_relative"] < 1e-9
    m2 = run_tiny("comonet/CO2-certifier-controls")
    assert set(m2.measured) == {"mlp_worst", "mutant_worst"}


@pytest.mark.slow
def test_synthetic_claims_tiny_share_one_study():
    m4 = run_tiny("comonet/CO4-accuracy")
    m5 = run_tiny("comonet/CO5-noise-robustness")
    m6 = run_tiny("comonet/CO6-extrapolation")
    assert m4.measured["rmse_ratio"] > 0 and m5.measured["comonet_violating_points"] == 0
    assert m6.measured["tangent_violations"] == 0  # convexity along x5 holds out of range, even barely trained
    assert any("comonet/synthetic" in tag for tag in memo._STORE)


@pytest.mark.slow
def test_co7_tiny():
    pytest.importorskip("sklearn")
    m = run_tiny("comonet/CO7-diabetes-parity")
    assert np.isfinite(m.measured["mse_ratio"])


@pytest.mark.slow
def test_co8_on_tiny_files(tmp_path):
    """The full-preset benchmark path end to end on files written here (tiny preset, two datasets)."""
    (tmp_path / "auto-mpg.data").write_text(
        "".join(
            f'{20 + i % 7}.0 4 {100 + 3 * i}.0 {80 + i}.0 {2000 + 20 * i}. 15.0 7{i % 10} 1\t"car {i}"\n'
            for i in range(30)
        )
    )
    rows = [f"{40 + i},1,1,{120 + i},{200 + 2 * i},0,0,150,0,1.0,1,0,3,{i % 2}" for i in range(30)]
    (tmp_path / "processed.cleveland.data").write_text("\n".join(rows) + "\n")
    m = run_tiny("comonet/CO8-benchmarks", False, data_dir=str(tmp_path), datasets=("auto_mpg", "heart"))
    assert set(m.measured) == {"auto_mpg", "heart"}
    assert m.details["heart"]["metric"] == "accuracy"


def test_co8_skips_without_files(tmp_path):
    from jaxpapers.core.errors import ClaimSkipped

    cfg = config.load("comonet/benchmarks", "preset=tiny", {"data_dir": str(tmp_path)})
    with pytest.raises(ClaimSkipped, match="benchmark files not found"):
        experiments.benchmark_parity(cfg, jax.random.key(0))
