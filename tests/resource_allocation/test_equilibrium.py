"""The nested-bisection equilibrium against closed forms, a SciPy reference, best replies and the deviation audit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation import families
from jaxpapers.resource_allocation.config import SolverConfig
from jaxpapers.resource_allocation.equilibrium import (
    alpha_ne,
    alpha_ne_budget,
    alpha_ne_one,
    best_reply_ne,
    best_response_dynamics,
    deviation_gains,
    log_weights,
)
from jaxpapers.resource_allocation.mechanisms import alpha_outcome, kelly_outcome
from jaxpapers.resource_allocation.valuations import Valuation, random_budgets, random_instances

from . import reference as ref

ALPHAS = (1.0, 0.25, 0.01)


@pytest.fixture(scope="module")
def instances():
    with jax.enable_x64(True):
        return random_instances(jax.random.key(42), 12, 5)


@pytest.mark.parametrize("alpha", [1.0, 0.6, 0.1])
def test_two_linear_agents_closed_form(x64, alpha):
    v = np.array([1.0, 0.6])
    x, lam, theta = alpha_ne(Valuation.linear(v), alpha)
    # x_i = (v_i - λ)/(v_i - (1-α)λ) and the shares sum to 1
    np.testing.assert_allclose(x, (v - lam) / (v - (1 - alpha) * lam), rtol=1e-12)
    np.testing.assert_allclose(x.sum(), 1.0)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_identical_linear_agents_price(x64, alpha):
    x, lam, _ = alpha_ne(families.two_linear(0.7, 0.7), alpha)
    np.testing.assert_allclose(x, [0.5, 0.5], rtol=1e-12)
    np.testing.assert_allclose(lam, 0.7 / (1 + alpha), rtol=1e-13)


def test_kelly_tight_family_price_and_shares(x64):
    for n in (1, 2, 10, 1000):
        x, lam, theta = alpha_ne(families.kelly_tight_family(n), 1.0)
        np.testing.assert_allclose(lam, n / (2 * n + 1), rtol=1e-13)
        np.testing.assert_allclose(x[0], (n + 1) / (2 * n + 1), rtol=1e-13)
        # at α = 1 the bids are the payments and Kelly's rule gives back the allocation
        np.testing.assert_allclose(kelly_outcome(theta)[0], x, rtol=1e-12)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_matches_scipy_reference(x64, instances, alpha):
    x, lam, _ = alpha_ne(instances, alpha)
    for b in range(instances.w.shape[0]):
        x_ref, lam_ref = ref.ne(*ref.agents(instances, b), alpha)
        np.testing.assert_allclose(lam[b], lam_ref, rtol=1e-11)
        np.testing.assert_allclose(x[b], x_ref, atol=1e-11)


def test_batched_equals_a_plain_loop(x64, instances):
    alphas = jnp.linspace(0.05, 1.0, instances.w.shape[0])
    x, lam, theta = alpha_ne(instances, alphas)
    one = jax.jit(alpha_ne_one)
    for b in range(instances.w.shape[0]):
        xb, lb, tb = one(instances[b], alphas[b])
        np.testing.assert_allclose(x[b], xb, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(lam[b], lb, rtol=1e-15)
        np.testing.assert_allclose(theta[b], tb, rtol=1e-15, atol=1e-15)


def test_chunked_equals_unchunked(x64, instances):
    a = alpha_ne(instances, 0.5)
    b = alpha_ne(instances, 0.5, solver=SolverConfig(chunk_size=5))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-15, atol=1e-16)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_bids_reproduce_the_equilibrium(x64, instances, alpha):
    x, lam, theta = alpha_ne(instances, alpha)
    x2, lam2, pay = jax.vmap(lambda t: alpha_outcome(t, alpha))(theta)
    np.testing.assert_allclose(x2, x, atol=1e-12)
    np.testing.assert_allclose(lam2, lam, rtol=1e-12)
    assert np.all(np.isfinite(theta)) and np.all(np.isfinite(log_weights(x, lam, alpha)[x > 0]))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_best_replies_agree(x64, instances, alpha):
    x, lam, _ = alpha_ne(instances, alpha)
    x_br, lam_br = best_reply_ne(instances, alpha)
    np.testing.assert_allclose(x_br, x, atol=1e-10)
    np.testing.assert_allclose(lam_br, lam, rtol=1e-10)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_no_profitable_deviation(x64, instances, alpha):
    """The spec's mandatory audit: a shallow solver (closed form, linear only) fails it on concave instances."""
    x, lam, _ = alpha_ne(instances, alpha)
    gains = deviation_gains(instances, alpha, log_weights(x, lam, alpha), grid_size=401)
    assert gains.max() <= 1e-9


def test_audit_detects_a_non_equilibrium(x64, instances):
    x, lam, _ = alpha_ne(instances, 0.5)
    log_w = log_weights(x, lam, 0.5)
    bumped = jnp.where(jnp.isfinite(log_w), log_w + 0.3, log_w)  # everybody bids more: not an equilibrium
    assert deviation_gains(instances, 0.5, bumped, grid_size=401).max() > 1e-6


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_audit_sees_a_held_out_agent_enter(x64, alpha):
    """Planted case (review): two slope-1 agents at their two-agent equilibrium, a third slope-1 agent held at
    weight 0. Entering pays; an audit grid anchored on the agent's own (zero) weight alone reports gain 0."""
    lam = 1.0 / (1.0 + alpha)  # two identical linear agents: λ = v/(1+α), W' = λ^{1/α}
    w_rest = lam ** (1.0 / alpha)
    log_w = jnp.log(jnp.asarray([w_rest / 2, w_rest / 2, 0.0]))
    gains = deviation_gains(Valuation.linear([1.0, 1.0, 1.0]), alpha, log_w)
    # Independent: the entrant's best utility v·w/(w+W') − w·(w+W')^{α−1} on a dense NumPy grid.
    w = np.geomspace(1e-9, 1e3, 2_000_001)
    best = np.max(w / (w + w_rest) - w * (w + w_rest) ** (alpha - 1.0))
    if alpha == 1.0:
        np.testing.assert_allclose(best, (1.0 - np.sqrt(0.5)) ** 2, rtol=1e-9)  # closed form at α = 1: 0.0858
    np.testing.assert_allclose(gains[2], best, rtol=1e-4)
    assert gains[2] > 0.05
    assert abs(gains[0]) <= 1e-12 and abs(gains[1]) <= 1e-12  # the two incumbents are at a best reply


def test_wrong_condition_is_caught_by_the_cross_checks(x64, instances):
    """Kelly's condition (α = 1) used for α = 0.25 gives an allocation both cross-checks reject."""
    x_wrong, _, _ = alpha_ne(instances, 1.0)
    x_br, _ = best_reply_ne(instances, 0.25)
    assert np.abs(x_wrong - x_br).max() > 1e-3


def test_padding_changes_nothing(x64):
    vals = Valuation.concat(Valuation.power([0.8], [0.5], [0.1]), Valuation.log([0.4], [0.2]), Valuation.linear([0.3]))
    x, lam, _ = alpha_ne(vals, 0.3)
    xp, lamp, _ = alpha_ne(vals.pad(7), 0.3)
    np.testing.assert_allclose(xp[:3], x, rtol=1e-14)
    np.testing.assert_array_equal(xp[3:], 0.0)  # padded agents are never active (spec pitfall)
    np.testing.assert_allclose(lamp, lam, rtol=1e-14)


def test_tiny_offset_power_agents(x64):
    """Large v'(0) from s = 1e-4, r = 0.95 (spec pitfall on bisection brackets) is fine in float64."""
    vals = Valuation.power([0.9, 0.5, 0.2], [0.95, 0.95, 0.5], [1e-4, 1e-4, 1.0])
    x, lam, _ = alpha_ne(vals, 0.25)
    x_ref, lam_ref = ref.ne(*ref.agents(vals), 0.25)
    np.testing.assert_allclose(x, x_ref, atol=1e-10)
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-10)


def test_float32_with_short_bisection(instances):
    """float32 with 40 × 40 steps (the GPU setting) agrees with float64 to ~1e-4."""
    with jax.enable_x64(True):
        x64_, _, _ = alpha_ne(instances, 0.5)
    vals32 = jax.tree.map(lambda a: np.asarray(a, np.float32) if a.dtype == np.float64 else np.asarray(a), instances)
    x32, _, _ = alpha_ne(
        Valuation(*(jnp.asarray(getattr(vals32, f)) for f in ("w", "r", "s", "kind"))),
        0.5,
        solver=SolverConfig(outer_iters=40, inner_iters=40),
    )
    assert x32.dtype == jnp.float32
    np.testing.assert_allclose(x32, x64_, atol=1e-4)


@pytest.mark.parametrize("alpha", [1.0, 0.2])
def test_budget_equilibrium(x64, instances, alpha):
    budgets = random_budgets(jax.random.key(3), instances.w.shape)
    x, lam, _ = alpha_ne_budget(instances, alpha, budgets)
    assert np.all(lam[:, None] * x <= budgets * (1 + 1e-12))
    gains = deviation_gains(instances, alpha, log_weights(x, lam, alpha), budgets, grid_size=401)
    assert gains.max() <= 1e-9
    x_br, _ = best_reply_ne(instances, alpha, budgets)
    np.testing.assert_allclose(x_br, x, atol=1e-9)
    for b in range(3):
        x_ref, _ = ref.ne(*ref.agents(instances, b), alpha, np.asarray(budgets[b]))
        np.testing.assert_allclose(x[b], x_ref, atol=1e-10)


def test_infinite_budgets_recover_the_free_game(x64, instances):
    a = alpha_ne(instances, 0.5)
    b = alpha_ne_budget(instances, 0.5, jnp.full(instances.w.shape, jnp.inf))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-14, atol=1e-16)


def test_gauss_seidel_dynamics_converge_when_no_agent_dominates(x64):
    vals = families.two_linear(1.0, 0.8)
    x, lam, sweeps = best_response_dynamics(vals, 1.0)
    x_ne, lam_ne, _ = alpha_ne(vals, 1.0)
    assert sweeps < 200
    np.testing.assert_allclose(x, x_ne, atol=1e-10)


def test_gauss_seidel_dynamics_cycle_when_one_agent_dominates(x64):
    """Documented departure: two linear Kelly agents with an equilibrium share above (2+√2)/4 ≈ 0.854."""
    vals = families.two_linear(1.0, 0.1)
    x_ne, _, _ = alpha_ne(vals, 1.0)
    assert x_ne[0] > 0.854
    x, _, sweeps = best_response_dynamics(vals, 1.0, max_sweeps=100)
    assert sweeps == 100 and np.abs(x - x_ne).max() > 1e-3


def test_bad_inputs(x64):
    vals = families.two_linear(1.0, 0.5)
    with pytest.raises(ConfigError, match=r"alpha=0(\.0)? is out of range; allowed \(0\.0, 1\.0\]"):
        alpha_ne(vals, 0.0)
    with pytest.raises(ConfigError, match="alpha=1.5"):
        alpha_ne(vals, 1.5)
    with pytest.raises(ConfigError, match="1 active agent"):
        alpha_ne(Valuation.linear([1.0, 0.0]), 0.5)
    with pytest.raises(ConfigError, match="budgets"):
        alpha_ne_budget(vals, 0.5, jnp.array([1.0, -1.0]))
    with pytest.raises(ConfigError, match="budgets has shape"):
        alpha_ne_budget(vals, 0.5, jnp.ones(3))
    with pytest.raises(ConfigError, match="alpha has shape"):
        alpha_ne(vals, jnp.ones(3) * 0.5)
    with pytest.raises(ConfigError, match="solver.outer_iters"):
        SolverConfig(outer_iters=0)
