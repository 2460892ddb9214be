"""Shapes hold by construction for any parameters; the spec's pitfalls, each as a test."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.comonet.baselines import MLP, shape_penalty
from jaxpapers.comonet.certify import certify, certify_batch
from jaxpapers.comonet.data import Standardizer
from jaxpapers.comonet.model import COMONet, random_params
from jaxpapers.core.errors import ConfigError

NINE = ("free", "inc", "dec", "cvx", "ccv", "cvx_inc", "cvx_dec", "ccv_inc", "ccv_dec")
SMALL = dict(box=(-2.0, 2.0), n_random=48, n_adv=2, adv_steps=4, h=(0.01, 0.5))


def raw_sets(model, d, n, scale, seed=0):
    template = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, d)))["params"]
    return random_params(template, jax.random.key(seed), n, scale)


def apply_of(model):
    return lambda p, x: model.apply({"params": p}, x)


@pytest.mark.parametrize("act", ["softplus", pytest.param("relu", marks=pytest.mark.slow)])
def test_every_shape_holds_for_wild_parameters(act):
    """Raw parameters ~ N(0, 3²), far outside any training scale: no violation above roundoff (float64)."""
    model = COMONet(NINE, hidden=2, depth=2, act=act)
    reports = certify_batch(apply_of(model), raw_sets(model, 9, 3, 3.0), NINE, jax.random.key(1),
                            hessian=act == "softplus", **SMALL)  # fmt: skip
    for rep in reports:
        assert rep.holds, rep.table()
        assert rep.relative_worst <= 1e-12 and rep.mono_violations == 0


@pytest.mark.parametrize(
    "control, regimes",
    [
        ("convex_identity", ("free", "cvx", "cvx_inc")),
        pytest.param("confluence_leak", ("free", "inc"), marks=pytest.mark.slow),
    ],
)
def test_certifier_catches_broken_constructions(control, regimes):
    """Identity instead of exp in a convex layer, or a constrained variable fed to the confluence units."""
    model = COMONet(regimes, hidden=3, depth=2, control=control)
    reports = certify_batch(apply_of(model), raw_sets(model, len(regimes), 3, 3.0), regimes, jax.random.key(2),
                            **SMALL)  # fmt: skip
    assert max(r.worst_violation for r in reports) > 1e-3


def test_relu_hessian_is_blind_second_differences_are_not():
    """Pitfall: with ReLU the Hessian is 0 almost everywhere; only the finite differences see violations."""
    mlp = MLP((16,))
    params = jax.tree.map(lambda a: jnp.asarray(a[0]), raw_sets(mlp, 2, 1, 1.0, seed=3))
    rep = certify(apply_of(mlp), params, ("cvx", "ccv"), jax.random.key(0), **SMALL)
    checks = dict(zip(rep.checks, rep.worst.max(axis=1), strict=True))
    assert checks["hess"] == 0.0
    assert checks["d2@0.5"] > 1e-3


def test_certifier_runs_in_float64_and_float32_noise_stays_at_roundoff():
    """Pitfall: float32 roundoff gives small negative differences; the certifier evaluates in float64."""
    seen = []

    def apply(p, x):
        seen.append((x.dtype, p["w"].dtype))
        return jnp.exp(p["w"] * x[:, 0])

    rep = certify(apply, {"w": jnp.float32(0.5)}, ("cvx_inc",), jax.random.key(0), **SMALL)
    assert set(seen) == {(jnp.dtype(jnp.float64), jnp.dtype(jnp.float64))} and rep.holds
    # A COMONet in float32 along a fine grid of its increasing variable: any negative difference is of
    # the order of float32 roundoff, which float64 and the relative tolerance keep from false alarms.
    model = COMONet(("inc", "free"), hidden=4, depth=2)
    params = jax.tree.map(lambda a: jnp.asarray(a[0]), raw_sets(model, 2, 1, 1.0))
    t = jnp.linspace(-1, 1, 4001, dtype=jnp.float32)
    x = jnp.stack([t, jnp.full_like(t, 0.3)], axis=1)
    diffs = np.diff(np.asarray(jax.jit(model.apply)({"params": params}, x))[:, 0])
    assert diffs.min() > -1e-5


def test_per_variable_guarantee_is_not_joint_convexity():
    """Pitfall: convex in x_C and monotone in x_M does not make f jointly convex in (x_C, x_M)."""
    regimes = ("cvx", "inc")
    model = COMONet(regimes, hidden=4, depth=2)
    params = raw_sets(model, 2, 8, 3.0, seed=5)
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(512, 2))
    e = np.array([1.0, 1.0]) / np.sqrt(2)
    with jax.enable_x64(True):
        f = jax.vmap(lambda p: model.apply({"params": p}, jnp.asarray(np.concatenate([x - 0.3 * e, x, x + 0.3 * e]))))(
            jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        )
    f = np.asarray(f)[..., 0].reshape(8, 3, -1)
    joint_d2 = f[:, 0] + f[:, 2] - 2 * f[:, 1]
    assert joint_d2.min() < -1e-3  # negative curvature along the diagonal somewhere
    with jax.enable_x64(True):  # ... while every 1-D section along x_C is convex
        p64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        ec = np.array([0.3, 0.0])
        g = jax.vmap(lambda p: model.apply({"params": p}, jnp.asarray(np.concatenate([x - ec, x, x + ec]))))(p64)
    g = np.asarray(g)[..., 0].reshape(8, 3, -1)
    assert (g[:, 0] + g[:, 2] - 2 * g[:, 1]).min() > -1e-9


def test_penalty_looks_fine_on_training_points_and_violates_elsewhere():
    """Pitfall: f = 3x - x³ is increasing on [-1, 1] only: zero penalty there, the certifier on [-2, 2] objects."""
    f = lambda x: 3 * x[:, 0] - x[:, 0] ** 3
    train_points = jnp.linspace(-0.9, 0.9, 64)[:, None]
    assert float(shape_penalty(f, train_points, ("inc",))) == 0.0
    rep = certify(lambda p, x: f(x), {"unused": jnp.zeros(())}, ("inc",), jax.random.key(0), **SMALL)
    assert rep.by_variable()["x0"] == pytest.approx(9.0, rel=1e-2)  # f'(±2) = 3 - 12


def test_negative_standardisation_scale_is_refused():
    """Pitfall: x ↦ -x/σ would silently turn an increasing variable into a decreasing one."""
    with pytest.raises(ConfigError, match="scale must be > 0"):
        Standardizer(mean=np.zeros(2), scale=np.array([1.0, -2.0]))
    s = Standardizer.fit(np.array([[1.0, 5.0], [3.0, 5.0]]))
    np.testing.assert_allclose(s.scale, [1.0, 1.0])  # constant column: scale 1, never 0


def test_no_normalisation_layers_in_constrained_streams():
    """Pitfall: BatchNorm/LayerNorm inside a constrained stream would break the guarantee; there are none."""
    params = jax.eval_shape(COMONet(NINE).init, jax.random.key(0), jnp.zeros((1, 9)))["params"]
    leaves = ["/".join(str(k.key) for k in p) for p, _ in jax.tree_util.tree_flatten_with_path(params)[0]]
    assert not any(name.endswith("scale") or "norm" in name.lower() for name in leaves)
