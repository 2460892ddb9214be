"""Registry, configs and their errors, and every claim experiment at tiny size against independent references."""

import jax
import numpy as np
import pytest

from jaxpapers.core import config, memo, registry
from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving import contrastive, diffusion, graphs, metrics
from jaxpapers.selfplay_proving.config import (
    DecoratedConfig,
    EmbedConfig,
    ExpanderConfig,
    GridConfig,
    PlayConfig,
    SBMConfig,
    ShapeConfig,
    SmallWorldConfig,
)
from jaxpapers.selfplay_proving.experiments import diversity, embeddings, growth

SPEC_IDS = [
    "S1-expander-exponential",
    "S2-grid-polynomial",
    "S3-rate-vs-gap",
    "S4-decorated-variants",
    "S5-sbm-clusters",
    "S6-contrastive-recovers",
    "S7-embedding-conjecturer",
]
GROUPS = {
    "growth": {"play": PlayConfig, "expander": ExpanderConfig, "grid": GridConfig, "small_world": SmallWorldConfig},
    "diversity": {"play": PlayConfig, "decorated": DecoratedConfig, "sbm": SBMConfig, "embed": EmbedConfig,
                  "shape": ShapeConfig},
}


def test_claim_ids_follow_the_spec():
    claims = registry.claims_of("selfplay_proving")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.budget_s["quick"] <= 60 for c in claims)


@pytest.mark.parametrize("name", list(GROUPS))
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load(name, preset):
    cfg = config.load(f"selfplay_proving/{name}", f"preset={preset}")
    for group, cls in GROUPS[name].items():
        config.to_dataclass(cls, cfg[group])


def test_config_errors():
    with pytest.raises(ConfigError, match="preset='huge'"):
        config.load("selfplay_proving/growth", "preset=huge")
    with pytest.raises(ConfigError, match="expander.degrees"):
        ExpanderConfig(n=9, degrees=(3,))
    with pytest.raises(ConfigError, match="small_world.k=3"):
        SmallWorldConfig(k=3)
    with pytest.raises(ConfigError, match="decorated.seed_node"):
        DecoratedConfig(seed_node="middle")
    with pytest.raises(ConfigError, match="play.start"):
        PlayConfig(start="everywhere")


def test_growth_fits_recover_known_curves():
    k = np.arange(40)
    exp = 5 * np.exp(0.3 * k)
    fit = metrics.loglinear_fit(exp, 3, 20)
    assert fit.slope == pytest.approx(0.3) and fit.r2 == pytest.approx(1.0)
    poly = 3.0 * np.maximum(k, 1) ** 2
    assert metrics.loglog_fit(poly, 2, 30).slope == pytest.approx(2.0)
    assert metrics.size_window(exp, 32, 1000) == (7, 17)
    with pytest.raises(ConfigError, match="fewer than 3 rounds"):
        metrics.size_window(exp, 1e9, 1e10)


def test_cluster_backbone_variant_metrics():
    pr = np.array([[0, 1, -1, 3, 2, -1]])
    assert metrics.clusters_touched(pr, np.array([0, 0, 1, 1, 2, 2]), upto=2).tolist() == [2]
    assert metrics.backbone_proved(pr, backbone=3, upto=5).tolist() == [2]
    conj = np.array([[[0, 4, -1], [5, 5, 1]]])
    assert metrics.variant_fraction(conj, backbone=3).tolist() == [0.6]
    assert growth.spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)
    assert growth.cheeger_rate_bound(0.34, 0.5, 1.0) == pytest.approx(np.log1p(0.0425))


@pytest.fixture(scope="module")
def tiny_growth():
    return config.load("selfplay_proving/growth", "preset=tiny")


@pytest.fixture(scope="module")
def tiny_diversity():
    return config.load("selfplay_proving/diversity", "preset=tiny")


@pytest.mark.slow
def test_s1_tiny(tiny_growth):
    m = growth.measure_expanders(tiny_growth, jax.random.key(0))
    d8 = m.details["d8"]
    g = graphs.random_regular(256, 8, 8000)  # the first d = 8 graph of the tiny preset
    assert graphs.spectral_gap(g, "dense") == pytest.approx(graphs.spectral_gap(g, "lanczos"), abs=1e-8)
    assert m.measured["d8_slope_minus_bound"] == pytest.approx(d8["slope"] - d8["bound"])
    assert 0 < d8["bound"] < d8["slope"] < np.log(2) and m.measured["d8_r2"] > 0.9


@pytest.mark.slow
def test_s2_s3_tiny(tiny_growth):
    m = growth.measure_grids(tiny_growth, jax.random.key(0))
    assert 0.3 < m.measured["cycle_loglog_slope"] < 1.5 and m.details["cycle_final"] <= 128
    m3 = growth.measure_small_world(tiny_growth, jax.random.key(0))
    assert -1 <= m3.measured["spearman"] <= 1 and np.all(np.diff(m3.details["gamma"]) > 0)


@pytest.mark.slow
def test_s4_s5_s6_s7_tiny(tiny_diversity):
    memo.clear()
    m4 = diversity.measure_decorated(tiny_diversity, jax.random.key(0))
    assert m4.details["truncated_rounds"] == 0
    assert 0 < m4.details["div_plain"] <= 1 and 0 < m4.details["div_diverse"] <= 1
    assert m4.measured["div_ratio"] == pytest.approx(m4.details["div_diverse"] / m4.details["div_plain"])
    m5 = diversity.measure_clusters(tiny_diversity, jax.random.key(0))
    assert m5.details["clusters_plain"] <= 4 and m5.details["clusters_diverse"] <= 4
    m6 = embeddings.measure(tiny_diversity, jax.random.key(0))
    # the reported gap is the exact population loss, recomputed here from the dense closed form
    run = m6.details["sbm_k4"]
    assert run["loss_star"] == pytest.approx(-np.sum(np.sort(np.linalg.eigvalsh(
        diffusion.walk_kernel(graphs.sbm(4, 16, 0.4, 0.005, 0), 4)))[::-1][:4] ** 2))
    assert run["loss"] >= run["loss_star"] - 1e-9 and run["err"] >= run["eckart_young"] - 1e-9
    m7 = diversity.measure_embedding_conjecturer(tiny_diversity, jax.random.key(0))
    assert m7.details["clusters_plain"] == m5.details["clusters_plain"]  # same plays as S5
    assert contrastive.EmbedNet(4, 2) is not None
