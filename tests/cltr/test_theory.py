"""The damped Newton minimiser against SciPy (float64), the analytic Hessian, Theorem A/B helpers."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import minimize

from jaxpapers.cltr import (
    global_beta,
    loglog_slope,
    logreg_hessian,
    logreg_loss,
    neighborhood_bound,
    smoothness_constant,
    solve_logreg,
)
from jaxpapers.core.errors import PrecisionError


def _problem(n=40, d=3, c=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    x = rng.normal(size=(n, d)) + 1.5 * np.eye(c, d)[y]
    return x, np.eye(c)[y], y


def _np_loss(theta, x, y1h, w, mu):
    z = x @ theta.reshape(x.shape[1], y1h.shape[1])
    m = z.max(1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(1))
    return float(np.sum(w * (lse - (z * y1h).sum(1))) + 0.5 * mu * theta @ theta)


def test_newton_matches_scipy_and_plain_loop(x64):
    x, y1h, y = _problem()
    n = len(y)
    w = np.stack([np.full(n, 1 / n), (y < 2) / (y < 2).sum(), np.where(y == 2, 1e-3, 1.0)])
    w[2] /= w[2].sum()
    theta, gnorm = solve_logreg(x, y1h, w, 1e-2, iters=60)
    assert float(gnorm.max()) < 1e-10
    for i in range(len(w)):
        ref = minimize(_np_loss, np.zeros(9), args=(x, y1h, w[i], 1e-2), method="BFGS", options={"gtol": 1e-11})
        np.testing.assert_allclose(np.asarray(theta[i]), ref.x, atol=1e-6)
        one, _ = solve_logreg(x, y1h, w[i : i + 1], 1e-2, iters=60)
        np.testing.assert_allclose(np.asarray(one[0]), np.asarray(theta[i]), atol=1e-12)


def test_analytic_hessian_equals_autodiff(x64):
    x, y1h, _ = _problem(n=12, d=2, c=3)
    w = jnp.full(12, 1 / 12)
    theta = jnp.asarray(np.random.default_rng(2).normal(size=6))
    h = logreg_hessian(theta, jnp.asarray(x), jnp.asarray(y1h), w, 0.1)
    ref = jax.hessian(logreg_loss)(theta, jnp.asarray(x), jnp.asarray(y1h), w, 0.1)
    np.testing.assert_allclose(np.asarray(h), np.asarray(ref), atol=1e-12)


def test_damped_newton_from_far_start_converges_where_weights_are_skewed(x64):
    """Pitfall: undamped Newton diverged at small IF_part; the damped solver converges from theta_H*."""
    x, y1h, y = _problem(n=60, seed=3)
    head = (y < 2) / (y < 2).sum()
    (th_h,), _ = solve_logreg(x, y1h, head[None], 1e-2, iters=30)
    w = np.full(60, 1 / 60)[None]
    th, g = solve_logreg(x, y1h, w, 1e-2, iters=30, theta0=np.asarray(th_h)[None])
    th0, _ = solve_logreg(x, y1h, w, 1e-2, iters=30)
    assert float(g[0]) < 1e-10
    np.testing.assert_allclose(np.asarray(th), np.asarray(th0), atol=1e-9)


def test_solver_refuses_float32():
    x, y1h, _ = _problem()
    with pytest.raises(PrecisionError, match="float64"):
        solve_logreg(x, y1h, np.full((1, len(x)), 1 / len(x)), 1e-2)


def test_fixed_numerator_bound_has_slope_minus_half():
    r = 1 / np.geomspace(10, 1000, 7)
    b = neighborhood_bound(0.01, r, 2.0, 0.5)
    assert loglog_slope(1 / r, b) == pytest.approx(-0.5, abs=1e-9)
    assert loglog_slope([1, 10, 100], [1, 0.1, 0.01], window=(5, 200)) == pytest.approx(-1.0, abs=1e-12)


def test_global_beta_bounds_every_hessian_and_power_iteration_finds_top_eigenvalue(x64):
    x, y1h, _ = _problem(n=30, d=3, c=4, seed=4)
    mu = 0.05
    beta = global_beta(x, mu)
    w = jnp.full(30, 1 / 30)
    rng = np.random.default_rng(5)
    for _ in range(5):
        th = jnp.asarray(rng.normal(size=12) * 3)
        lam = np.linalg.eigvalsh(np.asarray(logreg_hessian(th, jnp.asarray(x), jnp.asarray(y1h), w, mu)))[-1]
        assert lam <= beta + 1e-12
    lam_pi, v = smoothness_constant(logreg_loss, th, jnp.asarray(x), jnp.asarray(y1h), w, mu, iters=300)
    assert lam_pi == pytest.approx(lam, rel=1e-6)
