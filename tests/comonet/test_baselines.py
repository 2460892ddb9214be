"""Baselines: exact reductions of COMONet to SMNN and ICNN, the MLP's size, the shape penalty."""

import jax
import jax.numpy as jnp
import jaxtyping
import numpy as np
import pytest

from jaxpapers.comonet.baselines import (
    ICNN,
    MLP,
    SMNN,
    PenaltyMLP,
    icnn_params_from_comonet,
    shape_penalty,
    smnn_params_from_comonet,
)
from jaxpapers.comonet.model import COMONet, count_params
from jaxpapers.core.errors import ConfigError


def init(model, d, seed=0):
    """Parameters of the model's shapes, every leaf ~ N(0, 1) (the reductions hold for any parameters)."""
    shapes = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, d)))["params"]
    rng = np.random.default_rng(seed)
    return jax.tree.map(lambda a: jnp.asarray(rng.normal(size=a.shape), jnp.float32), shapes)


@pytest.mark.parametrize(
    "regimes", [pytest.param(("inc", "free", "dec", "free"), marks=pytest.mark.slow), ("inc", "dec")]
)
def test_comonet_partial_configuration_is_smnn(regimes):
    """CO3 at unit scale: identical outputs in float64, and to a few float32 ulps."""
    model = COMONet(regimes, hidden=5, depth=2)
    params = init(model, len(regimes))
    mono = model.spec.group("M")
    smnn = SMNN(mono, tuple(model.spec.flip[j] for j in mono), 5, 5, 5, 2)
    mapped = smnn_params_from_comonet(params, regimes, 2)
    assert jax.tree.structure(mapped) == jax.tree.structure(
        jax.eval_shape(smnn.init, jax.random.key(0), jnp.zeros((1, len(regimes))))["params"]
    )
    x = 2.0 * jax.random.normal(jax.random.key(1), (64, len(regimes)))
    a32, b32 = model.apply({"params": params}, x), smnn.apply({"params": mapped}, x)
    np.testing.assert_allclose(a32, b32, rtol=1e-5, atol=1e-5)
    with jax.enable_x64(True):
        x64 = x.astype(jnp.float64)
        np.testing.assert_allclose(
            model.apply({"params": params}, x64), smnn.apply({"params": mapped}, x64), rtol=1e-13, atol=1e-13
        )


@pytest.mark.parametrize("regimes", [("cvx", "cvx"), ("free", "cvx", "free")])
def test_comonet_partial_configuration_is_icnn(x64, regimes):
    """{cvx} alone is an exp-reparameterised FICNN; {cvx, free} the additive-bias PICNN."""
    model = COMONet(regimes, hidden=4, depth=2)
    params = jax.tree.map(lambda a: a.astype(jnp.float64), init(model, len(regimes)))
    icnn = ICNN(model.spec.group("C"), hidden=4, side=4, depth=2)
    mapped = icnn_params_from_comonet(params, regimes, 2)
    x = jax.random.normal(jax.random.key(2), (32, len(regimes)), jnp.float64)
    np.testing.assert_allclose(model.apply({"params": params}, x), icnn.apply({"params": mapped}, x), rtol=1e-13)


def test_mapping_helpers_refuse_other_regimes():
    with pytest.raises(ConfigError, match=r"SMNN covers only free, inc and dec variables; regimes also hold \['cvx'\]"):
        smnn_params_from_comonet({}, ("inc", "cvx"), 1)
    with pytest.raises(ConfigError, match=r"ICNN covers only cvx and free"):
        icnn_params_from_comonet({}, ("inc", "cvx"), 1)


def test_mlp_size_and_shapes():
    params = jax.eval_shape(MLP().init, jax.random.key(0), jnp.zeros((1, 9)))["params"]
    assert count_params(params) == 9 * 64 + 64 + 64 * 64 + 64 + 64 + 1  # ≈ 4.9k
    # the model's own check, or jaxtyping's [B, D] annotation first when the test run enforces shapes
    with pytest.raises((ConfigError, jaxtyping.TypeCheckError), match=r"expected \(batch, features\)|'B D'"):
        MLP().init(jax.random.key(0), jnp.zeros((9,)))


def test_shape_penalty_against_numpy():
    """mean relu(-s ∂f) over monotone columns + mean relu(-c Δ²_h f)/h² over curvature columns."""
    a = np.array([0.5, -1.0, 2.0])
    f = lambda x: a[0] * x[:, 0] ** 3 + a[1] * x[:, 1] ** 2 - x[:, 2] + x[:, 0] * x[:, 2]
    x = np.random.default_rng(0).uniform(-1, 1, size=(20, 3))
    h = 0.2
    grad = np.stack([3 * a[0] * x[:, 0] ** 2 + x[:, 2], 2 * a[1] * x[:, 1], -1 + x[:, 0]], 1)
    mono = np.array([-1.0, 0.0, 1.0])  # ("dec", "cvx", "cvx_inc")
    want_mono = np.maximum(-mono * grad, 0)[:, [0, 2]].mean()
    f_np = lambda z: a[0] * z[:, 0] ** 3 + a[1] * z[:, 1] ** 2 - z[:, 2] + z[:, 0] * z[:, 2]
    e = np.eye(3)
    d2 = np.stack([f_np(x + h * e[j]) + f_np(x - h * e[j]) - 2 * f_np(x) for j in (1, 2)], 1)
    want_curv = np.maximum(-d2, 0).mean() / h**2
    got = shape_penalty(f, jnp.asarray(x, jnp.float32), ("dec", "cvx", "cvx_inc"), h)
    np.testing.assert_allclose(float(got), want_mono + want_curv, rtol=1e-4)


def test_penalty_mlp_validates():
    with pytest.raises(ConfigError, match="lam=-1.0"):
        PenaltyMLP(regimes=("inc",), lam=-1.0)
    with pytest.raises(ConfigError, match="box="):
        PenaltyMLP(regimes=("inc",), box=(1.0, 0.0))
    assert PenaltyMLP(regimes=("inc", "free")).regimes == ("inc", "free")
