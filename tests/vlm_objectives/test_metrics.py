"""Principal angles (scipy and exact constructions, tiny angles), distances, recall@k against brute
force, oracle scores against scipy's Gaussian log-density, probe R^2 against scikit-learn, JEPA
constrained objective."""

import jax
import jax.numpy as jnp
import jaxtyping
import numpy as np
import pytest
import scipy.linalg
import scipy.stats
from sklearn.linear_model import LinearRegression

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import losses, metrics


def test_principal_angles_match_scipy(x64):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 7)), rng.normal(size=(3, 7))
    got = np.sort(np.asarray(metrics.principal_angles(jnp.asarray(a), jnp.asarray(b))))
    np.testing.assert_allclose(got, np.sort(scipy.linalg.subspace_angles(a.T, b.T)), atol=1e-12)


def test_tiny_angles_keep_full_precision(x64):
    """Rotating one direction by 1e-9 rad: arccos of the cosine alone would give ~1e-8 (lost digits)."""
    theta = 1e-9
    q = np.linalg.qr(np.random.default_rng(1).normal(size=(6, 6)))[0]
    a = q[:, :2].T
    b = np.stack([q[:, 0], np.cos(theta) * q[:, 1] + np.sin(theta) * q[:, 2]])
    got = np.asarray(metrics.principal_angles(jnp.asarray(a), jnp.asarray(5.0 * b)))
    np.testing.assert_allclose(np.sort(got), [0.0, theta], atol=1e-15)


def test_ill_conditioned_encoders_are_orthonormalised_by_svd(x64):
    """Spec Pitfalls: nearly parallel rows (condition ~1e7) still give the exact row space."""
    q = np.linalg.qr(np.random.default_rng(2).normal(size=(5, 5)))[0]
    w = np.stack([q[:, 0], q[:, 0] + 1e-7 * q[:, 1]])
    assert float(metrics.max_angle(jnp.asarray(w), jnp.asarray(q[:, :2].T))) < 1e-8


def test_subspace_distance_endpoints_and_staircase_values(x64):
    eye = jnp.eye(6)
    assert float(metrics.subspace_distance(eye[:3], 7.0 * eye[:3])) == pytest.approx(0.0, abs=1e-15)
    assert float(metrics.subspace_distance(eye[:3], eye[3:])) == pytest.approx(1.0)
    assert float(metrics.subspace_distance(eye[:3], eye[1:4])) == pytest.approx(1 / 3)


def test_subspace_distance_matches_scipy_angles_including_tiny_and_unequal(x64):
    """Against ``scipy.linalg.subspace_angles`` (mean sin^2 over the min(Ka, Kb) angles): random pairs of
    equal and unequal dimension, scaled rows, and a planted tiny angle where ``1 - Σ cos^2`` would cancel."""
    import scipy.linalg

    rng = np.random.default_rng(3)
    for ka, kb in [(3, 3), (2, 4), (4, 1), (5, 5)]:
        a, b = rng.normal(size=(ka, 9)), rng.normal(size=(kb, 9)) * rng.uniform(0.1, 10, (kb, 1))
        want = np.mean(np.sin(scipy.linalg.subspace_angles(a.T, b.T)) ** 2)
        got = float(metrics.subspace_distance(jnp.asarray(a), jnp.asarray(b)))
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (ka, kb)
    q = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    theta = 1e-9
    a = q[:, :2].T
    b = np.stack([q[:, 0], np.cos(theta) * q[:, 1] + np.sin(theta) * q[:, 2]])
    got = float(metrics.subspace_distance(jnp.asarray(a), jnp.asarray(3.0 * b)))
    assert got == pytest.approx(np.sin(theta) ** 2 / 2, rel=1e-6)


def brute_recall(scores, positives, k):
    hits = 0
    for q in range(scores.shape[0]):
        order = np.argsort(-scores[q], kind="stable")
        pos = set(np.nonzero(positives[q])[0])
        rank = 0
        for j in order:
            if j in pos:
                break
            rank += 1
        hits += rank < k
    return hits / scores.shape[0]


@pytest.mark.parametrize("k", [1, 3])
def test_recall_at_k_matches_brute_force(k):
    rng = np.random.default_rng(3)
    s = rng.normal(size=(12, 12))
    np.testing.assert_allclose(metrics.recall_at_k(jnp.asarray(s), k), brute_recall(s, np.eye(12, dtype=bool), k))
    targets = rng.integers(0, 12, size=12)
    np.testing.assert_allclose(
        metrics.recall_at_k(jnp.asarray(s), k, targets=jnp.asarray(targets)), brute_recall(s, np.eye(12)[targets], k)
    )
    pos = rng.random((12, 12)) < 0.2
    pos[np.arange(12), rng.integers(0, 12, size=12)] = True
    np.testing.assert_allclose(
        metrics.recall_at_k(jnp.asarray(s), k, positives=jnp.asarray(pos)), brute_recall(s, pos, k)
    )


def test_recall_rejects_bad_shapes():
    # with shape checking on (jaxtyping's pytest hook) the annotation rejects it first
    with pytest.raises((ConfigError, jaxtyping.TypeCheckError), match=r"positives has shape \(2, 3\)|positives"):
        metrics.recall_at_k(jnp.zeros((4, 4)), 1, positives=jnp.zeros((2, 3), bool))


def test_oracle_scores_are_the_gaussian_conditional_log_density(small_cov):
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(5, 5)), rng.normal(size=(4, 6))
    got = np.asarray(metrics.oracle_scores(small_cov, jnp.asarray(y), jnp.asarray(x), "x2y"))
    sxx, syy, sxy = (np.asarray(a) for a in (small_cov.Sxx, small_cov.Syy, small_cov.Sxy))
    b = sxy.T @ np.linalg.inv(sxx)
    resid = syy - b @ sxy
    ref = np.array([[scipy.stats.multivariate_normal(b @ xj, resid).logpdf(yq) for xj in x] for yq in y])
    np.testing.assert_allclose(got - got[:, :1], ref - ref[:, :1], atol=1e-10)  # up to a per-query constant


def test_probe_r2_matches_scikit_learn(x64):
    rng = np.random.default_rng(5)
    z, z2 = rng.normal(size=(200, 4)), rng.normal(size=(100, 4))
    coef = rng.normal(size=(4, 3))
    s, s2 = z @ coef + rng.normal(size=(200, 3)), z2 @ coef + rng.normal(size=(100, 3))
    pred = LinearRegression().fit(z, s).predict(z2)
    want = 1 - ((s2 - pred) ** 2).sum() / ((s2 - s2.mean(0)) ** 2).sum()
    got = metrics.probe_r2(jnp.asarray(z), jnp.asarray(s), jnp.asarray(z2), jnp.asarray(s2), ridge=0.0)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_jepa_constrained_objective(small_cov):
    """At the closed form it is the optimum k - Σ phi^2; it is scale-invariant in the target encoder; the raw
    penalised objective of a shrunk target encoder sits *below* the constrained optimum (spec V2)."""
    sol = cf.jepa_l2(small_cov, 2, "x2y")
    phi = np.asarray(cf.cca(small_cov, 2).spectrum)
    optimum = 2 - np.sum(phi[:2] ** 2)
    value = metrics.jepa_constrained_objective(sol.W_img, sol.W_txt, small_cov, "x2y")
    np.testing.assert_allclose(value, optimum, rtol=1e-12)
    np.testing.assert_allclose(
        metrics.jepa_constrained_objective(sol.W_img, 3 * sol.W_txt, small_cov), optimum, rtol=1e-12
    )
    shrunk = {"W": 0.8 * sol.W_img, "P": sol.predictor, "V": 0.8 * sol.W_txt}
    assert float(losses.jepa_l2_penalized_linearized(shrunk, small_cov, 0.01)) < optimum
    rng = np.random.default_rng(6)
    for _ in range(3):
        w, v = jnp.asarray(rng.normal(size=(2, 5))), jnp.asarray(rng.normal(size=(2, 6)))
        assert float(metrics.jepa_constrained_objective(w, v, small_cov)) >= optimum - 1e-12


def test_objective_gap():
    np.testing.assert_allclose(metrics.objective_gap(jnp.array(1.02), jnp.array(1.0)), 0.02, rtol=1e-6)
    np.testing.assert_allclose(metrics.objective_gap(jnp.array(-0.9), jnp.array(-1.0)), 0.1, rtol=1e-6)


def test_finite_sample_spikes_bias_the_nuisance_correlations_upward(x64):
    """Spec Pitfalls: with gxn = 25 and finite n the top sample canonical correlations exceed the population's
    0.9 (so sample thresholds shift down and sample checks need the ±0.05 band)."""
    from .conftest import preset

    p = preset("contaminated")
    cov = jax.jit(lm.planted_covariances)(p, jax.random.key(0))
    tops = []
    for seed in range(3):
        scov = jax.jit(lm.cov_from_moments)(
            p, cov, jax.jit(lm.base_moments, static_argnums=2)(p, jax.random.key(seed), 2000)
        )
        tops.append(float(cf.cca(scov, 3).spectrum[0]))
    assert min(tops) > 0.9
