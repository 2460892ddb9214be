"""The O(Bk²) estimator vs the naive Gram, the closed form of the population loss vs a direct expectation, the
Eckart–Young minimiser, stub sampling of π, and a tiny training run."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving import contrastive as C
from jaxpapers.selfplay_proving import diffusion as D
from jaxpapers.selfplay_proving import graphs as G


@pytest.mark.parametrize("seed", range(4))
def test_estimator_matches_naive_gram(seed):
    k1, k2 = jax.random.split(jax.random.key(seed))
    F, Gm = jax.random.normal(k1, (37, 5)), jax.random.normal(k2, (37, 5))
    assert float(C.estimator(F, Gm)) == pytest.approx(float(C.naive_estimator(F, Gm)), rel=1e-4)
    wrong = -2 * jnp.mean(jnp.sum(F * Gm, 1)) + (jnp.sum((F.T @ Gm) ** 2) - jnp.sum(jnp.sum(F * Gm, 1) ** 2)) / (
        37 * 36
    )
    assert abs(float(wrong) - float(C.estimator(F, Gm))) > 1e-3  # ‖FᵀG‖² is not Σ_ij (f_iᵀg_j)²


def test_population_loss_closed_form_vs_direct_expectation():
    g = G.barbell(4)
    t = 3
    F = np.random.default_rng(0).standard_normal((g.n, 3))
    P = np.linalg.matrix_power(D.lazy_walk(g), t)
    pi = D.stationary(g)
    K = F @ F.T
    direct = -2 * np.sum(pi[:, None] * P * K) + np.sum(pi[:, None] * pi[None, :] * K**2)
    assert C.population_loss(F, g, t) == pytest.approx(direct, rel=1e-10)
    nt = D.walk_kernel(g, t)
    assert C.embedding_error(F, g, t) ** 2 - np.sum(nt**2) == pytest.approx(direct, rel=1e-9)


@pytest.mark.parametrize("k", [1, 3, 8])
def test_closed_form_is_eckart_young(k):
    g = G.sbm(2, 4, 0.8, 0.2, 0)
    F, mu = C.closed_form_embedding(g, 4, k)
    assert C.population_loss(F, g, 4) == pytest.approx(-np.sum(mu[:k] ** 2), abs=1e-10)
    rng = np.random.default_rng(k)
    for _ in range(5):  # no random table does better
        assert C.population_loss(F + 0.05 * rng.standard_normal(F.shape), g, 4) >= -np.sum(mu[:k] ** 2) - 1e-12
    if k == g.n:
        np.testing.assert_allclose(F @ F.T, D.diffusion_similarity(g, 4), atol=1e-9)


def test_stub_sampling_draws_pi_and_walk_transitions():
    g = G.barbell(4)
    src, stubs = C.stub_owners(g)
    data = {"nbr": jnp.asarray(g.nbr), "deg": jnp.asarray(g.deg), "src": jnp.asarray(src), "stubs": stubs}
    x, xp = C.sample_pairs(jax.random.key(0), data, 2, 200_000)
    x, xp = np.asarray(x), np.asarray(xp)
    pi = D.stationary(g)
    np.testing.assert_allclose(np.bincount(x, minlength=g.n) / x.size, pi, atol=0.005)
    joint = np.zeros((g.n, g.n))
    np.add.at(joint, (x, xp), 1.0 / x.size)
    P2 = np.linalg.matrix_power(D.lazy_walk(g), 2)
    np.testing.assert_allclose(joint, pi[:, None] * P2, atol=0.005)


@pytest.mark.slow
def test_tiny_training_lowers_population_loss():
    g = G.sbm(2, 8, 0.6, 0.1, 1)
    (F,), losses = C.train([g], [4], t=2, steps=300, batch=128, seed=0)
    _, mu = C.closed_form_embedding(g, 2, 4)
    star = -np.sum(mu[:4] ** 2)
    assert F.shape == (16, 4) and losses.shape == (1, 300)
    assert (C.population_loss(F, g, 2) - star) / abs(star) < 0.1


@pytest.mark.slow
def test_masked_columns_never_move():
    """Runs of different k share one program: columns past k stay at init and never enter the loss."""
    g = G.cycle(10)
    (F2, F4), _ = C.train([g, g], [2, 4], t=2, steps=20, batch=32, seed=1, k_max=6)
    assert F2.shape == (10, 2) and F4.shape == (10, 4)


def test_bad_inputs():
    with pytest.raises(ConfigError, match="one k per graph"):
        C.train([G.cycle(5)], [2, 3], t=2, steps=2)
    with pytest.raises(ConfigError, match="edge stubs"):
        C.stub_owners(G.cycle(5), 3)
