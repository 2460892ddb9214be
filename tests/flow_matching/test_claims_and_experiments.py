"""Registry, configs, and every claim's experiment at the tiny preset against an independent recomputation."""

import math

import jax
import numpy as np
import pytest

from jaxpapers.core import config, registry
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.flow_matching import GMMTarget, studies
from jaxpapers.flow_matching.config import (
    GeneralisationConfig,
    GMMConfig,
    ImageConfig,
    OptimisationConfig,
    ReferencesConfig,
)
from jaxpapers.flow_matching.experiments import generalisation, optimisation, references

IDS = ["FM1", "FM2", "FM3", "FM4", "FM4c", "FM5", "FM6"]
GROUPS = {
    "optimisation": {"target": GMMConfig, "opt": OptimisationConfig},
    "generalisation": {"target": GMMConfig, "gen": GeneralisationConfig},
    "references": {"target": GMMConfig, "ref": ReferencesConfig},
    "images": {"images": ImageConfig},
}


def test_claims_follow_the_spec_table():
    claims = registry.claims_of("flow_matching")
    assert [c.name.split("-")[0] for c in claims] == IDS
    assert "finite-width reading" in claims[0].statement.lower()
    assert sum(c.budget_s["quick"] for c in claims) <= 180
    control = [c for c in claims if c.control_of]
    assert [c.control_of for c in control] == ["flow_matching/FM4-exact-references"]


@pytest.mark.parametrize("name", sorted(GROUPS))
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load_and_convert(name, preset):
    cfg = config.load(f"flow_matching/{name}", f"preset={preset}")
    for group, cls in GROUPS[name].items():
        to_dataclass(cls, cfg[group])


def test_bad_config_values_name_the_argument():
    with pytest.raises(ConfigError, match="opt.widths"):
        OptimisationConfig(widths=(1024, 256))
    with pytest.raises(ConfigError, match="record_every"):
        OptimisationConfig(steps=100, record_every=7)
    with pytest.raises(ConfigError, match="gen.solver"):
        GeneralisationConfig(solver="rk45")
    with pytest.raises(ConfigError, match="images.dataset"):
        ImageConfig(dataset="cifar")


def test_rate_check_counts_violations_only_within_the_horizon():
    loss = np.array([1.0, 0.9, 0.5, 0.4, 0.39])
    out = studies.rate_check(loss, lambda0=0.5, eta=1.0, horizon=1.0, slack=0.0)  # rate 0.75^k, K_b = 2
    assert out["K_b"] == 2 and out["violations_within_K_b"] == 1 and out["first_fail_k"] == 1


@pytest.mark.slow
def test_fm1_tiny_against_a_plain_loop():
    """The vmapped per-width sweep equals a plain loop of unmasked runs; the measured criteria recompute."""
    cfg = config.load("flow_matching/optimisation", "preset=tiny")
    m = optimisation.measure(cfg, None)
    tcfg, opt = to_dataclass(GMMConfig, cfg.target), to_dataclass(OptimisationConfig, cfg.opt)
    sw = studies.optimisation_sweep(tcfg, opt, 0)
    from jaxpapers.flow_matching import gd_train, make_triples
    from jaxpapers.flow_matching.model import init_params

    key = jax.random.fold_in(jax.random.key(0), 0)
    tr = make_triples(jax.random.fold_in(key, 0), GMMTarget.from_config(tcfg), opt.n)
    p = init_params(jax.random.fold_in(key, 1), max(opt.widths), 2)
    for j, w in enumerate(opt.widths):
        _, h = gd_train({"W": p["W"][:w], "a": p["a"][:w]}, tr, sw["eta"][0], opt.steps,
                        record_every=opt.record_every)
        np.testing.assert_allclose(sw["loss"][0, j], h["loss"], rtol=2e-4)
        np.testing.assert_allclose(sw["delta_max"][0, j], h["delta_max"], rtol=2e-4, atol=1e-6)
    ratio = sw["loss"][0, -1, -1] / sw["loss"][0, -1, 0]
    assert m.measured["loss_ratio"][0] == pytest.approx(ratio)
    slope = np.polyfit(np.log(opt.widths), np.log(sw["delta_max"][0, :, -1]), 1)[0]
    assert m.measured["delta_slope"][0] == pytest.approx(slope, rel=1e-6)


@pytest.mark.slow
def test_generalisation_tiny_recomputes():
    cfg = config.load("flow_matching/generalisation", "preset=tiny")
    fm2 = generalisation.measure_sample_size(cfg, None)
    fm3 = generalisation.measure_w2(cfg, None)
    fm5 = generalisation.measure_width(cfg, None)
    gap = np.array(fm2.details["gap"][0])
    ns = fm2.details["ns"]
    if np.all(gap > 0):
        assert fm2.measured["gap_slope"][0] == pytest.approx(np.polyfit(np.log(ns), np.log(gap), 1)[0], rel=1e-6)
    w2, bound = np.array(fm3.details["w2"][0]), np.array(fm3.details["bound"][0])
    assert fm3.measured["bound_margin_min"] == pytest.approx(np.min(bound - w2))
    eps, lip = np.array(fm3.details["eps_v"][0]), np.array(fm3.details["lipschitz_estimate"][0])
    np.testing.assert_allclose(bound, np.array(fm3.details["w2_floor"][0]) + eps * np.exp(lip), rtol=1e-9)
    ex = np.array(fm5.details["excess"][0])
    assert fm5.measured["excess_ratio"][0] == pytest.approx(ex.max() / ex.min())


@pytest.mark.slow
def test_generalisation_run_test_loss_against_numpy():
    """The test loss and floor recomputed in NumPy from the returned pieces at tiny size."""
    cfg = config.load("flow_matching/generalisation", "preset=tiny")
    tcfg, gen = to_dataclass(GMMConfig, cfg.target), to_dataclass(GeneralisationConfig, cfg.gen)
    test, v_star = studies._test_set(tcfg, gen, 0)
    floor = 0.5 * np.mean(np.sum((np.asarray(v_star, np.float64) - np.asarray(test["u"], np.float64)) ** 2, 1))
    run = studies.generalisation_run(tcfg, gen, gen.ns[0], gen.width, 0, sample=True)
    assert run["floor"] == pytest.approx(floor, rel=1e-5)
    assert run["eps_v"] == pytest.approx(math.sqrt(max(2 * run["excess"], 0)))


@pytest.mark.slow
def test_references_tiny_in_float64():
    cfg = config.load("flow_matching/references", "preset=tiny")
    with jax.enable_x64(True):
        m = references.measure(cfg, None)
        c = references.measure_control(cfg, None)
    assert abs(m.measured["floor_per_dim"] - math.pi / 2) < 5 * m.stderr["floor_per_dim"] + 1e-3
    assert m.measured["gauss_max_err"] < 1e-5 and m.measured["solver_max_err"] < 1e-3
    assert c.measured["ks_sqrtN_max"] > m.measured["ks_sqrtN_max"]


def test_paired_gap_cancels_the_common_draw_effect():
    """By construction: losses = draw effect + image effect. The draws cancel in every g_k (draw SE 0), so the SE
    is the held-out images' part alone; an unpaired SE would carry the large draw variance."""
    from jaxpapers.flow_matching.experiments.images import paired_gap

    rng = np.random.default_rng(0)
    draw = rng.normal(0, 10, size=(32, 1))
    tr, te = draw + rng.normal(0, 0.1, size=(1, 40)), draw + 0.5 + rng.normal(0, 0.1, size=(1, 25))
    gap, se, g, img = paired_gap(tr, te)
    assert gap == pytest.approx(te.mean() - tr.mean(), rel=1e-12)
    np.testing.assert_allclose(g, g[0], atol=1e-9)
    assert se == pytest.approx(np.std(te[0], ddof=1) / 5, rel=1e-9)
    unpaired = np.sqrt(np.var(te, ddof=1) / te.size + np.var(tr, ddof=1) / tr.size)
    assert se < 0.2 * unpaired  # far below the draw-dominated unpaired SE


@pytest.mark.slow
def test_fm6_tiny_against_numpy():
    """FM6 at tiny size: the per-draw losses recomputed in float64 NumPy from the trained weights, the paired gap,
    its SE and the ratio recomputed from them, and the summary's numbers."""
    from jaxpapers.flow_matching.experiments import images

    cfg = config.load("flow_matching/images", "preset=tiny")
    st = images.study(cfg)
    m = images.summarise(st)
    im = st["config"]
    d = st["train"].shape[-1]
    x0, t = (np.asarray(v, np.float64) for v in images.eval_draws(st["eval_keys"][0], im.eval_draws, d))
    gaps = []
    for j, n in enumerate(im.ns):
        w, a = (np.asarray(st["params"][k][0, j], np.float64) for k in ("W", "a"))

        def loss(x1, k, w=w, a=a):
            x = (1 - t[k]) * x0[k] + t[k] * x1
            z = np.concatenate([x, np.full((len(x), 1), t[k]), np.ones((len(x), 1))], 1) * st["z_scale"]
            v = np.maximum(z @ w.T, 0) @ a / np.sqrt(w.shape[0])
            return 0.5 * np.sum((v - (x1 - x0[k])) ** 2, 1)

        tr = np.stack([loss(st["train"][0, j, :n], k) for k in range(im.eval_draws)])
        te = np.stack([loss(st["test"][0, j], k) for k in range(im.eval_draws)])
        np.testing.assert_allclose(st["train_losses"][0][j], tr, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(st["test_losses"][0, j], te, rtol=1e-4, atol=1e-4)
        g = te.mean(1) - tr.mean(1)
        se = np.sqrt(g.var(ddof=1) / g.size + te.mean(0).var(ddof=1) / te.shape[1])
        assert m.details["gap_per_seed"][0][j] == pytest.approx(g.mean(), rel=1e-4, abs=1e-4)
        assert m.details["gap_se_per_seed"][0][j] == pytest.approx(se, rel=1e-3)
        gaps.append(g.mean())
    ratio = m.measured["gap_ratio"][0]
    assert ratio == (pytest.approx(gaps[-1] / gaps[0], rel=1e-3, abs=1e-4) if gaps[0] > 0 else np.inf)
    assert len(m.measured["gap_ratio"]) == im.seeds
    assert m.details["train_loss"][0][0] == pytest.approx(float(np.mean(st["train_losses"][0][0])), rel=1e-6)

    # the MLP baseline (report-only): its per-draw losses from a float64 NumPy forward of its trained layers, on
    # the same training and held-out images and the same draws; its paired gap from those
    base, bd = st["baseline"], m.details["baseline_mlp"]
    assert bd["field"].startswith(f"MLPVelocity, {im.baseline_depth} hidden")
    for j, n in enumerate(im.ns):
        layers = {k: {q: np.asarray(v[q][0, j], np.float64) for q in v} for k, v in base["params"].items()}
        assert len(layers) == im.baseline_depth + 1

        def mlp_loss(x1, k, layers=layers):
            x = (1 - t[k]) * x0[k] + t[k] * x1
            h = np.concatenate([x, np.full((len(x), 1), t[k]), np.ones((len(x), 1))], 1)
            for i in range(im.baseline_depth):
                h = np.maximum(h @ layers[f"layers_{i}"]["kernel"] + layers[f"layers_{i}"]["bias"], 0)
            v = h @ layers["out"]["kernel"] + layers["out"]["bias"]
            return 0.5 * np.sum((v - (x1 - x0[k])) ** 2, 1)

        tr = np.stack([mlp_loss(st["train"][0, j, :n], k) for k in range(im.eval_draws)])
        te = np.stack([mlp_loss(st["test"][0, j], k) for k in range(im.eval_draws)])
        np.testing.assert_allclose(base["train_losses"][0][j], tr, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(base["test_losses"][0, j], te, rtol=1e-4, atol=1e-4)
        assert bd["gap_per_seed"][0][j] == pytest.approx((te.mean(1) - tr.mean(1)).mean(), rel=1e-4, abs=1e-4)
    assert len(bd["gap_ratio_per_seed"]) == im.seeds and len(bd["sinkhorn_w2"]) == len(im.ns)
