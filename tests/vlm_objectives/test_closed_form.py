"""Closed forms against float64 NumPy re-implementations, their own linearised losses (stationarity,
optimum values, no better random perturbation), gradient descent from random inits, the gauge and
constraints, ties (spec Pitfalls), vmapped vs looped."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
import scipy.linalg

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import losses, metrics


def np_blocks(cov):
    return (np.asarray(a) for a in (cov.Sxx, cov.Syy, cov.Sxy))


def np_cca(cov, k):
    """CCA via scipy's generalized symmetric eigenproblem Sxy Syy^-1 Syx w = rho^2 Sxx w (independent route)."""
    sxx, syy, sxy = np_blocks(cov)
    w, vecs = scipy.linalg.eigh(sxy @ np.linalg.solve(syy, sxy.T), sxx)
    wx = vecs[:, ::-1][:, :k].T
    w2, vecs2 = scipy.linalg.eigh(sxy.T @ np.linalg.solve(sxx, sxy), syy)
    return wx, vecs2[:, ::-1][:, :k].T, np.sqrt(np.clip(w[::-1], 0, None))


def np_rrr(cov, k):
    """RRR via the OLS fit projected on the top-k principal directions of the fitted values."""
    sxx, syy, sxy = np_blocks(cov)
    b = np.linalg.solve(sxx, sxy).T  # (d_y, d_x) OLS
    fitted = b @ sxx @ b.T
    w, u = np.linalg.eigh(fitted)
    uk = u[:, ::-1][:, :k]
    return uk.T @ b, np.trace(syy) - np.sum(w[::-1][:k])  # encoder rows span, optimal loss


def angle(a, b):
    return float(metrics.max_angle(jnp.asarray(a), jnp.asarray(b)))


@pytest.mark.parametrize("key", [0, 1])
def test_cca_matches_scipy_generalized_eigenproblem(x64, key):
    cov = lm.random_joint_cov(jax.random.key(key), 5, 6)
    sol = jax.jit(cf.cca, static_argnums=1)(cov, 2)
    wx, wy, rho = np_cca(cov, 2)
    assert angle(sol.W_img, wx) < 1e-9 and angle(sol.W_txt, wy) < 1e-9
    np.testing.assert_allclose(sol.spectrum[:2], rho[:2], atol=1e-10)


def test_rrr_matches_the_projected_ols_fit(small_cov):
    sol = jax.jit(cf.generation_rrr, static_argnums=(1, 2))(small_cov, 2, "x2y")
    enc, best = np_rrr(small_cov, 2)
    assert angle(sol.W_img, enc) < 1e-9
    value = losses.generation_linearized({"E": sol.W_img, "D": sol.decoder}, small_cov)
    np.testing.assert_allclose(value, best, rtol=1e-12)


def solutions_and_losses(cov, k):
    """(name, params, loss fn, analytic optimum) for every closed form (traceable: no host conversions)."""
    phi2 = jnp.sum(cf.cca(cov, k).spectrum[:k] ** 2)
    out = []
    for tau in (0.05, 3.0):
        s = cf.clip_linear(cov, k, tau)
        out.append(
            (
                f"clip{tau}",
                {"W": s.W_img, "V": s.W_txt},
                lambda p, t=tau: losses.clip_linearized(p, cov, t),
                -0.5 * tau * phi2,
            )
        )
    for fin in (False, True):
        s = cf.siglip_linear(cov, k, 10.0, -8.0, 128, finite_n=fin)
        out.append(
            (
                f"siglip{fin}",
                {"W": s.W_img, "V": s.W_txt},
                lambda p, f=fin: losses.siglip_linearized(p, cov, 10.0, -8.0, 128, finite_n=f),
                None,
            )
        )
    for d in cf.DIRECTIONS:
        s = cf.jepa_l2(cov, k, d)
        ctx, tgt = (s.W_img, s.W_txt) if d == "x2y" else (s.W_txt, s.W_img)
        out.append(
            (
                f"jepa{d}",
                {"W": ctx, "P": s.predictor, "V": tgt},
                lambda p, d=d: losses.jepa_l2_linearized(p, cov, d),
                k - phi2,
            )
        )
        g = cf.generation_rrr(cov, k, d)
        enc = g.W_img if d == "x2y" else g.W_txt
        tt = jnp.trace(cov.Syy if d == "x2y" else cov.Sxx)
        out.append(
            (
                f"gen{d}",
                {"E": enc, "D": g.decoder},
                lambda p, d=d: losses.generation_linearized(p, cov, d),
                tt - jnp.sum(g.spectrum[:k] ** 2),
            )
        )
    return out


def test_closed_forms_are_stationary_with_the_analytic_optimum_and_beat_perturbations(small_cov):
    rng = np.random.default_rng(0)
    names = [name for name, *_ in solutions_and_losses(small_cov, 2)]
    bumps = rng.normal(size=(5, 64))

    @jax.jit
    def check(cov):
        out = {}
        for name, params, loss, _ in solutions_and_losses(cov, 2):
            value, grad = jax.value_and_grad(loss)(params)
            flat = jax.tree.leaves(params)
            bumped = []
            for b in bumps:
                offset, moved = 0, []
                for a in flat:
                    moved.append(a + 1e-3 * jnp.resize(b[offset : offset + a.size], a.shape))
                    offset = (offset + a.size) % 32
                bumped.append(loss(jax.tree.unflatten(jax.tree.structure(params), moved)))
            out[name] = (
                value,
                jnp.max(jnp.stack([jnp.abs(g).max() for g in jax.tree.leaves(grad)])),
                jnp.stack(bumped),
            )
        return out

    results = check(small_cov)
    optima = {name: optimum for name, _, _, optimum in solutions_and_losses(small_cov, 2)}
    for name in names:
        value, max_grad, bumped = results[name]
        assert float(max_grad) < 1e-10, name
        if optima[name] is not None:
            np.testing.assert_allclose(value, optima[name], rtol=1e-11, err_msg=name)
        assert float(jnp.min(bumped)) >= float(value) - 1e-12, name


def test_gradient_descent_on_the_linearised_clip_loss_reaches_cca(small_cov):
    """An independent check of the CLIP closed form: minimise its population loss from a random init."""
    k, tau = 2, 2.0
    params = {
        "W": 0.1 * jax.random.normal(jax.random.key(0), (k, 5), jnp.float64),
        "V": 0.1 * jax.random.normal(jax.random.key(1), (k, 6), jnp.float64),
    }
    tx = optax.adam(optax.cosine_decay_schedule(3e-2, 3000))
    loss = lambda p: losses.clip_linearized(p, small_cov, tau)

    @jax.jit
    def run(params):
        def body(carry, _):
            p, s = carry
            u, s = tx.update(jax.grad(loss)(p), s, p)
            return (optax.apply_updates(p, u), s), None

        return jax.lax.scan(body, (params, tx.init(params)), length=3000)[0][0]

    trained = run(params)
    ref = cf.cca(small_cov, k)
    assert float(metrics.subspace_distance(ref.W_img, trained["W"])) < 1e-8
    assert float(metrics.subspace_distance(ref.W_txt, trained["V"])) < 1e-8
    sol = cf.clip_linear(small_cov, k, tau)
    np.testing.assert_allclose(loss(trained), loss({"W": sol.W_img, "V": sol.W_txt}), rtol=1e-9)


def test_siglip_is_clip_at_the_effective_temperature(small_cov):
    t, b, n = 10.0, -10.0, 512
    sig = cf.siglip_linear(small_cov, 2, t, b, n)
    clip = cf.clip_linear(small_cov, 2, float(cf.siglip_effective_tau(t, b, n)))
    np.testing.assert_allclose(sig.W_img, clip.W_img, rtol=1e-10)
    jepa_nce = cf.jepa_infonce_linear(small_cov, 2, 0.3)  # VL-JEPA's InfoNCE: objective 1 with P = I
    np.testing.assert_allclose(jepa_nce.W_img, cf.clip_linear(small_cov, 2, 0.3).W_img, rtol=1e-12)
    np.testing.assert_allclose(jepa_nce.predictor, np.eye(2))
    np.testing.assert_allclose(float(cf.siglip_effective_tau(t, b, n)), 1 / (511 * 10 / (1 + np.exp(10))), rtol=1e-12)


def test_clip_balanced_gauge_and_product(small_cov):
    tau, k = 0.7, 2
    sol = cf.clip_linear(small_cov, k, tau)
    sxx, syy, _ = np_blocks(small_cov)
    aw = np.asarray(sol.W_img) @ scipy.linalg.sqrtm(sxx).real
    bw = np.asarray(sol.W_txt) @ scipy.linalg.sqrtm(syy).real
    c, _, _ = cf.whitened_cross(small_cov)
    u, s, vt = np.linalg.svd(np.asarray(c))
    np.testing.assert_allclose(aw.T @ bw, tau * (u[:, :k] * s[:k]) @ vt[:k], atol=1e-10)  # Aw^T Bw = tau [C]_k
    np.testing.assert_allclose(aw @ aw.T, bw @ bw.T, atol=1e-10)  # balanced


def test_jepa_target_is_whitened_and_prediction_is_the_regression(small_cov):
    sol = cf.jepa_l2(small_cov, 2, "x2y")
    sxx, syy, sxy = np_blocks(small_cov)
    v, w = np.asarray(sol.W_txt), np.asarray(sol.W_img)
    np.testing.assert_allclose(v @ syy @ v.T, np.eye(2), atol=1e-10)
    np.testing.assert_allclose(w, v @ sxy.T @ np.linalg.inv(sxx), atol=1e-10)


def test_tied_nuisance_correlations_keep_the_subspace_unique(contaminated):
    """Spec Pitfalls: tied nuisance values (0.9 three times) make individual directions arbitrary, but every
    alignment closed form still spans one subspace, and its distance to Ux is the staircase value k'/k."""
    cov = jax.jit(lm.planted_covariances)(contaminated, jax.random.key(0))
    ref = cf.cca(cov, 3)
    for name in ("clip", "siglip", "jepa_x2y", "jepa_y2x"):
        sol = cf.solve(name, cov, 3)
        assert angle(ref.W_img, sol.W_img) < 1e-8, name
    np.testing.assert_allclose(metrics.subspace_distance(cov.Ux.T, ref.W_img), 1.0, atol=1e-12)
    between = jax.jit(lm.planted_covariances)(contaminated.replace(nu=contaminated.nu * 0.82 / 0.9), jax.random.key(0))
    np.testing.assert_allclose(metrics.subspace_distance(between.Ux.T, cf.cca(between, 3).W_img), 2 / 3, atol=1e-12)


def test_vmapped_closed_forms_equal_a_loop(x64):
    covs = [lm.random_joint_cov(jax.random.key(i), 4, 5) for i in range(3)]
    batch = jax.tree.map(lambda *a: jnp.stack(a), *covs)
    got = jax.jit(jax.vmap(lambda c: cf.generation_rrr(c, 2, "y2x").W_txt))(batch)
    for i, c in enumerate(covs):
        np.testing.assert_allclose(got[i], cf.generation_rrr(c, 2, "y2x").W_txt, atol=1e-12)


def test_bad_arguments_raise_one_clear_error(small_cov):
    with pytest.raises(ConfigError, match=r"k=7 is out of range; allowed \[1, 5\]"):
        cf.cca(small_cov, 7)
    with pytest.raises(ConfigError, match=r"direction='x2x' is not allowed"):
        cf.jepa_l2(small_cov, 2, "x2x")
    with pytest.raises(ConfigError, match=r"n_batch=1 is out of range"):
        cf.siglip_linear(small_cov, 2, 1.0, 0.0, 1)
    with pytest.raises(ConfigError, match=r"objective='vicreg' is not allowed"):
        cf.solve("vicreg", small_cov, 2)
