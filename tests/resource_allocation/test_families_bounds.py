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


def test_first_price_share_bound():
    np.testing.assert_allclose(bounds.first_price_share_bound(1 / 1.01, 8, 1e-3), 1 - 7 * 1.01**-1000, rtol=1e-15)
    assert bounds.first_price_share_bound(1 / 1.01, 8, 1e-3) > 0.9996


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
