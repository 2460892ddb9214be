"""Bound functions against SciPy/NumPy float64 references, brute force and the δ-leaky RR validity test."""

import itertools

import jax
import numpy as np
import pytest
from scipy import stats

from jaxpapers.core.errors import ConfigError, PrecisionError
from jaxpapers.dp_bounds import bounds as B
from jaxpapers.dp_bounds import tradeoff as T


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def np_eps_delta(e, d, a):
    return np.maximum(0, np.maximum(1 - d - np.exp(e) * a, np.exp(-e) * (1 - d - a)))


@pytest.mark.parametrize("e,d,k", [(1.0, 0.0, 0.1), (2.0, 1e-5, 0.05), (0.3, 1e-3, 0.7), (5.0, 0.0, 1e-4)])
def test_rero_eps_delta_matches_formula(e, d, k):
    ref = min(1.0, np.exp(e) * k + d, 1 - np.exp(-e) * (1 - d - k))
    assert float(B.rero_bound(T.eps_delta_tradeoff(e, d), k)) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("mu,k", [(1.0, 0.01), (2.0, 1e-3), (0.5, 0.3), (6.0, 1e-9)])
def test_rero_gdp_matches_scipy(mu, k):
    ref = stats.norm.cdf(stats.norm.ppf(k) + mu)
    assert float(B.rero_bound(T.gdp_tradeoff(mu), k)) == pytest.approx(ref, rel=1e-9)
    # 1 − G_μ(κ) is the same number
    assert 1 - float(T.gdp_tradeoff(mu)(k)) == pytest.approx(ref, abs=1e-8)  # 1 − G loses digits at tiny κ


def test_posterior_bound_and_ordering():
    assert float(B.bayes_posterior_bound(0.1, 1.0)) == pytest.approx(0.231969, abs=1e-6)
    k = np.linspace(0.001, 0.999, 50)
    for e in (0.1, 1.0, 3.0):
        g = np.asarray(B.bayes_posterior_bound(k, e))
        assert np.all(g <= np.asarray(B.rero_bound(T.eps_delta_tradeoff(e), k)) + 1e-12)
    assert float(B.bayes_posterior_bound(0.1, 800.0)) == pytest.approx(1.0)  # no overflow at large ε


def test_mi_accuracy_exact_minimum():
    for e, d in [(1.0, 0.0), (0.5, 1e-3), (3.0, 1e-5)]:
        a = np.linspace(0, 1, 200001)
        brute = 1 - np.min(a + np_eps_delta(e, d, a)) / 2
        got = float(B.mi_accuracy_bound(T.eps_delta_tradeoff(e, d)))
        assert got >= brute - 1e-12 and got == pytest.approx(brute, abs=1e-5)
    assert float(B.mi_accuracy_bound(T.eps_delta_tradeoff(1.0))) == pytest.approx(np.e / (1 + np.e), abs=1e-12)
    assert float(B.mi_accuracy_bound(T.gdp_tradeoff(1.0))) == pytest.approx(stats.norm.cdf(0.5))
    # a profile: the exact minimum of the max of many curves
    p = T.gdp_profile(1.0)
    a = np.linspace(0, 1, 200001)
    brute = 1 - np.min(a + np.asarray(p(a))) / 2
    assert float(B.mi_accuracy_bound(p)) == pytest.approx(brute, abs=1e-6)
    assert float(B.mi_tpr_bound(T.eps_delta_tradeoff(1.0), 0.1)) == pytest.approx(0.271828, abs=1e-6)


def test_gaussian_profile_matches_scipy_and_curve_is_below_gmu():
    for mu in (0.5, 1.0, 2.0, 4.0):
        e = np.array([0.0, 0.5, 3.0, 20.0])
        ref = stats.norm.cdf(-e / mu + mu / 2) - np.exp(e) * stats.norm.cdf(-e / mu - mu / 2)
        np.testing.assert_allclose(np.asarray(T.gaussian_profile(mu, e)), np.clip(ref, 0, 1), atol=1e-12)
        a = np.linspace(0, 1, 5001)
        d = np.asarray(T.gdp_profile(mu)(a)) - np.asarray(T.gdp_tradeoff(mu)(a))
        assert d.max() <= 1e-12 and np.abs(d).max() < 3e-4  # 2.8e-4 at μ = 4 on a fine a-grid
    # a uniform grid is much worse at μ = 0.5 (why the grid is dense near 0)
    g = np.linspace(0, 50, 200)
    dd = np.asarray(T.tradeoff_from_profile(g, T.gaussian_profile(0.5, g))(a)) - np.asarray(T.gdp_tradeoff(0.5)(a))
    assert np.abs(dd).max() > 1e-3
    assert T.gdp_eps_for_delta(T.gdp_mu_for_eps(1.0, 1e-5), 1e-5) == pytest.approx(1.0, abs=1e-6)


def test_poisson_binomial_against_brute_force():
    p = np.array([0.1, 0.5, 0.9, 0.33, 0.01, 0.7, 0.25])
    ref = np.zeros(len(p) + 1)
    for bits in itertools.product([0, 1], repeat=len(p)):
        b = np.array(bits)
        ref[b.sum()] += np.prod(np.where(b, p, 1 - p))
    np.testing.assert_allclose(np.asarray(B.poisson_binomial_pmf(p)), ref, atol=1e-14)
    np.testing.assert_allclose(np.asarray(B.poisson_binomial_tail(p)), ref[::-1].cumsum()[::-1], atol=1e-14)


def test_tail_bound_pure_and_caps():
    kap = np.full(100, 0.1)
    gam = float(B.bayes_posterior_bound(0.1, 2.0))
    np.testing.assert_allclose(
        np.asarray(B.multi_tail_bound((2.0, 0.0), kap)), stats.binom.sf(np.arange(101) - 1, 100, gam), atol=1e-10
    )
    assert [int(B.high_prob_cap((e, 0.0), kap, 0.01)) for e in (0.5, 1, 2, 4)] == [24, 33, 57, 93]
    assert int(B.high_prob_cap((1.0, 0.0), np.full(100, 0.01), 0.05)) == 6
    assert B.group_privacy_cap(100, 0.01, 1.0, 0.05) == 35
    assert B.markov_cap(100 * float(B.rero_bound(T.eps_delta_tradeoff(1.0), 0.01)), 0.05) == 54
    assert float(B.multi_tail_bound((1.0, 0.0), kap, t=500)) == 0.0


def test_delta_leaky_rr_validity():
    """δ-leaky k-RR (release the secret w.p. δ, else k-RR): the exact law of K lies below B3 for every t."""
    m, k, e, d = 100, 10, 2.0, 1e-4
    gam = np.exp(e) / (np.exp(e) + k - 1)
    exact_tail = stats.binom.sf(np.arange(m + 1) - 1, m, gam + d * (1 - gam))
    bound = np.asarray(B.multi_tail_bound((e, d), np.full(m, 1.0 / k)))
    assert np.all(exact_tail <= bound + 1e-12)
    # the δ term is never dropped: it is Σ δ/(1 − κ + e^ε κ) at the far tail
    assert bound[-1] == pytest.approx(m * d / (1 - 0.1 + np.exp(e) * 0.1), rel=1e-9)


def test_profile_min_over_grid_is_at_most_each_point():
    kap = np.full(20, 0.05)
    grid, dl = np.array([0.5, 1.0, 2.0]), np.array([1e-2, 1e-4, 1e-7])
    full = np.asarray(B.multi_tail_bound(T.tradeoff_from_profile(grid, dl), kap))
    for e, d in zip(grid, dl, strict=True):
        assert np.all(full <= np.asarray(B.multi_tail_bound((e, d), kap)) + 1e-15)


def test_bad_inputs_raise_one_clear_error():
    with pytest.raises(ConfigError, match="kappa"):
        B.rero_bound(T.eps_delta_tradeoff(1.0), 1.5)
    with pytest.raises(ConfigError, match="f=float"):
        B.rero_bound(1.0, 0.1)
    with pytest.raises(ConfigError, match="eps_grid and deltas"):
        T.tradeoff_from_profile([0.0, 1.0], [0.1])
    with pytest.raises(ConfigError, match="beta"):
        B.high_prob_cap((1.0, 0.0), np.full(3, 0.1), 1.5)
    with pytest.raises(ConfigError, match="profile=str"):
        B.multi_tail_bound("eps", np.full(3, 0.1))
    with pytest.raises(ConfigError, match="mu"):
        T.gdp_tradeoff(-1.0)


def test_float32_is_refused():
    with jax.enable_x64(False), pytest.raises(PrecisionError, match="float64"):
        B.rero_bound(T.Profile(np.zeros(1), np.zeros(1)), 0.1)


def test_study_bounds_read_the_replace_one_profile_for_b3():
    """Spec Pitfall "mixing the relations up makes B3 invalid": the setting-A study's B3 caps come from the
    replace-one PLD profile (equal to ``high_prob_cap`` of ``dpsgd_profile(..., "replace_one")``), B2 from the
    add/remove one, and the replace-one cap is the larger, so a B3 built from add/remove shows; setting B's
    replace-one μ is s_replace / σ with σ calibrated on the add/remove sensitivity."""
    from jaxpapers.dp_bounds import accounting, marginals, studies

    q, sigma, steps, m = 0.25, 9.5, 100, 32  # the quick preset's DP-SGD at ε = 1 (attacks config)
    acct = dict(truncated_batch_size=32, dataset_size=64, discretization=1e-3)
    grid = T.default_eps_grid()
    f_add, prof_rep = studies.lm_profiles(q, sigma, steps, grid, **acct)
    with jax.enable_x64(True):
        for prof, rel in ((f_add, "add_remove"), (prof_rep, "replace_one")):
            want = accounting.dpsgd_profile(q, sigma, steps, grid, rel, **acct)
            np.testing.assert_allclose(np.asarray(prof.delta), want[1], rtol=0, atol=0)
            assert prof.delta.dtype == np.float64
        gaps = []
        for kappa in (0.04, 0.2):
            row = studies.bound_rows(kappa, m, f_add, prof_rep, 0.01, 0.05)
            kap = jax.numpy.full(m, kappa)
            assert row["cap"] == int(B.high_prob_cap(prof_rep, kap, 0.01))
            assert row["cap_add_remove"] == int(B.high_prob_cap(f_add, kap, 0.01))
            assert row["B1"] == pytest.approx(float(B.rero_bound(f_add, kappa)))
            gaps.append(row["cap"] - row["cap_add_remove"])
    assert min(gaps) > 0, gaps
    s_add, s_rep = marginals.sensitivities(12, 6)
    sg, mu_add, mu_rep = studies.tabular_mus(1.0, 1e-5, s_add, s_rep)
    assert mu_add == pytest.approx(T.gdp_mu_for_eps(1.0, 1e-5)) and sg == pytest.approx(s_add / mu_add)
    assert mu_rep == pytest.approx(mu_add * s_rep / s_add) and mu_rep > mu_add
    assert studies.tabular_mus(float("inf"), 1e-5, s_add, s_rep) == (0.0, float("inf"), float("inf"))
