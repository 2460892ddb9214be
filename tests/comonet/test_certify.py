"""The certifier against closed forms, a float64 NumPy reference, and its batched path against a loop."""

import importlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.comonet.certify import certify, certify_batch, pointwise_violations, violation_fraction
from jaxpapers.comonet.model import COMONet
from jaxpapers.comonet.regimes import parse_regimes
from jaxpapers.core.errors import ConfigError

certify_module = importlib.import_module("jaxpapers.comonet.certify")
DUMMY = {"unused": jnp.zeros(())}  # analytic functions take no parameters
SMALL = dict(n_random=64, n_adv=4, adv_steps=10)


def analytic(fn):
    return lambda params, x: fn(x)


def test_closed_form_violations():
    """-x² declared convex: d2@h = 2h² everywhere, ∂² = -2; -x declared inc: ∂ = -1, Δ_h = -h."""
    rep = certify(analytic(lambda x: -(x[:, 0] ** 2) - x[:, 1]), DUMMY, ("cvx", "inc"), jax.random.key(0),
                  h=(0.1, 0.5), **SMALL)  # fmt: skip
    w = dict(zip(rep.checks, rep.worst.T.tolist()[0], strict=True))  # variable 0 (cvx)
    np.testing.assert_allclose([w["hess"], w["d2@0.1"], w["d2@0.5"]], [2.0, 0.02, 0.5], rtol=1e-12)
    assert np.isnan(w["grad"]) and np.isnan(w["mono@0.1"])  # not applicable to a convex-only variable
    v = dict(zip(rep.checks, rep.worst[:, 1].tolist(), strict=True))  # variable 1 (inc)
    np.testing.assert_allclose([v["grad"], v["mono@0.1"], v["mono@0.5"]], [1.0, 0.1, 0.5], rtol=1e-12)
    assert np.isnan(v["hess"])
    assert not rep.holds and rep.mono_violations == 2 * rep.n_points  # every point, both h
    assert rep.by_variable() == {"x0": 2.0, "x1": 1.0}


def test_shapes_that_hold_pass_in_float64():
    f = lambda x: jnp.exp(x[:, 0]) - jnp.exp(-x[:, 1]) + jnp.log1p(jnp.exp(x[:, 2] + x[:, 0])) + jnp.sin(3 * x[:, 3])
    rep = certify(analytic(f), DUMMY, ("cvx_inc", "ccv_inc", "cvx", "free"), jax.random.key(1), **SMALL)
    assert rep.holds and rep.worst_violation <= rep.tol
    assert "cvx_inc" in rep.table() and rep.to_dict()["holds"]


def test_adversarial_search_finds_what_random_points_miss():
    """f' = 1 - 4 sech²((x - 0.5)/0.05) < 0 only for |x - 0.5| < 0.066: one random point misses it."""
    f = analytic(lambda x: x[:, 0] - 0.2 * jnp.tanh((x[:, 0] - 0.5) / 0.05))
    random_only = certify(f, DUMMY, ("inc",), jax.random.key(0), n_random=1, n_adv=0, adv_steps=1, h=(0.01,))
    searched = certify(f, DUMMY, ("inc",), jax.random.key(0), n_random=1, n_adv=16, adv_steps=100, h=(0.01,))
    assert random_only.holds
    assert not searched.holds
    assert np.nanmax(searched.worst_adv[0]) > 1.0  # the exact worst ∂f/∂x is -3, at x = 0.5


def test_pointwise_matches_numpy_reference(x64):
    """Every check at fixed points against a float64 NumPy evaluation of the same definitions."""
    spec = parse_regimes(("inc", "ccv", "cvx_dec"))
    a = np.array([0.7, -1.3, 0.4])

    def f_np(x):
        return np.sin(2 * x[:, 0]) + a[1] * x[:, 1] ** 3 + np.exp(a[2] * x[:, 2]) - x[:, 0] * x[:, 2]

    def grad_np(x):
        return np.stack(
            [2 * np.cos(2 * x[:, 0]) - x[:, 2], 3 * a[1] * x[:, 1] ** 2, a[2] * np.exp(a[2] * x[:, 2]) - x[:, 0]], 1
        )

    def hess_np(x):
        return np.stack([-4 * np.sin(2 * x[:, 0]), 6 * a[1] * x[:, 1], a[2] ** 2 * np.exp(a[2] * x[:, 2])], 1)

    f = lambda x: jnp.sin(2 * x[:, 0]) + a[1] * x[:, 1] ** 3 + jnp.exp(a[2] * x[:, 2]) - x[:, 0] * x[:, 2]
    x = np.random.default_rng(0).uniform(-1, 1, size=(9, 3))
    hs = (0.1, 0.3)
    viol, fmax = pointwise_violations(f, jnp.asarray(x), spec, hs, chunk_size=4)  # chunked + padded path
    mono, curv = np.array([1.0, 0.0, -1.0]), np.array([0.0, -1.0, 1.0])
    relu = lambda v: np.maximum(v, 0.0)
    want = [relu(-mono * grad_np(x)), relu(-curv * hess_np(x))]
    for h in hs:
        e = np.eye(3)
        fp = np.stack([f_np(x + h * e[j]) for j in range(3)], 1)
        fm = np.stack([f_np(x - h * e[j]) for j in range(3)], 1)
        want.append(relu(-curv * (fp + fm - 2 * f_np(x)[:, None])))
    for h in hs:
        e = np.eye(3)
        fp = np.stack([f_np(x + h * e[j]) for j in range(3)], 1)
        fm = np.stack([f_np(x - h * e[j]) for j in range(3)], 1)
        f0 = f_np(x)[:, None]
        want.append(np.maximum(relu(-mono * (fp - f0)), relu(-mono * (f0 - fm))))
    np.testing.assert_allclose(np.asarray(viol), np.stack(want, 1), atol=1e-12)
    assert fmax.shape == (9,)


def test_batch_equals_a_loop_over_parameter_sets():
    model = COMONet(("free", "cvx_dec"), hidden=2, depth=1, act="relu")
    x = jnp.zeros((1, 2))
    template = jax.eval_shape(model.init, jax.random.key(0), x)["params"]
    stacked = jax.tree.map(lambda a: 2.0 * jax.random.normal(jax.random.key(1), (2, *a.shape)), template)
    apply = lambda p, z: model.apply({"params": p}, z)
    key = jax.random.key(7)
    batch = certify_batch(apply, stacked, model.regimes, key, n_random=8, n_adv=2, adv_steps=3, hessian=False)
    keys = jax.random.split(key, 2)
    for i in range(2):
        one = certify(
            apply,
            jax.tree.map(lambda a, i=i: a[i], stacked),
            model.regimes,
            keys[i],
            n_random=8,
            n_adv=2,
            adv_steps=3,
            hessian=False,
        )
        np.testing.assert_allclose(np.nan_to_num(one.worst), np.nan_to_num(batch[i].worst), rtol=1e-12, atol=1e-300)
        assert one.f_scale == pytest.approx(batch[i].f_scale, rel=1e-12)
        assert one.holds and batch[i].holds


def test_violation_fraction_matches_numpy():
    """sin(3x) declared inc on a grid: a point violates iff a check fails there (grad or Δ at h)."""
    x = np.linspace(-1, 1, 41)[:, None]
    frac = violation_fraction(analytic(lambda z: jnp.sin(3 * z[:, 0])), DUMMY, ("inc",), x, h=(0.1,))
    grad_bad = 3 * np.cos(3 * x[:, 0]) < 0
    fwd_bad = np.sin(3 * (x[:, 0] + 0.1)) < np.sin(3 * x[:, 0])
    bwd_bad = np.sin(3 * x[:, 0]) < np.sin(3 * (x[:, 0] - 0.1))
    assert frac == pytest.approx(np.mean(grad_bad | fwd_bad | bwd_bad))


def test_bad_inputs():
    f32_model = COMONet(("inc",), hidden=2, depth=1, dtype=jnp.float32)
    params = jax.eval_shape(f32_model.init, jax.random.key(0), jnp.zeros((1, 1)))["params"]
    params = jax.tree.map(lambda a: jnp.zeros(a.shape), params)
    with pytest.raises(ConfigError, match="computes in float32 on float64 params; build the model with dtype=None"):
        certify(lambda p, x: f32_model.apply({"params": p}, x), params, ("inc",), jax.random.key(0), **SMALL)
    with pytest.raises(ConfigError, match=r"box=\(1.0, -1.0\) must be \(low, high\)"):
        certify(analytic(lambda x: x[:, 0]), DUMMY, ("inc",), jax.random.key(0), box=(1.0, -1.0), **SMALL)
    with pytest.raises(ConfigError, match="h=0.0 is out of range"):
        certify(analytic(lambda x: x[:, 0]), DUMMY, ("inc",), jax.random.key(0), h=(0.0,), **SMALL)
    with pytest.raises(ConfigError, match="regime 'mono'"):
        certify(analytic(lambda x: x[:, 0]), DUMMY, ("mono",), jax.random.key(0), **SMALL)
    assert certify_module.check_names((0.1,)) == ("grad", "hess", "d2@0.1", "mono@0.1")
