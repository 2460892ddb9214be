"""S_t against a dense matrix power, its identities (symmetry, π-normalisation, χ²), and the spec's pitfalls."""

import numpy as np
import pytest
from jaxtyping import TypeCheckError

from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving import diffusion as D
from jaxpapers.selfplay_proving import graphs as G

GRAPHS = [G.barbell(5), G.watts_strogatz(40, 4, 0.3, 1), G.cycle(10), G.sbm(3, 8, 0.5, 0.05, 2)]


def _reference(g, t):
    A = G.dense_adjacency(g)
    P = 0.5 * (np.eye(g.n) + A / A.sum(1, keepdims=True))
    pi = A.sum(1) / A.sum()
    return np.linalg.matrix_power(P, t) / pi[None, :], P, pi


@pytest.mark.parametrize("g", GRAPHS)
@pytest.mark.parametrize("t", [1, 2, 4, 5])
def test_similarity_matches_dense_power(g, t):
    ref, P, pi = _reference(g, t)
    S = D.diffusion_similarity(g, t)
    np.testing.assert_allclose(S, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(S, S.T, atol=1e-10)  # reversibility
    np.testing.assert_allclose(S @ pi, 1.0, atol=1e-10)  # Σ_v π(v) s_t(u, v) = 1
    np.testing.assert_allclose(D.lazy_walk(g), P)
    assert np.linalg.eigvalsh(0.5 * (S + S.T)).min() > -1e-9  # PSD (lazy walk)
    np.testing.assert_allclose(np.sort(D.kernel_spectrum(g, t)), np.sort(np.linalg.eigvalsh(D.walk_kernel(g, t))),
                               atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("g", GRAPHS)
def test_chi2_identity_and_diversity_range(g, seed):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.full(g.n, 0.3))
    for t in (2, 4, 6):
        S = D.diffusion_similarity(g, t)
        assert D.similarity_form(q, S) == pytest.approx(D.chi2_form(q, g, t), rel=1e-10)
        assert 0 < D.diversity(q, S) <= 1 + 1e-12
    S = D.diffusion_similarity(g, 4)
    pi = D.stationary(g)
    assert D.diversity(pi, S) == pytest.approx(1.0, abs=1e-10)
    u = int(rng.integers(g.n))
    assert D.diversity(np.eye(g.n)[u], S) == pytest.approx(1 / S[u, u])


def test_non_lazy_walk_breaks_psd_on_bipartite_graphs():
    """Pitfall: with P instead of P_L on an even cycle P^t oscillates and S_t is not PSD (Div can exceed 1)."""
    g = G.cycle(8)
    A = G.dense_adjacency(g)
    pi = A.sum(1) / A.sum()
    S_plain = np.linalg.matrix_power(A / A.sum(1, keepdims=True), 3) / pi[None, :]
    assert np.linalg.eigvalsh(S_plain).min() < -0.1
    assert np.linalg.eigvalsh(D.diffusion_similarity(g, 3)).min() > -1e-12


def test_row_normalisation_breaks_symmetry_and_chi2():
    """Pitfall: normalising P_L^t by row sums instead of π is not symmetric on a non-regular graph."""
    g = G.barbell(4)
    P4 = np.linalg.matrix_power(D.lazy_walk(g), 4)
    wrong = P4 / P4.sum(0, keepdims=True)
    assert np.abs(wrong - wrong.T).max() > 1e-3
    S = D.diffusion_similarity(g, 4)
    q = np.random.default_rng(0).dirichlet(np.ones(g.n))
    assert abs(q @ wrong @ q - D.chi2_form(q, g, 4)) > 1e-3 and q @ S @ q == pytest.approx(D.chi2_form(q, g, 4))


def test_pooled_similarity_matches_dense_counts():
    g = GRAPHS[1]
    S = D.diffusion_similarity(g, 4)
    conj = np.array([[3, 3, 7, -1, 12], [-1, -1, -1, -1, 0]])
    out = D.pooled_similarity(conj, S)
    q = np.bincount([3, 3, 7, 12], minlength=g.n) / 4
    assert out[0] == pytest.approx(q @ S @ q) and out[1] == pytest.approx(S[0, 0])


def test_bad_inputs():
    S = D.diffusion_similarity(G.cycle(5), 2)
    with pytest.raises(ConfigError, match="probability vector"):
        D.diversity(np.ones(5), S)
    with pytest.raises((ConfigError, TypeCheckError)):  # the shape check (jaxtyping when its hook is on)
        D.diversity(np.ones(4) / 4, S)
    with pytest.raises(ConfigError, match="must be even"):
        D.chi2_form(np.ones(5) / 5, G.cycle(5), 3)
    with pytest.raises(ConfigError, match="not symmetric"):
        D.diffusion_similarity(np.triu(np.ones((4, 4)), 1), 2)
