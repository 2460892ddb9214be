"""GD against a NumPy loop, masked widths, the closed-form gradient, RK4 against closed forms, Λ̂ against jacfwd."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg

from jaxpapers.flow_matching import (
    GMMTarget,
    TwoLayerReLU,
    gd_train,
    gram_hinf,
    integrate,
    jacobian_x,
    lipschitz_along,
    make_triples,
    velocity,
)
from jaxpapers.flow_matching.model import MLPVelocity, features, init_params, neuron_mask
from jaxpapers.flow_matching.train import _loss_and_grads, summed_loss


def _setup(n=6, m=12, seed=0):
    tr = make_triples(jax.random.key(seed), GMMTarget.circle(), n)
    return tr, init_params(jax.random.key(seed + 1), m, 2)


def test_closed_form_gradient_matches_autodiff():
    tr, p = _setup()
    z = features(tr["x"], tr["t"])
    ref_loss, ref = jax.jit(jax.value_and_grad(summed_loss))(p["W"], p["a"], z, tr["u"])
    grads = jax.jit(_loss_and_grads, static_argnums=(4, 5, 7))
    for chunk in (None, 2, 4):  # one block; blocks of 2 rows; blocks of 4 rows (6 rows zero-padded to 8)
        loss, gw, _ = grads(p["W"], p["a"], z, tr["u"], None, None, 1 / np.sqrt(12), chunk)
        np.testing.assert_allclose(gw, ref, rtol=1e-4, atol=1e-5)
        assert float(loss) == pytest.approx(float(ref_loss), rel=1e-5)


@pytest.mark.parametrize("chunk", [None, 4])
def test_gd_train_matches_a_numpy_loop(chunk):
    """The scanned GD (one block of rows, or blocks of 4 rows with zero padding) against a float64 NumPy loop."""
    tr, p = _setup()
    z = np.asarray(features(tr["x"], tr["t"]), np.float64)
    u, w, a = np.asarray(tr["u"], np.float64), np.asarray(p["W"], np.float64), np.asarray(p["a"], np.float64)
    w0, eta, losses, deltas = w.copy(), 0.05, [], []
    for _ in range(20):
        pre = z @ w.T
        r = np.maximum(pre, 0) @ a / np.sqrt(12) - u
        losses.append(0.5 * np.sum(r**2))
        deltas.append(np.max(np.linalg.norm(w - w0, axis=1)))
        w = w - eta * (((r @ a.T) * (pre > 0) / np.sqrt(12)).T @ z)
    params, hist = jax.jit(lambda p, tr: gd_train(p, tr, eta, 20, record_every=5, chunk=chunk))(p, tr)
    np.testing.assert_allclose(hist["loss"][:-1], losses, rtol=1e-4)
    np.testing.assert_allclose(hist["delta_max"][:-1], deltas[::5], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(params["W"], w, rtol=1e-4, atol=1e-5)


def test_masked_max_width_equals_the_small_net():
    tr, p = _setup(m=32)
    small = {"W": p["W"][:8], "a": p["a"][:8]}
    _, h_small = gd_train(small, tr, 0.05, 10)
    _, h_mask = jax.jit(lambda p, tr, m: gd_train(p, tr, 0.05, 10, width=m, mask=neuron_mask(32, m)))(p, tr, 8.0)
    for k in ("loss", "delta_max", "flips"):
        np.testing.assert_allclose(h_mask[k], h_small[k], rtol=1e-5, atol=1e-6)


def test_fixed_triples_can_be_memorised_but_the_population_loss_cannot():
    """Pitfall: only the empirical loss on fixed triples goes to 0; the population loss stays at L* > 0."""
    tr, p = _setup(n=4, m=2048)
    eta = 1.0 / np.linalg.eigvalsh(gram_hinf(np.asarray(features(tr["x"], tr["t"]), np.float64)))[-1]
    _, hist = jax.jit(lambda p, tr: gd_train(p, tr, eta, 3000, record_every=3000))(p, tr)
    assert hist["loss"][-1] < 1e-2 * hist["loss"][0]
    floor, _ = GMMTarget.circle().floor(jax.random.key(9), 20_000)
    assert floor > 1.5


def test_ntk_scaling_keeps_the_initial_output_scale():
    """Pitfall: without m^{-1/2} the initial field grows like √m; with it E v_j² = E‖z‖²/2 for every m."""
    x, t = jax.random.normal(jax.random.key(0), (512, 2)), jnp.full((512,), 0.5)
    on, off = TwoLayerReLU(4096, 2), TwoLayerReLU(4096, 2, ntk_scaling=False)
    variables = on.init(jax.random.key(1), x, t)
    v_on, v_off = on.apply(variables, x, t), off.apply(variables, x, t)
    np.testing.assert_allclose(v_off, v_on * 64.0, rtol=1e-4, atol=1e-4)
    z2 = float(jnp.mean(jnp.sum(features(x, t) ** 2, -1)))
    assert float(jnp.mean(v_on**2)) == pytest.approx(z2 / 2, rel=0.2)


def test_mlp_velocity_is_a_relu_mlp_on_x_t_1():
    """The deeper image baseline: ``depth`` ReLU layers on z = (x, t, 1), then a linear read-out (NumPy forward)."""
    x, t = np.random.default_rng(0).normal(size=(5, 3)), np.linspace(0.0, 1.0, 5)
    model = MLPVelocity(width=7, depth=3, d_out=3)
    xj, tj = jnp.asarray(x, jnp.float32), jnp.asarray(t, jnp.float32)
    params = model.init(jax.random.key(0), xj, tj)["params"]
    h = np.concatenate([x, t[:, None], np.ones((5, 1))], axis=1)
    for i in range(3):
        layer = params[f"layers_{i}"]
        h = np.maximum(h @ np.asarray(layer["kernel"], np.float64) + np.asarray(layer["bias"], np.float64), 0.0)
    want = h @ np.asarray(params["out"]["kernel"], np.float64) + np.asarray(params["out"]["bias"], np.float64)
    got = model.apply({"params": params}, xj, tj)
    assert got.shape == (5, 3) and len(params) == 4
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)


def test_image_input_scale():
    """Pitfall: unscaled z ∈ R^66 gives initial outputs of variance ‖z‖²/2 ≈ 33; z/√(d+2) brings it to ≈ 1/2."""
    x = jax.random.uniform(jax.random.key(0), (512, 64), minval=-1, maxval=1)
    p = init_params(jax.random.key(1), 1024, 64)
    var = [float(jnp.var(velocity(p, x, 0.5, z_scale=s))) for s in (1.0, 1 / np.sqrt(66))]
    assert var[0] > 10 and var[1] < 1.0


@pytest.mark.parametrize("method,tol", [("rk4", 1e-6), ("euler", 5e-2)])
def test_integrate_linear_field_against_expm(method, tol):
    a = jnp.array([[-0.5, 1.0], [-1.0, -0.2]])
    x0 = jnp.array([[1.0, 2.0], [-0.3, 0.4]])
    x1 = integrate(lambda x, t: x @ a.T, x0, 100, method)
    np.testing.assert_allclose(x1, x0 @ scipy.linalg.expm(np.asarray(a)).T, atol=tol)


def test_integrate_time_dependent_field():
    """dx/dt = 2t·x has x(1) = e·x(0): RK4 must evaluate v at the right times."""
    x1 = integrate(lambda x, t: 2 * t * x, jnp.ones((1, 1)), 20)
    assert float(x1[0, 0]) == pytest.approx(np.e, rel=1e-6)


def test_lipschitz_estimate_matches_jacfwd():
    p = init_params(jax.random.key(0), 64, 2)
    x0 = jax.random.normal(jax.random.key(1), (7, 2))
    _, path = integrate(lambda x, t: velocity(p, x, t), x0, 4, return_path=True)
    lip = lipschitz_along(lambda x, t: jacobian_x(p, x, t), path)
    peaks = []
    for k, tk in enumerate(np.linspace(0, 1, 5)):
        jac = [jax.jacfwd(lambda y, tk=tk: velocity(p, y[None], tk)[0])(xi) for xi in path[k]]
        peaks.append(max(np.linalg.norm(np.asarray(j), 2) for j in jac))
    assert float(lip) == pytest.approx(float(np.trapezoid(peaks, np.linspace(0, 1, 5))), rel=1e-4)
