"""Analytic spectra against numerical SVDs (float64 NumPy reference), the spec's preset numbers,
separation ratios and staircase thresholds against a brute-force count."""

import jax
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import spectra

from .conftest import preset


def inv_sqrt(s):
    w, u = np.linalg.eigh(s)
    return (u / np.sqrt(w)) @ u.T


def numerical(cov):
    sxx, syy, sxy = (np.asarray(a) for a in (cov.Sxx, cov.Syy, cov.Sxy))
    c = inv_sqrt(sxx) @ sxy @ inv_sqrt(syy)
    a = sxy.T @ inv_sqrt(sxx)
    a_rev = sxy @ inv_sqrt(syy)
    return [np.linalg.svd(m, compute_uv=False) for m in (c, a, a_rev)]


def analytic_full(s, r):
    out = []
    for sig, nui in (("rho", "nu"), ("tau", "xi"), ("tau_rev", "xi_rev")):
        vals = np.r_[np.asarray(s[sig]), np.asarray(s[nui])]
        out.append(np.sort(np.r_[vals, np.zeros(r - vals.size)])[::-1])
    return out


def test_spec_preset_numbers(contaminated):
    s = spectra.analytic_spectra(contaminated)
    np.testing.assert_allclose(s["rho"], [0.853, 0.792, 0.690], atol=6e-4)
    np.testing.assert_allclose(s["tau"], [2.176, 1.633, 1.091], atol=6e-4)
    np.testing.assert_allclose(s["tau_rev"], [2.451, 1.940, 1.423], atol=6e-4)
    np.testing.assert_allclose(s["xi"][:3], 0.45)
    np.testing.assert_allclose(s["xi_rev"][:3], 4.5)


@pytest.mark.parametrize("seed", range(3))
def test_analytic_spectra_equal_numerical_singular_values(x64, seed):
    p = lm.random_planted_params(jax.random.key(seed), 3, 5, 4)
    cov = jax.jit(lm.planted_covariances)(p, jax.random.key(100 + seed))
    for got, want in zip(numerical(cov), analytic_full(spectra.analytic_spectra(p), 7), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-10)


def test_separation_ratios_and_the_one_sided_bound(contaminated, clean):
    r = spectra.separation_ratios(contaminated)
    np.testing.assert_allclose(r["cca"], 0.69026849 / 0.9, rtol=1e-6)
    np.testing.assert_allclose(r["gen_x2y"], 1.09141031 / 0.45, rtol=1e-6)
    assert float(spectra.one_sided_bound(contaminated)) <= float(r["gen_x2y"])
    assert np.isinf(spectra.separation_ratios(clean)["cca"])


def brute_force_steps(p, method, nus):
    """Number of nuisance directions in the top-k of the analytic spectrum, by sorting, on a grid."""
    out = []
    all_spectra = jax.jit(jax.vmap(lambda v: spectra.analytic_spectra(spectra.with_common_nu(p, v))))(nus)
    for i in range(len(nus)):
        s = {n: np.asarray(a[i]) for n, a in all_spectra.items()}
        sig, nui = {"cca": ("rho", "nu"), "gen_x2y": ("tau", "xi"), "gen_y2x": ("tau_rev", "xi_rev")}[method]
        vals = np.r_[np.asarray(s[sig]), np.asarray(s[nui])]
        labels = np.r_[np.zeros(p.k), np.ones(p.m)]
        top = np.argsort(-vals, kind="stable")[: p.k]
        out.append(int(labels[top].sum()))
    return np.array(out)


@pytest.mark.parametrize("method", spectra.METHODS)
def test_staircase_thresholds_match_a_brute_force_count(x64, method):
    p = preset("contaminated", nu=(0.9, 0.9), gyn=[0.25] * 12 + [4.0], d_y=16)
    thresholds = np.asarray(spectra.staircase_thresholds(p, method))
    nus = np.linspace(0, 0.999, 400)
    steps = brute_force_steps(p, method, nus)
    for n in range(1, p.k + 1):
        predicted_count = (nus > thresholds[n - 1]).astype(int)
        assert np.all((steps >= n) == predicted_count.astype(bool)), (method, n)


def test_staircase_thresholds_of_the_spec(contaminated):
    np.testing.assert_allclose(spectra.staircase_thresholds(contaminated, "cca"), [0.690, 0.792, 0.853], atol=6e-4)
    np.testing.assert_allclose(spectra.staircase_thresholds(contaminated, "gen_y2x"), [0.285, 0.388, 0.490], atol=6e-4)
    assert np.all(np.asarray(spectra.staircase_thresholds(contaminated, "gen_x2y")) > 1)


def test_thresholds_are_infinite_without_enough_active_pairs(x64):
    p = preset("contaminated", nu=(0.9,))
    t = np.asarray(spectra.staircase_thresholds(p, "cca"))
    assert np.isfinite(t[0]) and np.all(np.isinf(t[1:]))


def test_unknown_method_is_rejected(contaminated):
    with pytest.raises(ConfigError, match=r"method='rrr' is not allowed; choose 'cca', 'gen_x2y' or 'gen_y2x'"):
        spectra.staircase_thresholds(contaminated, "rrr")
