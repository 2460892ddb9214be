"""The planted model: population blocks, the sampler (against the population and its linear map),
centering, validation errors."""

import jax
import jax.numpy as jnp
import jaxtyping
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import latent_model as lm

from .conftest import preset

planted_covariances = jax.jit(lm.planted_covariances)


def test_population_blocks_are_the_canonical_ones_rotated(contaminated):
    p = contaminated
    cov = planted_covariances(p, jax.random.key(0))
    qx, qy = np.asarray(cov.Qx), np.asarray(cov.Qy)
    np.testing.assert_allclose(qx.T @ qx, np.eye(p.d_x), atol=1e-12)
    k2 = np.array([2.5, 2.0, 1.5]) ** 2
    np.testing.assert_allclose(np.diag(qx.T @ np.asarray(cov.Sxx) @ qx), np.r_[k2 + 2.0, np.full(13, 25.0)], atol=1e-10)
    np.testing.assert_allclose(
        np.diag(qy.T @ np.asarray(cov.Syy) @ qy), np.r_[k2 + 0.25, np.full(13, 0.25)], atol=1e-12
    )
    d = qx.T @ np.asarray(cov.Sxy) @ qy
    eta = 0.9 * np.sqrt(25 * 0.25)
    expected = np.zeros((16, 16))
    expected[np.arange(3), np.arange(3)] = k2
    expected[3 + np.arange(3), 3 + np.arange(3)] = eta
    np.testing.assert_allclose(d, expected, atol=1e-10)
    np.testing.assert_allclose(np.asarray(cov.Ux), qx[:, :3])


def test_pair_map_reproduces_the_population_covariances(x64):
    p = preset("contaminated", d_y=12, nu=(0.9, 0.5, 0.1))
    cov = planted_covariances(p, jax.random.key(1))
    lx, ly, ls = (np.asarray(a) for a in jax.jit(lm.pair_map)(p, cov))
    np.testing.assert_allclose(lx @ lx.T, cov.Sxx, atol=1e-10)
    np.testing.assert_allclose(ly @ ly.T, cov.Syy, atol=1e-10)
    np.testing.assert_allclose(lx @ ly.T, cov.Sxy, atol=1e-10)
    np.testing.assert_allclose(ls @ lx.T, np.asarray(p.kappa**2)[:, None] * np.asarray(cov.Ux).T, atol=1e-10)


def test_sample_covariance_approaches_the_population(x64):
    p = preset("clean", d_x=8, d_y=6, nu=0.5)
    cov = planted_covariances(p, jax.random.key(2))
    x, y, s = jax.jit(lm.sample_pairs, static_argnums=3)(p, cov, jax.random.key(3), 100_000)
    e = jax.jit(lm.empirical_cov)(x, y)
    for got, want in ((e.Sxx, cov.Sxx), (e.Syy, cov.Syy), (e.Sxy, cov.Sxy)):
        np.testing.assert_allclose(got, want, atol=0.1)
    np.testing.assert_allclose(np.var(np.asarray(s), axis=0), np.asarray(p.kappa) ** 2, rtol=0.03)


def test_cov_from_moments_equals_the_sample_covariance_of_sampled_pairs(x64):
    p = preset("contaminated", d_x=10, d_y=7)
    cov = planted_covariances(p, jax.random.key(4))

    @jax.jit
    def both(key):
        x, y, _ = lm.sample_pairs(p, cov, key, 500)
        return lm.empirical_cov(x, y), lm.cov_from_moments(p, cov, lm.base_moments(p, key, 500))

    direct, fast = both(jax.random.key(5))
    for a, b in ((direct.Sxx, fast.Sxx), (direct.Syy, fast.Syy), (direct.Sxy, fast.Sxy)):
        np.testing.assert_allclose(a, b, atol=1e-11)


def test_empirical_cov_centers_on_the_sample_mean(x64):
    """Spec Pitfalls: features must be centered; a constant offset must not change the covariance."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(300, 4)), rng.normal(size=(300, 3))
    a = lm.empirical_cov(jnp.asarray(x), jnp.asarray(y))
    b = lm.empirical_cov(jnp.asarray(x + 5.0), jnp.asarray(y - 3.0))
    np.testing.assert_allclose(a.Sxy, b.Sxy, atol=1e-12)
    raw = lm.empirical_cov(jnp.asarray(x + 5.0), jnp.asarray(y - 3.0), center=False)
    assert np.abs(np.asarray(raw.Sxy) - np.asarray(a.Sxy)).max() > 10


def test_random_joint_cov_is_positive_definite(x64):
    c = lm.random_joint_cov(jax.random.key(0), 4, 5)
    full = np.block([[c.Sxx, c.Sxy], [np.asarray(c.Sxy).T, c.Syy]])
    assert full.shape == (9, 9)
    assert np.linalg.eigvalsh(full).min() > 0
    assert c.Ux is None


def test_haar_orthogonal_is_orthogonal_and_varies_with_the_key(x64):
    q1, q2 = lm.haar_orthogonal(jax.random.key(0), 6), lm.haar_orthogonal(jax.random.key(1), 6)
    np.testing.assert_allclose(np.asarray(q1) @ np.asarray(q1).T, np.eye(6), atol=1e-12)
    assert np.abs(np.asarray(q1) - np.asarray(q2)).max() > 0.1


def test_planted_params_broadcast_and_pad(x64):
    p = lm.planted_params(2, 5, 4, kappa=1.0, gxs=0.5, gys=0.5, gxn=[1, 2, 3], gyn=1.0, nu=[0.3])
    assert (p.k, p.d_x, p.d_y, p.m) == (2, 5, 4, 2)
    np.testing.assert_allclose(p.nu, [0.3, 0.0])
    np.testing.assert_allclose(p.eta, [0.3 * np.sqrt(1.0), 0.0])


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(nu=1.0), r"nu=1\.0 is out of range"),
        (dict(kappa=[1.0, -1.0, 1.0]), r"kappa=-1\.0 is out of range"),
        (dict(gxn=0.0), r"gxn=0\.0 is out of range"),
        (dict(gxs=[1.0, 2.0]), r"gxs has 2 values; expected a scalar or 3"),
        (dict(nu=[0.1] * 20), r"nu has 20 values"),
        (dict(d_x=3), r"d_x=3 is out of range"),
    ],
)
def test_bad_planted_params_raise_one_clear_error(x64, change, match):
    with pytest.raises(ConfigError, match=match):
        preset("clean", **change)


def test_sampler_needs_a_planted_cov(small_cov, clean):
    with pytest.raises(ConfigError, match="needs a Cov from planted_covariances"):
        lm.sample_pairs(clean, small_cov, jax.random.key(0), 4)


def test_empirical_cov_rejects_mismatched_shapes(x64):
    # with shape checking on (jaxtyping's pytest hook) the annotation "N D" / "N E" rejects it first
    with pytest.raises((ConfigError, jaxtyping.TypeCheckError), match=r"x and y must be \(N, d_x\)|N"):
        lm.empirical_cov(jnp.zeros((5, 2)), jnp.zeros((4, 2)))
