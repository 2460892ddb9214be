"""Claim experiments at tiny size against independent computations (NumPy, float64, plain loops).

A planted bug in what a claim measures must fail here: e.g. CO4's RMSE taken against the noisy labels
instead of the noiseless f, or CO6's violation counts taken on the wrong points.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.comonet import data, figures, studies
from jaxpapers.comonet.baselines import MLP
from jaxpapers.comonet.certify import violation_fraction
from jaxpapers.comonet.config import ModelConfig, SyntheticDataConfig
from jaxpapers.comonet.experiments import synthetic, tabular
from jaxpapers.comonet.model import COMONet
from jaxpapers.comonet.regimes import parse_regimes
from jaxpapers.comonet.train import build_model
from jaxpapers.core import config
from jaxpapers.core.config import to_dataclass

SPEC = parse_regimes(data.NINE_REGIMES)


@pytest.fixture(scope="module")
def tiny():
    """The synthetic study at its tiny preset (memoised: the measure functions below reuse it)."""
    cfg = config.load("comonet/synthetic", "preset=tiny")
    key = jax.random.key(0)
    return cfg, key, studies.synthetic_study(cfg, key)


def _models(cfg):
    mc = to_dataclass(ModelConfig, cfg.model)
    return {kind: build_model(dataclasses.replace(mc, kind=kind), SPEC) for kind in ("comonet", "mlp")}


def test_co4_rmse_is_against_the_noiseless_function(tiny):
    """CO4's RMSEs, recomputed trial by trial in NumPy against f evaluated in float64 at the test inputs."""
    cfg, key, study = tiny
    m = synthetic.measure_accuracy(cfg, key)
    mean = {}
    for kind, model in _models(cfg).items():
        per_seed = []
        for t in studies.trial_index(cfg, "accuracy"):
            x = study["x_test"][t]
            f = data.nine_regime_function(x.astype(np.float64))
            pred = np.asarray(model.apply({"params": figures.trial_params(study, kind, t)}, jnp.asarray(x)))[:, 0]
            per_seed.append(np.sqrt(np.mean((pred.astype(np.float64) - f) ** 2)))
        mean[kind] = np.mean(per_seed)
    assert m.measured["rmse_comonet"] == pytest.approx(mean["comonet"], rel=1e-4)
    assert m.measured["rmse_mlp"] == pytest.approx(mean["mlp"], rel=1e-4)
    assert m.measured["rmse_ratio"] == pytest.approx(mean["comonet"] / mean["mlp"], rel=2e-4)


def test_co6_out_of_range_counts_match_the_certifier_and_a_finite_difference_tangent(tiny):
    """CO6: violation fractions at x_out from ``violation_fraction`` per trial; the tangent gap with a
    float64 central-difference slope (independent of the jvp the study uses)."""
    cfg, key, study = tiny
    m = synthetic.measure_extrapolation(cfg, key)
    x_out = study["x_out"]
    assert x_out.min() >= cfg.data.extrap_box[0] and x_out.max() <= cfg.data.extrap_box[1]
    idx = studies.trial_index(cfg, "accuracy")
    frac = {}
    for kind, model in _models(cfg).items():
        apply = lambda p, x, model=model: model.apply({"params": p}, x)
        frac[kind] = [
            violation_fraction(apply, figures.trial_params(study, kind, t), SPEC, x_out, h=(cfg.check.h,)) for t in idx
        ]
    assert m.measured["comonet_out_violating_points"] == round(sum(frac["comonet"]) * len(x_out)) == 0
    assert m.measured["mlp_out_violation_fraction_min"] == pytest.approx(min(frac["mlp"]))
    model, j, s = _models(cfg)["comonet"], cfg.check.tangent_var, cfg.check.tangent_step
    with jax.enable_x64(True):
        e = np.eye(9)[j]
        worst = -np.inf
        for t in idx:
            p = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), figures.trial_params(study, "comonet", t))
            f = lambda z, p=p: np.asarray(model.apply({"params": p}, jnp.asarray(z)))[:, 0]
            x = x_out.astype(np.float64)
            slope = (f(x + 1e-5 * e) - f(x - 1e-5 * e)) / 2e-5
            worst = max(worst, float(np.max(f(x) + s * slope - f(x + s * e))))
    assert m.details["tangent_worst_gap"]["comonet"] == pytest.approx(worst, abs=1e-6)
    assert worst <= 0.0  # convex along x5: the tangent lies below the function


def test_evaluate_trials_matches_a_numpy_loop():
    """Every per-trial RMSE of ``evaluate_trials`` (two stacked MLPs) against NumPy."""
    model = MLP((5,))
    rng = np.random.default_rng(0)
    keys = jax.random.split(jax.random.key(0), 2)
    params = jax.vmap(lambda k: model.init(k, jnp.zeros((1, 9)))["params"])(keys)
    out = studies.out_of_range_points(SyntheticDataConfig(n_extrap=7), 3)
    test = {
        "x": rng.uniform(-1, 1, (2, 6, 9)).astype(np.float32),
        "y": rng.normal(size=(2, 6)).astype(np.float32),
        "f": rng.normal(size=(2, 6)).astype(np.float32),
    }
    test["x_check"] = test["x"][:, :4]
    ev = studies.evaluate_trials(model, params, SPEC, test, out, h=0.1, rtol=1e-9, tangent_var=5, tangent_step=0.5)
    for t in range(2):
        p = jax.tree.map(lambda a, t=t: a[t], params)
        g = lambda z, p=p: np.asarray(model.apply({"params": p}, jnp.asarray(z)), np.float64)[..., 0]
        rmse = lambda a, b: np.sqrt(np.mean((a - b) ** 2))
        np.testing.assert_allclose(ev["rmse"][t], rmse(g(test["x"][t]), test["y"][t]), rtol=1e-5)
        np.testing.assert_allclose(ev["rmse_clean"][t], rmse(g(test["x"][t]), test["f"][t]), rtol=1e-5)
        np.testing.assert_allclose(ev["rmse_out"][t], rmse(g(out["x_out"]), out["f_out"]), rtol=1e-5)
        for j in range(9):
            np.testing.assert_allclose(
                ev["rmse_out_by_variable"][t, j], rmse(g(out["x_var"][j]), out["f_var"][j]), rtol=1e-5
            )
    for j in range(9):  # only x_j out of range
        inside = np.delete(out["x_var"][j], j, axis=1)
        assert np.all(np.abs(inside) <= 1) and np.all(out["x_var"][j][:, j] >= 1)


def test_fold_mse_matches_a_numpy_loop():
    """CO7's masked per-trial MSE: padding rows never count."""
    model = COMONet(("inc", "free", "cvx"), hidden=3, depth=1)
    keys = jax.random.split(jax.random.key(1), 2)
    params = jax.jit(jax.vmap(lambda k: model.init(k, jnp.zeros((1, 3)))["params"]))(keys)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, 3)).astype(np.float32)
    y = rng.normal(size=(2, 5)).astype(np.float32)
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], np.float32)
    x[1, 3:] = 1e6  # padding: would dominate if it counted
    got = tabular.fold_mse(model, params, x, y, mask)
    apply = jax.jit(lambda p, z: model.apply({"params": p}, z)[:, 0])  # one compile for both trials
    for t, n in enumerate((5, 3)):
        p = jax.tree.map(lambda a, t=t: a[t], params)
        pred = np.asarray(apply(p, jnp.asarray(x[t])))[:n]  # the real rows only, dropped in NumPy
        np.testing.assert_allclose(got[t], np.mean((pred - y[t, :n]) ** 2), rtol=1e-5)


def test_score_metrics():
    a = np.asarray
    assert tabular.score("mse", a([1.0, 3.0]), a([0.0, 0.0])) == 5.0
    assert tabular.score("rmse", a([3.0, 4.0]), a([0.0, 0.0])) == pytest.approx(np.sqrt(12.5))
    assert tabular.score("accuracy", a([-1.0, 2.0, 0.5]), a([0.0, 1.0, 0.0])) == pytest.approx(2 / 3)
