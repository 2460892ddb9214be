"""Each claim experiment's jitted computation at tiny size against an independent NumPy/SciPy float64
computation, the registry, the configs, and (marked ``claims``) each claim end to end at its tiny
preset with its expected verdict."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg

from jaxpapers.core import budgets, registry, sim, verify
from jaxpapers.core import config as config_lib
from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import spectra
from jaxpapers.vlm_objectives.config import ModelConfig
from jaxpapers.vlm_objectives.experiments import (
    v1_closed_forms,
    v2_trained,
    v3_staircase,
    v4_one_sided,
    v5_retrieval,
    v6_nonlinear,
)
from jaxpapers.vlm_objectives.models import ObjectiveModel
from jaxpapers.vlm_objectives.train import init_params

from .conftest import preset

SPEC_IDS = [
    "V1-cca-equivalence",
    "V2a-trained-clean",
    "V2b-trained-contaminated",
    "V3-phase-staircase",
    "V4-one-sided-condition",
    "V5-retrieval-jepa",
    "V6-nonlinear-real",
]
CONFIGS = ["closed_forms", "train_linear", "staircase", "one_sided", "retrieval", "nonlinear"]
# Verdicts at the tiny preset (the sizes of unit tests): V2's 20 steps cannot converge, V3's 12-point
# nu grid (step 0.09) cannot place a step within 0.01, V4's 40 draws hold fewer than 200
# signal-dominated ones, V6 is report-only outside the full preset.
TINY_VERDICTS = {
    "V1-cca-equivalence": "pass",
    "V2a-trained-clean": "fail",
    "V2b-trained-contaminated": "fail",
    "V3-phase-staircase": "fail",
    "V4-one-sided-condition": "fail",
    "V5-retrieval-jepa": "pass",
    "V6-nonlinear-real": "report",
}


# -------------------------------------------------------------------------------- NumPy references
def np_inv_sqrt(s):
    w, u = np.linalg.eigh(s)
    return (u * w**-0.5) @ u.T


def np_cca(sxx, syy, sxy, k):
    """CCA encoders (k, d) of both sides and the canonical correlations, in NumPy."""
    xm, ym = np_inv_sqrt(sxx), np_inv_sqrt(syy)
    u, phi, vt = np.linalg.svd(xm @ sxy @ ym)
    return u[:, :k].T @ xm, vt[:k] @ ym, phi


def np_rrr(sxx, syy, sxy, k, direction):
    """The reduced-rank-regression encoder (k, d of the source side) in NumPy."""
    if direction == "x2y":
        xm = np_inv_sqrt(sxx)
        return np.linalg.svd(sxy.T @ xm)[2][:k] @ xm
    ym = np_inv_sqrt(syy)
    return np.linalg.svd(sxy @ ym)[2][:k] @ ym


def np_distance(a, b):
    """Mean sin^2 of the principal angles between the row spaces (SciPy)."""
    return float(np.mean(np.sin(scipy.linalg.subspace_angles(np.asarray(a).T, np.asarray(b).T)) ** 2))


def cov_arrays(cov, i=None):
    pick = (lambda a: np.asarray(a)) if i is None else (lambda a: np.asarray(a[i]))
    return pick(cov.Sxx), pick(cov.Syy), pick(cov.Sxy)


# -------------------------------------------------------------------------------- registry, configs
def test_claim_ids_are_the_spec_rows():
    claims = registry.claims_of("vlm_objectives")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.budget_s["quick"] <= budgets.OVER_HARD_LIMIT.get(c.id, (60,))[0] for c in claims)
    assert sum(c.budget_s["quick"] for c in claims) <= budgets.budget("vlm_objectives").verify_s


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("preset_name", ["tiny", "quick", "full"])
def test_configs_load_for_every_preset(name, preset_name):
    cfg = config_lib.load(f"vlm_objectives/{name}", f"preset={preset_name}")
    assert cfg.preset == preset_name


def test_bad_config_arguments():
    with pytest.raises(ConfigError, match=r"variant='dirty' is not allowed; choose 'clean' or 'contaminated'"):
        config_lib.load("vlm_objectives/train_linear", "variant=dirty")
    with pytest.raises(ConfigError, match=r"preset='huge' is not allowed"):
        config_lib.load("vlm_objectives/staircase", "preset=huge")
    with pytest.raises(ConfigError, match=r"config field 'staircase.num_points' does not exist"):
        config_lib.load("vlm_objectives/staircase", overrides=["staircase.num_points=3"])


def test_v2_judging_seeds_are_five_fresh_draws():
    """Issue 12: V2 is judged on the worst of 5 seeds that were never used to choose its schedule."""
    cfg = config_lib.load("vlm_objectives/train_linear", "preset=quick")
    assert cfg.train_linear.seeds == 5 and cfg.seed not in (0, 1)


# -------------------------------------------------------------------------------- V1
def test_v1_sweep_against_numpy(x64):
    """Generation-vs-CCA distances and CLIP's angle, optimum value and gradient, from NumPy/SciPy."""
    grid = v1_closed_forms.AlignmentGrid(k=2, clip_taus=(0.5,), siglip_ts=(10.0,), siglip_ns=(64,), siglip_bs=(None,))
    out = v1_closed_forms.random_sweep(grid, 2, 4, 5, None)(jax.random.key(3))
    covs = jax.vmap(lambda kk: lm.random_joint_cov(kk, 4, 5))(jax.random.split(jax.random.key(3), 2))
    for i in range(2):
        sxx, syy, sxy = cov_arrays(covs, i)
        w_cca, v_cca, phi = np_cca(sxx, syy, sxy, 2)
        gen = [np_distance(w_cca, np_rrr(sxx, syy, sxy, 2, "x2y")), np_distance(v_cca, np_rrr(sxx, syy, sxy, 2, "y2x"))]
        np.testing.assert_allclose(out["gen"][0][i], gen, rtol=1e-7, atol=1e-12)
        sol = cf.clip_linear(lm.Cov(Sxx=jnp.asarray(sxx), Syy=jnp.asarray(syy), Sxy=jnp.asarray(sxy)), 2, 0.5)
        w, v = np.asarray(sol.W_img), np.asarray(sol.W_txt)
        value = -np.trace(w @ sxy @ v.T) + np.trace(w @ sxx @ w.T @ v @ syy @ v.T) / (2 * 0.5)
        optimum = -0.5 * 0.5 * np.sum(phi[:2] ** 2)
        grad_w = -v @ sxy.T + (v @ syy @ v.T) @ w @ sxx / 0.5  # d/dW of the loss above
        assert abs(value - optimum) / abs(optimum) < 1e-10 and float(out["clip"][2][i, 0]) < 1e-10
        assert np.max(np.abs(grad_w)) < 1e-9 and float(out["clip"][1][i, 0]) < 1e-9
        assert np.max(scipy.linalg.subspace_angles(w.T, w_cca.T)) < 1e-6 and float(out["clip"][0][i, 0]) < 1e-6


# -------------------------------------------------------------------------------- V2
def test_v2_evaluator_against_numpy(x64):
    """Distances of arbitrary (not converged) encoders to the NumPy closed form of the same covariance."""
    p = preset("contaminated", k=2, d_x=5, d_y=4, kappa=(2.0, 1.5), nu=(0.9, 0.9))
    cov = lm.planted_covariances(p, jax.random.key(0))
    x, y, _ = lm.sample_pairs(p, cov, jax.random.key(1), 300)
    xn, yn = np.asarray(x) - np.asarray(x).mean(0), np.asarray(y) - np.asarray(y).mean(0)
    sxx, syy, sxy = xn.T @ xn / 300, yn.T @ yn / 300, xn.T @ yn / 300
    scov = lm.Cov(Sxx=jnp.asarray(sxx), Syy=jnp.asarray(syy), Sxy=jnp.asarray(sxy))
    rng = np.random.default_rng(0)
    w, v = rng.normal(size=(2, 5)), rng.normal(size=(2, 4))
    evaluate = jax.jit(v2_trained.evaluate_encoders, static_argnums=(1, 2))
    w_cca, v_cca, _ = np_cca(sxx, syy, sxy, 2)
    ev = evaluate({"W_img": jnp.asarray(w), "W_txt": jnp.asarray(v)}, "clip", 2, scov, cov.Ux, cov.Uy)
    np.testing.assert_allclose(ev["distance_img"], np_distance(w_cca, w), rtol=1e-9)
    np.testing.assert_allclose(ev["distance_txt"], np_distance(v_cca, v), rtol=1e-9)
    np.testing.assert_allclose(ev["distance_img_to_signal"], np_distance(np.asarray(cov.Ux).T, w), rtol=1e-9)
    ev = evaluate({"W_img": jnp.asarray(w), "decoder": jnp.zeros((4, 2))}, "gen_x2y", 2, scov, cov.Ux, cov.Uy)
    np.testing.assert_allclose(ev["distance_img"], np_distance(np_rrr(sxx, syy, sxy, 2, "x2y"), w), rtol=1e-9)


def test_v2_evaluator_on_exact_closed_forms(x64):
    """Feeding the closed forms themselves as 'trained' encoders gives zero distance and zero JEPA gap."""
    p = preset("clean", k=2, d_x=5, d_y=4, kappa=(2.0, 1.5))
    cov = lm.planted_covariances(p, jax.random.key(0))
    sol = cf.jepa_l2(cov, 2, "x2y")
    params = {  # Dense kernels are (in, out): W = kernel^T; context W with identity predictor
        "img": {"proj": {"kernel": sol.W_img.T[None]}},
        "txt": {"proj": {"kernel": sol.W_txt.T[None]}},
        "predictor": {"P": {"kernel": jnp.eye(2)[None]}},
    }
    batch = jax.tree.map(lambda a: a[None], params)
    covs = jax.tree.map(lambda a: a[None], lm.Cov(Sxx=cov.Sxx, Syy=cov.Syy, Sxy=cov.Sxy))
    ev = v2_trained.snapshot_evaluator("jepa_x2y", 2)(batch, covs, cov.Ux[None], cov.Uy[None])
    assert float(ev["distance_img"][0, 0]) < 1e-12 and abs(float(ev["jepa_gap"][0, 0])) < 1e-12


# -------------------------------------------------------------------------------- V3
def test_first_crossings():
    nu = np.linspace(0, 1, 11)
    d = np.array([0, 0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1, 1, 1])
    np.testing.assert_allclose(v3_staircase.first_crossings(nu, d, 3), [0.3, 0.5, 0.8])
    assert np.isnan(v3_staircase.first_crossings(nu, np.zeros(11), 2)).all()


def test_v3_sweep_against_numpy(contaminated):
    """Population and n-sample staircase distances from NumPy closed forms on the same covariances
    (the sample covariance from the sampled pairs themselves) and SciPy's principal angles."""
    nus = np.array([0.2, 0.3, 0.75, 0.95])
    (pop, smp), thresholds = v3_staircase.staircase_sweep(3, 500, None)(
        contaminated, jnp.asarray(nus), jax.random.key(0)
    )
    k_rot, k_sample = jax.random.split(jax.random.key(0))
    for i, v in enumerate(nus):
        p = spectra.with_common_nu(contaminated, v)
        cov = lm.planted_covariances(p, k_rot)
        ux, uy = np.asarray(cov.Ux).T, np.asarray(cov.Uy).T
        x, y, _ = lm.sample_pairs(p, cov, k_sample, 500)
        xn, yn = np.asarray(x) - np.asarray(x).mean(0), np.asarray(y) - np.asarray(y).mean(0)
        for got, (sxx, syy, sxy) in (
            (pop, cov_arrays(cov)),
            (smp, (xn.T @ xn / 500, yn.T @ yn / 500, xn.T @ yn / 500)),
        ):
            want = {
                "cca": np_distance(ux, np_cca(sxx, syy, sxy, 3)[0]),
                "captioning": np_distance(ux, np_rrr(sxx, syy, sxy, 3, "x2y")),
                "gen_t2i": np_distance(uy, np_rrr(sxx, syy, sxy, 3, "y2x")),
            }
            for name, value in want.items():
                np.testing.assert_allclose(got[name][i], value, atol=1e-9)
    np.testing.assert_allclose(pop["cca"], [0, 0, 1 / 3, 1], atol=1e-10)
    np.testing.assert_allclose(pop["gen_t2i"], [0, 1 / 3, 1, 1], atol=1e-10)
    np.testing.assert_allclose(thresholds["cca"], spectra.staircase_thresholds(contaminated, "cca"))


def test_sweeps_compile_once_per_shape(contaminated):
    """Spec Pitfalls (CPU timing): a sweep is one compiled computation, reused for new values."""
    run = v3_staircase.staircase_sweep(3, 200, None)
    for nus in ([0.1, 0.5], [0.2, 0.6]):
        run(contaminated, jnp.asarray(nus), jax.random.key(0))
    assert run._cache_size() == 1
    assert sim.fast_compile_options()["xla_backend_optimization_level"] == 0  # CPU: compile-time tuned


# -------------------------------------------------------------------------------- V4
def test_v4_sweep_against_numpy(x64):
    """Separation ratios from NumPy SVDs of the whitened blocks, and the analytic spectra."""
    ranges = (("kappa2_range", (0.5, 10.0)), ("gs_range", (0.05, 4.0)), ("gn_range", (0.02, 10.0)))
    run = v4_one_sided.one_sided_sweep(2, 3, 2, ranges, None)
    kp, kr = jax.random.split(jax.random.key(1), 2), jax.random.split(jax.random.key(2), 2)
    out = run(kp, kr, jnp.array([False, True]))
    for i in range(2):
        if i == 0:
            p = lm.random_planted_params(kp[i], 2, 3, 2, **dict(ranges))
        else:
            p = v4_one_sided.uniform_planted_params(kp[i], 2, 3, 2)
        cov = lm.planted_covariances(p, kr[i])
        sxx, syy, sxy = cov_arrays(cov)
        xm, ym = np_inv_sqrt(sxx), np_inv_sqrt(syy)
        c, a = xm @ sxy @ ym, sxy.T @ xm
        qx, qy = np.asarray(cov.Qx), np.asarray(cov.Qy)
        sx, sy, nx, ny = qx[:, :2], qy[:, :2], qx[:, 2:4], qy[:, 2:4]
        sv = lambda m: np.linalg.svd(m, compute_uv=False)  # noqa: E731
        delta_cca = sv(sx.T @ c @ sy).min() / sv(nx.T @ c @ ny).max()
        delta_gen = sv(sy.T @ a @ sx).min() / sv(ny.T @ a @ nx).max()
        np.testing.assert_allclose(out["delta_cca"][i], delta_cca, rtol=1e-9)
        np.testing.assert_allclose(out["delta_gen"][i], delta_gen, rtol=1e-9)
        s = spectra.analytic_spectra(p)
        want = np.sort(np.r_[np.asarray(s["rho"]), np.asarray(s["nu"])])[::-1]
        np.testing.assert_allclose(sv(c)[: want.size], want, atol=1e-10)
        assert float(out["spectrum_err"][i]) < 1e-10
    assert float(out["uniform_ratio_err"][1]) < 1e-10


def test_v4_measurement_at_tiny():
    cfg = config_lib.load("vlm_objectives/one_sided", "preset=tiny")
    with jax.enable_x64(True):
        m = v4_one_sided.measure(cfg, jax.random.key(0))
    assert isinstance(m, Measurement)
    assert m.measured["bound_violations"] == 0 and m.measured["spectrum_max_abs_err"] < 1e-8
    assert not any(isinstance(v, str) for v in m.predicted.values())


# -------------------------------------------------------------------------------- V5
def test_v5_gallery_recalls_against_numpy(x64):
    """R@1 of CLIP (cosine), JEPA x→y (l2) and the Bayes oracle by brute-force NumPy ranking."""
    p = preset("clean", k=2, d_x=5, d_y=4, kappa=(2.0, 1.5))
    cov = lm.planted_covariances(p, jax.random.key(0))
    sols = v5_retrieval.solutions(cov, 2, (1.0, 10.0, -10.0, 64))
    out = jax.jit(v5_retrieval.gallery_recalls, static_argnums=4)(p, cov, sols, jax.random.key(5), 60)
    x, y, _ = (np.asarray(a) for a in lm.sample_pairs(p, cov, jax.random.key(5), 60))

    def r1_text_queries(scores):  # scores[i, j]: image i, text j; text j's partner is image j
        return np.mean(np.argmax(scores, axis=0) == np.arange(scores.shape[1]))

    f, g = x @ np.asarray(sols["clip"].W_img).T, y @ np.asarray(sols["clip"].W_txt).T
    cos = (f / np.linalg.norm(f, axis=1, keepdims=True)) @ (g / np.linalg.norm(g, axis=1, keepdims=True)).T
    np.testing.assert_allclose(out["t2i/clip_cos"], r1_text_queries(cos))
    j = sols["jepa_x2y"]
    pred, tgt = x @ (np.asarray(j.predictor) @ np.asarray(j.W_img)).T, y @ np.asarray(j.W_txt).T
    l2 = -np.sum((pred[:, None, :] - tgt[None, :, :]) ** 2, -1)
    np.testing.assert_allclose(out["t2i/jepa_x2y"], r1_text_queries(l2))
    sxx, syy, sxy = cov_arrays(cov)
    b = np.linalg.solve(sxx, sxy)  # E[y | x] = b^T x
    prec = np.linalg.inv(syy - sxy.T @ b)
    resid = y[None, :, :] - (x @ b)[:, None, :]
    oracle = -0.5 * np.einsum("ije,ef,ijf->ij", resid, prec, resid)  # log p(y_j | x_i) up to a constant
    np.testing.assert_allclose(out["t2i/oracle"], r1_text_queries(oracle))


# -------------------------------------------------------------------------------- V6
def test_v6_probe_against_numpy_least_squares():
    """The held-out probe R^2 of the towers' embeddings, by NumPy least squares with an intercept."""
    model = ObjectiveModel(ModelConfig(objective="clip", k=2, d_x=5, d_y=4, tower="mlp", hidden=6))
    keys = jax.random.split(jax.random.key(0), 2)
    params = jax.vmap(lambda kk: init_params(model, kk, 5, 4))(keys)
    rng = np.random.default_rng(0)
    x_fit, x_test = rng.normal(size=(80, 5)).astype(np.float32), rng.normal(size=(40, 5)).astype(np.float32)
    s_fit, s_test = rng.normal(size=(80, 3)).astype(np.float32), rng.normal(size=(40, 3)).astype(np.float32)
    s_fit += x_fit[:, :3]
    s_test += x_test[:, :3]
    r2 = v6_nonlinear.probe_sweep(model, "image")(params, x_fit, s_fit, x_test, s_test)
    for i in range(2):
        one = jax.tree.map(lambda a, i=i: a[i], params)
        embed = lambda z, one=one: np.asarray(model.apply({"params": one}, z, method="encode_image"), np.float64)  # noqa: E731
        z_fit, z_test = embed(x_fit), embed(x_test)
        design = np.c_[z_fit, np.ones(len(z_fit))]
        coef = np.linalg.lstsq(design, s_fit, rcond=None)[0]
        pred = np.c_[z_test, np.ones(len(z_test))] @ coef
        want = 1 - np.sum((s_test - pred) ** 2) / np.sum((s_test - s_test.mean(0)) ** 2)
        np.testing.assert_allclose(r2[i], want, rtol=1e-3, atol=1e-4)


def test_v6_summary_reads_the_criterion_inputs():
    measured = {
        "planted_clean/clip": 0.8,
        "planted_clean/siglip": 0.75,
        "planted_contaminated/clip": 0.3,
        "planted_contaminated/siglip": 0.2,
        "planted_contaminated/gen_x2y": 0.5,
    }
    s = v6_nonlinear.summary(measured)
    assert s == pytest.approx({"planted_clean_min_r2": 0.75, "planted_captioning_margin": 0.2})


# -------------------------------------------------------------------------------- claims at tiny
def test_v1_grid_from_config():
    cfg = config_lib.load("vlm_objectives/closed_forms", "preset=quick")
    grid = v1_closed_forms.grid_from_config(cfg.closed_forms)
    assert grid.siglip_bs == (-10.0, None) and len(grid.siglip_variants()) == 8
    assert dataclasses.replace(grid, k=2).k == 2


@pytest.mark.claims
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_gives_its_expected_verdict_at_the_tiny_preset(name):
    (claim,) = registry.select([f"vlm_objectives/{name}"])
    result = verify.run_claim(claim, "tiny")
    assert result.verdict == TINY_VERDICTS[name], result.error or result.reason
    assert isinstance(result.measured, str) and result.measured
