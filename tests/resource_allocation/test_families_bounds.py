"""Closed forms and tight families against the solver."""

import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation import bounds, families
from jaxpapers.resource_allocation.equilibrium import alpha_ne
from jaxpapers.resource_allocation.sweeps import efficiency


def test_poa_bound_values_from_the_spec():
    np.testing.assert_allclose(
        bounds.poa_bound([1, 0.5, 0.25, 0.1, 0.01]), [0.75, 0.828427, 0.888889, 0.942278, 0.991736], atol=1e-6
    )


def test_kelly_closed_form_values():
    np.testing.assert_allclose(bounds.kelly_family_closed_form([1, 2, 10]), [5 / 6, 0.8, 0.7619048], atol=1e-7)


def test_alpha_family_formula_at_alpha_one_is_kelly():
    ns = np.array([1, 2, 10, 1000])
    np.testing.assert_allclose(bounds.alpha_family_efficiency(1.0, ns), bounds.kelly_family_closed_form(ns), rtol=1e-13)


def test_alpha_family_formula_tends_to_the_bound():
    for a in (0.5, 0.1, 0.01):
        vals = bounds.alpha_family_efficiency(a, [10, 1000, 100_000])
        assert np.all(np.diff(vals) < 0) and np.all(vals > bounds.poa_bound(a))
        assert vals[-1] - bounds.poa_bound(a) < 1e-5


@pytest.mark.parametrize("alpha", [1.0, 0.25, 0.01])
def test_solver_matches_the_family_formula(x64, alpha):
    vals, al, ns = families.family_batch([alpha], [1, 10, 100])
    np.testing.assert_allclose(efficiency(vals, al), bounds.alpha_family_efficiency(alpha, ns), rtol=1e-10)


def test_two_linear_price_formula(x64):
    x, lam, _ = alpha_ne(families.two_linear(0.9, 0.9), 0.3)
    np.testing.assert_allclose(lam, bounds.two_linear_price(0.9, 0.3), rtol=1e-13)


def test_first_price_limit_of_linear_agents_is_the_second_highest_value():
    """Closed form: the highest slope takes everything at the second-highest slope."""
    w = np.array([[0.6, 0.9, 0.3], [0.5, 0.2, 0.0], [0.4, 0.7, 0.69]])
    lam0, x0 = bounds.first_price_limit(w, np.zeros_like(w), np.ones_like(w), np.zeros_like(w))
    np.testing.assert_allclose(lam0, [0.6, 0.2, 0.69], rtol=1e-12)
    np.testing.assert_allclose(x0, [[0, 1, 0], [1, 0, 0], [0, 1, 0]], atol=1e-12)


def test_first_price_limit_matches_a_brute_force_first_price_auction():
    """Discrete first-price auction (pay your bid, ties to the higher value, bids at most the value): every
    pure equilibrium found by enumerating the bid grid has the top agent win at the second value (± one step)."""
    v, h = np.array([0.9, 0.6, 0.3]), 0.02
    grids = [np.arange(0.0, vi + h / 2, h) for vi in v]
    b = np.stack(np.meshgrid(*grids, indexing="ij"), axis=-1).reshape(-1, 3)  # [P, 3] bid profiles

    def utilities(bids):  # [..., 3] -> [..., 3]; ties go to the higher value (lower index)
        win = np.argmax(bids, axis=-1)
        return np.where(np.arange(3) == win[..., None], v - bids, 0.0)

    u = utilities(b)
    best = np.zeros_like(u)
    for i in range(3):
        dev = np.repeat(b[:, None, :], len(grids[i]), axis=1)
        dev[..., i] = grids[i]
        best[:, i] = utilities(dev)[..., i].max(axis=1)
    ne = np.all(u >= best - 1e-12, axis=1)
    assert ne.any()
    prices, winners = b[ne].max(axis=1), np.argmax(b[ne], axis=1)
    assert np.all(winners == 0) and np.all((prices >= 0.6 - h - 1e-12) & (prices <= 0.6 + 1e-12))
    lam0, x0 = bounds.first_price_limit(v, np.zeros(3), np.ones(3), np.zeros(3))
    np.testing.assert_allclose([lam0, x0[0]], [0.6, 1.0], rtol=1e-12)


def test_first_price_limit_is_the_lowest_clearing_price_by_brute_force():
    """Concave agents: the lowest price on a dense grid at which brute-force demands (largest grid x with
    v'(x) ≥ λ) sum to at most 1; its allocation is welfare-optimal (brute-force grid over two agents)."""
    from . import reference as ref

    cases = [  # (w, r, s, kind)
        ([0.8, 0.5], [0.5, 0.0], [0.1, 0.3], [1, 2]),
        ([0.9, 0.4], [0.0, 0.2], [1.0, 0.05], [0, 1]),  # linear top agent takes all; the other is marginal
        ([0.5, 0.9], [0.0, 0.5], [1.0, 0.5], [0, 1]),  # the power agent takes all at the linear slope 0.5
        ([0.5, 0.6], [0.0, 0.5], [1.0, 0.5], [0, 1]),  # linear agent marginal at λ0 = 0.5, interior split
        ([0.9, 0.1], [0.0, 0.0], [1.0, 0.5], [0, 2]),  # linear top agent takes all; the other inactive
        ([0.6, 0.5, 0.3], [0.8, 0.0, 0.0], [0.02, 0.2, 1.0], [1, 2, 0]),
    ]
    xs = np.linspace(0.0, 1.0, 20_001)
    for w, r, s, kind in cases:
        w, r, s, kind = (np.asarray(a, np.float64) for a in (w, r, s, kind))
        lam0, x0 = bounds.first_price_limit(w, r, s, kind)
        marg = ref.marginal(w[:, None], r[:, None], s[:, None], kind[:, None], xs[None, :])  # [N, X]
        prices = np.linspace(0.0, float(marg.max()), 40_001)[1:]
        # v' is non-increasing in x: the count of grid points with v'(x) ≥ p locates the largest such x.
        count = np.stack([np.searchsorted(-m, -prices, side="right") for m in marg])
        demand = np.where((count > 0) & (marg[:, :1] > prices[None, :]), xs[np.maximum(count - 1, 0)], 0.0)
        # The grid demand is below the true one by less than one x-step per active non-linear agent (linear, inactive
        # and saturated demands are exact): a bracket for the price.
        lam_lo = prices[np.argmax(demand.sum(axis=0) <= 1.0)]
        inexact = (marg[:, :1] > prices[None, :]) & (kind[:, None] != 0) & (demand < 1.0)
        slack = xs[1] * inexact.sum(axis=0)
        lam_hi = prices[np.argmax(demand.sum(axis=0) + slack <= 1.0)]
        step = prices[1] - prices[0]
        assert lam_lo - step <= lam0 <= lam_hi + step, (lam_lo, lam0, lam_hi)
        assert lam_hi - lam_lo < 1e-3 * lam0  # the bracket is tight enough to mean something
        np.testing.assert_allclose(x0.sum(), 1.0, atol=1e-9)
        if len(w) == 2:
            np.testing.assert_allclose(ref.value(w, r, s, kind, x0).sum(), ref.opt_grid_2(w, r, s, kind), rtol=1e-7)


def test_family_padding_and_errors(x64):
    vals = families.alpha_tight_family(0.25, 3, n_max=6)
    np.testing.assert_allclose(vals.w, [1.0, 2 / 3, 2 / 3, 2 / 3, 0, 0])
    with pytest.raises(ConfigError, match="n=0"):
        families.kelly_tight_family(0)
    with pytest.raises(ConfigError, match="n_max=3"):
        families.kelly_tight_family(5, n_max=3)
    with pytest.raises(ConfigError, match="v2"):
        families.two_linear(1.0, 0.0)
    with pytest.raises(ConfigError, match="alpha"):
        bounds.poa_bound(0.0)
    assert jnp.asarray(families.family_batch([1.0, 0.5], [1, 4])[0].w).shape == (4, 5)
