"""Mechanisms: Kelly, the α-family in log-weights, the budget-capped outcome and its capping iteration."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.resource_allocation.mechanisms import (
    alpha_outcome,
    alpha_outcome_logw,
    budget_capped_log_weights,
    budget_capped_outcome,
    capping_iteration_log_weights,
    kelly_outcome,
)


def test_kelly_allocates_in_proportion_and_charges_the_bid(x64):
    x, lam, pay = kelly_outcome(jnp.array([1.0, 3.0]))
    np.testing.assert_allclose(x, [0.25, 0.75])
    np.testing.assert_allclose(lam, 4.0)
    np.testing.assert_allclose(pay, [1.0, 3.0])


def test_alpha_one_is_kelly(x64):
    b = jnp.array([0.2, 0.5, 1.3])
    for got, want in zip(alpha_outcome(b, 1.0), kelly_outcome(b), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-14)


def test_alpha_outcome_matches_the_naive_formula(x64):
    theta, alpha = np.array([0.3, 0.8, 1.1]), 0.5
    w = theta ** (1 / alpha)
    x, lam, pay = alpha_outcome(jnp.asarray(theta), alpha)
    np.testing.assert_allclose(x, w / w.sum(), rtol=1e-14)
    np.testing.assert_allclose(lam, w.sum() ** alpha, rtol=1e-14)
    # payment is the uniform price times the allocation, not the bid (spec pitfall)
    np.testing.assert_allclose(pay, lam * x, rtol=1e-14)
    assert not np.allclose(pay, theta)
    np.testing.assert_allclose(np.sum(pay), lam, rtol=1e-14)  # revenue = λ when Σx = 1


def test_small_alpha_needs_log_weights(x64):
    theta, alpha = jnp.array([3.0, 2.5, 0.4]), 1e-3
    naive = theta ** (1 / alpha)  # 3^1000 overflows, 0.4^1000 underflows (spec pitfall)
    assert not np.all(np.isfinite(naive))
    x, lam, pay = alpha_outcome(theta, alpha)
    assert np.all(np.isfinite(x)) and np.isfinite(lam)
    np.testing.assert_allclose(x[1], (2.5 / 3) ** 1000, rtol=1e-12)  # ~1e-79, exact in log-weights
    np.testing.assert_allclose(lam, 3.0 * (1 + (2.5 / 3) ** 1000 + (0.4 / 3) ** 1000) ** alpha, rtol=1e-14)


def test_zero_bids_get_nothing(x64):
    x, lam, pay = alpha_outcome_logw(jnp.array([0.0, -jnp.inf, 1.0]), 0.5)
    assert x[1] == 0 and pay[1] == 0
    np.testing.assert_allclose(x.sum(), 1.0)


def _random_bids(key, num, n):
    k1, k2 = jax.random.split(key)
    theta = 10.0 ** jax.random.uniform(k1, (num, n), minval=-2, maxval=1)
    budgets = 10.0 ** jax.random.uniform(k2, (num, n), minval=-3, maxval=0)
    return theta, budgets


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.05])
def test_budget_capped_outcome_is_feasible(x64, alpha):
    theta, budgets = _random_bids(jax.random.key(0), 64, 6)
    x, lam, pay = jax.vmap(lambda t, b: budget_capped_outcome(t, alpha, b))(theta, budgets)
    assert np.all(pay <= budgets * (1 + 1e-12))
    np.testing.assert_allclose(x.sum(-1), 1.0, atol=1e-14)


def test_budget_capped_alpha_one_is_min_of_bid_and_budget(x64):
    theta, budgets = jnp.array([0.5, 2.0, 0.1]), jnp.array([1.0, 0.3, 5.0])
    x, lam, pay = budget_capped_outcome(theta, 1.0, budgets)
    want = kelly_outcome(jnp.minimum(theta, budgets))
    for got, w in zip((x, lam, pay), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-12)


def test_budget_capped_with_slack_budgets_changes_nothing(x64):
    theta = jnp.array([0.5, 2.0, 0.1])
    for alpha in (1.0, 0.3):
        got = budget_capped_outcome(theta, alpha, jnp.full(3, 1e6))
        for a, b in zip(got, alpha_outcome(theta, alpha), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_budget_capped_is_the_greatest_fixed_point(x64):
    """W* satisfies W* <= g(W*) and slightly larger W violate it (spec step 1)."""
    theta, budgets = _random_bids(jax.random.key(1), 16, 5)
    alpha = 0.3
    log_w = jax.jit(jax.vmap(lambda t, b: budget_capped_log_weights(t, alpha, b)))(theta, budgets)
    log_total = np.asarray(jax.nn.logsumexp(log_w, axis=-1))
    log_w0, log_b = np.log(np.asarray(theta)) / alpha, np.log(np.asarray(budgets))

    def log_g(lt):  # log of g(W) = Σ min(w0_i, B_i W^{1-α}), in NumPy
        return np.log(np.sum(np.exp(np.minimum(log_w0, log_b + (1 - alpha) * lt[:, None])), axis=-1))

    assert np.all(log_g(log_total) >= log_total - 1e-12)
    uncapped = np.all(np.isclose(np.asarray(log_w), log_w0), axis=-1)
    assert np.all((log_g(log_total + 1e-6) < log_total + 1e-6) | uncapped)
    assert not np.all(uncapped)


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.05])
def test_capping_iteration_reaches_the_same_outcome(x64, alpha):
    theta, budgets = _random_bids(jax.random.key(2), 8, 6)
    fast = jax.vmap(lambda t, b: budget_capped_log_weights(t, alpha, b))(theta, budgets)
    slow, rounds = jax.jit(jax.vmap(lambda t, b: capping_iteration_log_weights(t, alpha, b)))(theta, budgets)
    np.testing.assert_allclose(np.exp(slow - fast), 1.0, rtol=1e-6)
    assert rounds.max() < 20_000


def test_capping_iteration_decreases_monotonically(x64):
    theta, budgets = _random_bids(jax.random.key(3), 1, 6)
    t, b = theta[0], budgets[0]
    prev = jnp.log(t) / 0.2
    run = jax.jit(lambda r: capping_iteration_log_weights(t, 0.2, b, max_rounds=r, tol=0.0)[0])
    for rounds in (1, 2, 5, 20):
        log_w = run(rounds)
        assert np.all(log_w <= prev + 1e-12)
        prev = log_w
