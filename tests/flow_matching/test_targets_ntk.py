"""Targets (v*, floor, transport map) and the NTK Gram against float64 NumPy references."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate as sint

from jaxpapers.core.errors import ConfigError
from jaxpapers.flow_matching import GaussianTarget, GMMTarget, gram_hinf, ntk
from jaxpapers.flow_matching.model import features, init_params, velocity_z


def _np_gauss_vstar(mu, sigma, x, t):
    out = []
    for xi, ti in zip(x, t, strict=True):
        s_t = (1 - ti) ** 2 * np.eye(len(mu)) + ti**2 * sigma
        out.append(mu + (ti * sigma - (1 - ti) * np.eye(len(mu))) @ np.linalg.solve(s_t, xi - ti * mu))
    return np.array(out)


def _np_gmm_vstar(means, s, x, t):
    out = []
    for xi, ti in zip(x, t, strict=True):
        s_t = (1 - ti) ** 2 + ti**2 * s**2
        logp = -np.sum((xi - ti * means) ** 2, 1) / (2 * s_t)
        w = np.exp(logp - logp.max())
        w /= w.sum()
        comp = means + (ti * s**2 - (1 - ti)) / s_t * (xi - ti * means)
        out.append(w @ comp)
    return np.array(out)


def test_v_star_matches_numpy_references():
    rng = np.random.default_rng(0)
    x, t = rng.normal(size=(20, 2)), rng.uniform(0, 0.99, 20)
    g = GaussianTarget(np.array([1.0, -0.5]), np.array([[4.0, 1.0], [1.0, 0.5]]))
    with jax.enable_x64(True):
        np.testing.assert_allclose(g.v_star(x, t), _np_gauss_vstar(g.mu, g.sigma, x, t), rtol=1e-10, atol=1e-12)
        m = GMMTarget.circle()
        np.testing.assert_allclose(m.v_star(x, t), _np_gmm_vstar(m.means, m.s, x, t), rtol=1e-9, atol=1e-10)


def test_gmm_posterior_does_not_underflow_near_t1():
    """Pitfall: tight components make the posterior underflow near t = 1 without log-sum-exp and clipping."""
    m = GMMTarget.circle(s=0.01)
    v = m.v_star(jnp.array([[5.0, 5.0], [0.0, 0.0]]), jnp.array([1.0, 0.99999]))
    assert np.all(np.isfinite(np.asarray(v)))


def test_identity_floor_is_pi_over_2_per_dimension():
    """The closed form ∫(2 − (2t−1)²/((1−t)²+t²)) dt = π/2, and MC agrees; the floor is > 0 (Pitfall: never 0)."""
    val, _ = sint.quad(lambda t: 2 - (2 * t - 1) ** 2 / ((1 - t) ** 2 + t**2), 0, 1)
    assert val == pytest.approx(math.pi / 2, rel=1e-10)
    g = GaussianTarget(np.array([0.7, 0.0, -1.0]), np.eye(3))
    assert 2 * g.floor_exact() / 3 == pytest.approx(val)
    mean, se = g.floor(jax.random.key(0), 40_000)
    assert abs(mean - g.floor_exact()) < 4 * se + 1e-3


def test_gaussian_transport_map_is_the_flow_end_point():
    g = GaussianTarget(np.array([1.0, -0.5]), np.array([[4.0, 1.0], [1.0, 0.5]]))
    x0 = np.random.default_rng(1).normal(size=(5, 2))
    np.testing.assert_allclose(g.transport_map(x0), g.mu + x0 @ g.sqrt_sigma(), rtol=1e-6)
    s = g.sqrt_sigma()
    np.testing.assert_allclose(s @ s, g.sigma, atol=1e-12)


def test_bad_targets_raise():
    with pytest.raises(ConfigError, match="sigma"):
        GaussianTarget(np.zeros(2), np.array([[1.0, 0.0], [0.0, -1.0]]))
    with pytest.raises(ConfigError, match="weights"):
        GMMTarget(np.zeros((2, 2)), 0.5, np.array([0.5, 0.6]))
    with pytest.raises(ConfigError, match="target.s"):
        from jaxpapers.flow_matching.config import GMMConfig

        GMMConfig(s=0.0)


def test_hinf_matches_arccos_formula_and_monte_carlo():
    rng = np.random.default_rng(2)
    z = np.concatenate([rng.normal(size=(6, 2)), rng.uniform(size=(6, 1)), np.ones((6, 1))], 1)
    h = gram_hinf(z)
    ref = np.zeros((6, 6))
    for i in range(6):
        for j in range(6):
            c = np.clip(z[i] @ z[j] / np.linalg.norm(z[i]) / np.linalg.norm(z[j]), -1, 1)
            ref[i, j] = z[i] @ z[j] * (np.pi - np.arccos(c)) / (2 * np.pi)
    np.testing.assert_allclose(h, ref, rtol=1e-7)  # arccos near 1 amplifies round-off on the diagonal
    mc = np.asarray(ntk.gram_mc(jnp.asarray(z, jnp.float32), jax.random.key(0), 200_000))
    np.testing.assert_allclose(mc, h, atol=0.03 * np.abs(h).max())
    assert np.linalg.eigvalsh(h)[0] > 0


def test_parallel_features_have_zero_lambda0_and_are_rejected():
    """Pitfall: without the bias coordinate positively homogeneous features make λ₀ vanish."""
    x = np.array([[1.0, 2.0], [2.0, 4.0]])
    z = np.concatenate([x, np.array([[0.5], [1.0]])], 1)  # (x, t) without the bias: z_1 = 2 z_0
    assert abs(np.linalg.eigvalsh(gram_hinf(z))[0]) < 1e-6 * np.abs(gram_hinf(z)).max()
    with pytest.raises(ValueError, match="parallel"):
        ntk.check_nonparallel(z)
    ntk.check_nonparallel(np.asarray(features(x, jnp.array([0.5, 1.0]))))  # with the bias: fine


def test_empirical_ntk_is_jacobian_gram_and_power_iteration_finds_lambda_max():
    p = init_params(jax.random.key(3), 16, 2)
    z = features(jax.random.normal(jax.random.key(4), (5, 2)), jnp.linspace(0.1, 0.9, 5))
    jac = jax.jacobian(lambda w: velocity_z(w, p["a"], z).reshape(-1))(p["W"]).reshape(10, -1)
    h = ntk.empirical_ntk(p["W"], p["a"], z)
    np.testing.assert_allclose(h, jac @ jac.T, rtol=1e-4, atol=1e-5)
    lam = ntk.power_lambda_max(p["W"], p["a"], z, jax.random.key(5), iters=200)
    assert float(lam) == pytest.approx(float(np.linalg.eigvalsh(np.asarray(h, np.float64))[-1]), rel=1e-3)
