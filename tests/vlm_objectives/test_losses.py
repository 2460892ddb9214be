"""Exact losses against NumPy brute force, the custom softplus derivative, the Gaussian fourth-moment
formula behind SigLIP's finite-N term, and the spec's loss pitfalls."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import losses

rng = np.random.default_rng(0)
ZX, ZY = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))


def np_log_softmax(a, axis):
    a = a - a.max(axis=axis, keepdims=True)
    return a - np.log(np.exp(a).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("normalize", [False, True])
def test_infonce_matches_numpy(normalize):
    zx, zy = ZX, ZY
    if normalize:
        zx, zy = zx / np.linalg.norm(zx, axis=1, keepdims=True), zy / np.linalg.norm(zy, axis=1, keepdims=True)
    logits = 2.5 * zx @ zy.T
    want = -0.5 * (np.diag(np_log_softmax(logits, 1)).mean() + np.diag(np_log_softmax(logits, 0)).mean())
    got = losses.infonce(jnp.asarray(ZX), jnp.asarray(ZY), 2.5, normalize=normalize)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_sigmoid_pairwise_sums_over_the_row_like_big_vision():
    """Spec Pitfalls: sum (not mean) over the negatives of a row, mean over rows."""
    t, b = 3.0, -2.0
    want = 0.0
    for i in range(6):
        for j in range(6):
            z = 1.0 if i == j else -1.0
            want += np.log1p(np.exp(-z * (t * ZX[i] @ ZY[j] + b)))
    np.testing.assert_allclose(losses.sigmoid_pairwise(jnp.asarray(ZX), jnp.asarray(ZY), t, b), want / 6, rtol=1e-5)


def np_softmax(a, axis):
    return np.exp(np_log_softmax(a, axis))


def test_infonce_and_siglip_gradients_match_numpy():
    """The hand-written gradients (pairwise_dots, pairwise_softplus_sum) against the closed-form float64 gradients:
    InfoNCE dL/dl = (softmax_rows + softmax_cols) / 2B - I/B; SigLIP dL/dl = (sigmoid(l) - I) / B."""
    s, t, b = 2.5, 3.0, -2.0
    n = ZX.shape[0]
    dl = 0.5 / n * (np_softmax(s * ZX @ ZY.T, 1) + np_softmax(s * ZX @ ZY.T, 0)) - np.eye(n) / n
    got = jax.grad(losses.infonce, argnums=(0, 1))(jnp.asarray(ZX), jnp.asarray(ZY), s)
    np.testing.assert_allclose(got[0], s * dl @ ZY, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got[1], s * dl.T @ ZX, rtol=1e-4, atol=1e-6)
    logits = t * ZX @ ZY.T + b
    dl = (1 / (1 + np.exp(-logits)) - np.eye(n)) / n
    got = jax.grad(losses.sigmoid_pairwise, argnums=(0, 1, 2, 3))(jnp.asarray(ZX), jnp.asarray(ZY), t, b)
    want = (t * dl @ ZY, t * dl.T @ ZX, np.sum(dl * (ZX @ ZY.T)), np.sum(dl))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_pairwise_dots_vjp_vmapped_equals_plain_autodiff():
    """The custom VJP, jitted and vmapped over a seed axis, against JAX's autodiff of the plain
    expression seed by seed (values and gradients)."""
    r = np.random.default_rng(1)
    a, b, w = (jnp.asarray(r.normal(size=shape), jnp.float32) for shape in ((3, 7, 2), (3, 5, 2), (3, 7, 5)))

    def fast(a, b, w):
        return jnp.sum(jax.nn.softplus(w * losses.pairwise_dots(a, b)))

    def plain(a, b, w):
        return jnp.sum(jax.nn.softplus(w * (a @ b.T)))

    got = jax.jit(jax.vmap(jax.value_and_grad(fast, argnums=(0, 1))))(a, b, w)
    for i in range(3):
        want = jax.value_and_grad(plain, argnums=(0, 1))(a[i], b[i], w[i])
        for g, v in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(g[i], v, rtol=1e-5, atol=1e-6)


def test_pairwise_softplus_sum_matches_float64_and_the_unfused_form():
    """The fused SigLIP term (value and gradients in a, c, bias), jitted and vmapped over a seed axis,
    against the float64 closed form ``Σ softplus(l)``, ``dl = sigmoid(l)`` seed by seed, and against the
    unfused ``Σ jax.nn.softplus(a c^T + bias)`` differentiated by JAX; on random and extreme (±1e4) logits."""
    r = np.random.default_rng(2)
    a = r.normal(size=(3, 7, 3))
    c = r.normal(size=(3, 5, 3))
    bias = np.array([-2.0, 0.0, 1.5])
    a[2, 0] = [1e4, 0.0, 0.0]  # logits of ±1e4 in the last seed
    c[2, :2] = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]
    got = jax.jit(jax.vmap(jax.value_and_grad(losses.pairwise_softplus_sum, argnums=(0, 1, 2))))(
        *(jnp.asarray(v, jnp.float32) for v in (a, c, bias))
    )

    def unfused(a, c, bias):
        return jnp.sum(jax.nn.softplus(a @ c.T + bias))

    for i in range(3):
        logits = a[i] @ c[i].T + bias[i]
        sig = 0.5 * (1 + np.tanh(0.5 * logits))  # float64 sigmoid
        want = (np.sum(np.logaddexp(0.0, logits)), (sig @ c[i], sig.T @ a[i], np.sum(sig)))
        old = jax.value_and_grad(unfused, argnums=(0, 1, 2))(*(jnp.asarray(v[i], jnp.float32) for v in (a, c, bias)))
        for g, w, o in zip(jax.tree.leaves(got), jax.tree.leaves(want), jax.tree.leaves(old), strict=True):
            np.testing.assert_allclose(g[i], w, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(g[i], o, rtol=1e-6, atol=1e-6)
    assert np.all(np.isfinite(np.concatenate([np.ravel(g) for g in jax.tree.leaves(got)])))


def test_softplus_value_and_derivative():
    x = jnp.array([-80.0, -3.0, 0.0, 2.0, 80.0])
    np.testing.assert_allclose(losses.softplus(x), jax.nn.softplus(x), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(losses.softplus))(x), jax.nn.sigmoid(x), rtol=1e-6)
    assert np.all(np.isfinite(jax.vmap(jax.grad(losses.softplus))(jnp.array([-1e4, 1e4]))))


def test_jepa_l2_with_whitening_matches_numpy():
    pred, target = ZX, ZY
    c = np.cov(target.T, bias=True)
    want = ((pred - target) ** 2).sum(1).mean() + 0.5 * ((c - np.eye(3)) ** 2).sum()
    got, aux = losses.jepa_l2(jnp.asarray(pred), jnp.asarray(target), 0.5)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert set(aux) == {"mse", "whiten"}


def test_token_generation_losses():
    logits = rng.normal(size=(2, 5))
    tokens = np.array([[1, 3, -1], [0, -1, -1]])
    logp = np_log_softmax(logits, 1)
    want = -(logp[0, 1] + logp[0, 3] + logp[1, 0]) / 3
    np.testing.assert_allclose(losses.token_generation_ce(jnp.asarray(logits), jnp.asarray(tokens)), want, rtol=1e-5)
    per_position = np.broadcast_to(logits[:, None, :], (2, 3, 5))
    np.testing.assert_allclose(
        losses.token_generation_ce(jnp.asarray(per_position), jnp.asarray(tokens)), want, rtol=1e-5
    )
    np.testing.assert_allclose(
        losses.token_generation_mse(jnp.asarray(ZX), jnp.asarray(ZY)), ((ZX - ZY) ** 2).sum(1).mean(), rtol=1e-5
    )


def test_positive_pair_fourth_moment_formula(x64):
    """SigLIP's finite-N term uses E[(f·g)^2] = tr(Sfg)^2 + tr(Sff Sgg) + tr(Sfg Sfg) for Gaussian pairs."""
    cov = lm.random_joint_cov(jax.random.key(3), 3, 4)
    w, v = jnp.asarray(rng.normal(size=(2, 3))), jnp.asarray(rng.normal(size=(2, 4)))
    full = np.block([[cov.Sxx, cov.Sxy], [np.asarray(cov.Sxy).T, cov.Syy]])
    z = np.random.default_rng(1).multivariate_normal(np.zeros(7), full, size=400_000)
    f, g = z[:, :3] @ np.asarray(w).T, z[:, 3:] @ np.asarray(v).T
    mc = np.mean(np.sum(f * g, 1) ** 2)
    sff, sgg, sfg = w @ cov.Sxx @ w.T, v @ cov.Syy @ v.T, w @ cov.Sxy @ v.T
    formula = float(jnp.trace(sfg) ** 2 + jnp.trace(sff @ sgg) + jnp.trace(sfg @ sfg))
    np.testing.assert_allclose(mc, formula, rtol=0.02)


def test_linearised_clip_is_the_small_logit_expansion_of_infonce(x64):
    """With many centered negatives and small logits, tau (InfoNCE_one_direction - log N) ≈ clip_linearized.

    The population pairs are approximated by a large fixed sample (its own covariance is used, so the
    only error is the expansion's higher orders, which shrink with the embedding scale)."""
    cov0 = lm.random_joint_cov(jax.random.key(4), 3, 3)
    full = np.block([[cov0.Sxx, cov0.Sxy], [np.asarray(cov0.Sxy).T, cov0.Syy]])
    z = np.random.default_rng(2).multivariate_normal(np.zeros(6), full, size=3000)
    z -= z.mean(0)
    x, y = jnp.asarray(z[:, :3]), jnp.asarray(z[:, 3:])
    cov = lm.empirical_cov(x, y)
    tau = 1.0
    w0, v0 = jnp.asarray(rng.normal(size=(2, 3))), jnp.asarray(rng.normal(size=(2, 3)))
    errs = []
    for eps in (0.1, 0.05):
        w, v = eps * w0, eps * v0
        logits = (x @ w.T) @ (y @ v.T).T / tau
        exact = tau * (jnp.mean(jax.nn.logsumexp(logits, axis=1)) - jnp.mean(jnp.diagonal(logits)) - np.log(3000))
        lin = losses.clip_linearized({"W": w, "V": v}, cov, tau)
        errs.append(abs(float(exact - lin)) / abs(float(lin)))
    assert errs[1] < errs[0] and errs[1] < 0.02  # higher-order terms shrink with the logits


def test_jepa_without_whitening_collapses(x64):
    """Spec Pitfalls: JEPA needs an anti-collapse term; without it the zero encoder is optimal."""
    cov = lm.random_joint_cov(jax.random.key(5), 3, 3)
    sol = cf.jepa_l2(cov, 2, "x2y")
    params = {"W": sol.W_img, "P": sol.predictor, "V": sol.W_txt}
    unconstrained = losses.jepa_l2_penalized_linearized(params, cov, 0.0)
    collapsed = losses.jepa_l2_penalized_linearized(jax.tree.map(jnp.zeros_like, params), cov, 0.0)
    assert float(collapsed) == 0.0 < float(unconstrained)
    assert float(losses.jepa_l2_penalized_linearized(jax.tree.map(jnp.zeros_like, params), cov, 10.0)) == pytest.approx(
        20.0
    )
