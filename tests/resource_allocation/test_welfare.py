"""Welfare optimum (with the linear-tie rule), VCG and liquid welfare against brute force and SLSQP."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.resource_allocation import families
from jaxpapers.resource_allocation.equilibrium import alpha_ne
from jaxpapers.resource_allocation.sweeps import efficiency, liquid_efficiency
from jaxpapers.resource_allocation.valuations import Valuation, random_budgets, random_instances
from jaxpapers.resource_allocation.welfare import (
    liquid_welfare,
    opt_liquid_welfare,
    opt_welfare,
    opt_welfare_one,
    social_welfare,
    vcg,
)

from . import reference as ref


@pytest.fixture(scope="module")
def small():
    with jax.enable_x64(True):
        return random_instances(jax.random.key(7), 8, 4)


def test_opt_two_agents_matches_brute_force(x64):
    pairs = [
        Valuation.concat(Valuation.power([0.8], [0.5], [0.1]), Valuation.log([0.4], [0.02])),
        Valuation.concat(Valuation.linear([0.5]), Valuation.power([1.0], [0.8], [0.3])),
        Valuation.concat(Valuation.log([0.9], [0.5]), Valuation.linear([0.2])),
    ]
    for vals in pairs:
        _, opt = opt_welfare(vals)
        brute = ref.opt_grid_2(*ref.agents(vals))
        assert opt >= brute - 1e-12  # the grid can only do worse
        np.testing.assert_allclose(opt, brute, rtol=1e-8)


def test_opt_matches_slsqp(x64, small):
    x, opt = opt_welfare(small)
    np.testing.assert_allclose(x.sum(-1), 1.0, atol=1e-12)
    for b in range(small.w.shape[0]):
        np.testing.assert_allclose(opt[b], ref.opt_slsqp(*ref.agents(small, b)), rtol=1e-7)


def test_linear_ties_go_to_one_agent(x64):
    """Spec pitfall: on the all-linear worst cases OPT is silently wrong without the tie rule."""
    for n in (1, 10, 1000):
        x, opt = opt_welfare(families.kelly_tight_family(n))
        np.testing.assert_allclose(opt, 1.0, rtol=1e-14)
        np.testing.assert_allclose(x[0], 1.0)
    x, opt = opt_welfare(families.two_linear(0.7, 0.7))
    np.testing.assert_allclose(opt, 0.7, rtol=1e-14)
    np.testing.assert_allclose(x.sum(), 1.0)
    # a concave agent takes its demand at μ = the tied slope; the tied linear agents get the rest
    vals = Valuation.concat(Valuation.linear([0.5, 0.5]), Valuation.log([1.0], [1.0]))
    x, opt = opt_welfare(vals)
    np.testing.assert_allclose(x, [0.0, 0.0, 1.0], atol=1e-12)  # 1/(1+x) ≥ 0.5 on [0, 1]
    vals = Valuation.concat(Valuation.linear([0.6, 0.6]), Valuation.log([1.0], [1.0]))
    x, opt = opt_welfare(vals)
    np.testing.assert_allclose(x[2], 1 / 0.6 - 1, rtol=1e-9)
    np.testing.assert_allclose(x[:2].sum(), 1 - (1 / 0.6 - 1), rtol=1e-9)
    np.testing.assert_allclose(opt, np.log(1 / 0.6) + 0.6 * (2 - 1 / 0.6), rtol=1e-12)


def test_vcg_two_identical_linear_agents(x64):
    _, rev = vcg(families.two_linear(0.7, 0.7))
    np.testing.assert_allclose(rev, 0.7, rtol=1e-14)


def test_vcg_matches_brute_force(x64, small):
    _, rev = vcg(small)
    for b in range(4):
        w, r, s, kind = ref.agents(small, b)
        act = np.flatnonzero(w > 0)
        opt = ref.opt_slsqp(w, r, s, kind)
        x_star, _ = opt_welfare(small[b])
        v_star = ref.value(w, r, s, kind, np.asarray(x_star))
        pay = 0.0
        for i in act:
            w_minus = w.copy()
            w_minus[i] = 0.0
            pay += ref.opt_slsqp(w_minus, r, s, kind) - (opt - v_star[i])
        np.testing.assert_allclose(rev[b], pay, rtol=1e-6, atol=1e-9)


def test_liquid_optimum_two_agents_matches_brute_force(x64):
    vals = Valuation.concat(Valuation.power([0.8], [0.5], [0.1]), Valuation.linear([0.6]))
    for budgets in ([0.05, 0.3], [0.5, 0.1], [1e-3, 1e-3], [10.0, 10.0]):
        b = jnp.asarray(budgets)
        x, lw = opt_liquid_welfare(vals, b)
        brute = ref.opt_grid_2(*ref.agents(vals), budgets=np.asarray(budgets))
        np.testing.assert_allclose(lw, brute, rtol=1e-7)
        np.testing.assert_allclose(lw, liquid_welfare(vals, x, b), rtol=1e-14)


def test_liquid_optimum_matches_slsqp(x64, small):
    budgets = random_budgets(jax.random.key(5), small.w.shape)
    _, lw = opt_liquid_welfare(small, budgets)
    for b in range(4):
        want = ref.opt_slsqp(*ref.agents(small, b), budgets=np.asarray(budgets[b]), starts=6)
        assert lw[b] >= want - 1e-9
        np.testing.assert_allclose(lw[b], want, rtol=1e-6)


def test_infinite_budgets_give_the_welfare_optimum(x64, small):
    _, lw = opt_liquid_welfare(small, jnp.full(small.w.shape, jnp.inf))
    np.testing.assert_allclose(lw, opt_welfare(small)[1], rtol=1e-14)


def test_efficiency_is_a_ratio_in_the_unit_interval(x64, small):
    """Spec pitfall: report SW(NE)/OPT in (0, 1], never the inverse."""
    for alpha in (1.0, 0.1):
        r = efficiency(small, alpha)
        x, _, _ = alpha_ne(small, alpha)
        np.testing.assert_allclose(r, social_welfare(small, x) / opt_welfare(small)[1], rtol=1e-15)
        assert np.all((r > 0) & (r <= 1 + 1e-12))


def test_liquid_efficiency_in_unit_interval(x64, small):
    budgets = random_budgets(jax.random.key(6), small.w.shape)
    ratio, x, lam = liquid_efficiency(small, 0.5, budgets)
    assert np.all((ratio > 0) & (ratio <= 1 + 1e-12))


def test_batched_equals_a_plain_loop(x64, small):
    x, opt = opt_welfare(small)
    one = jax.jit(opt_welfare_one)
    for b in range(small.w.shape[0]):
        xb, ob = one(small[b])
        np.testing.assert_allclose(x[b], xb, rtol=1e-15)
        np.testing.assert_allclose(opt[b], ob, rtol=1e-15)
