"""Valuation families: closed forms, autodiff marginals, inverses, random instances and input errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation.config import InstanceConfig
from jaxpapers.resource_allocation.valuations import (
    LINEAR,
    LOG,
    POWER,
    Valuation,
    check_valuation,
    random_instances,
    sample_instances,
)

from . import reference as ref


def _mixed():
    return Valuation.concat(
        Valuation.linear([0.7]),
        Valuation.power([0.5, 0.9], [0.2, 0.95], [1e-3, 2.0]),
        Valuation.log([0.3], [0.05]),
    )


def test_value_and_marginal_match_closed_forms(x64):
    vals = _mixed()
    xs = np.linspace(0.0, 1.0, 11)
    for x in xs:
        xv = jnp.full(vals.w.shape, x)
        np.testing.assert_allclose(vals.value(xv), ref.value(*ref.agents(vals), x), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(vals.marginal(xv), ref.marginal(*ref.agents(vals), x), rtol=1e-12)


def test_marginal_is_the_derivative_of_value(x64):
    vals = _mixed()
    x = jnp.full(vals.w.shape, 0.37)
    grad = jax.grad(lambda x: jnp.sum(vals.value(x)))(x)
    np.testing.assert_allclose(grad, vals.marginal(x), rtol=1e-12)


def test_value_is_accurate_for_tiny_shares(x64):
    vals = Valuation.power([1.0], [0.5], [1.0])
    x = jnp.array([1e-14])
    np.testing.assert_allclose(vals.value(x), [1e-14], rtol=1e-9)  # naive form loses all digits here


def test_rho_reproduces_every_marginal(x64):
    vals = _mixed()
    x = jnp.full(vals.w.shape, 0.2)
    np.testing.assert_allclose(vals.w * (x + vals.s) ** (-vals.rho), vals.marginal(x), rtol=1e-12)


def test_demand_inverts_the_marginal(x64):
    vals = Valuation.concat(Valuation.power([0.5, 0.9], [0.2, 0.8], [0.1, 0.5]), Valuation.log([0.3], [0.05]))
    x = jnp.array([0.3, 0.6, 0.2])
    mu = vals.marginal(x)
    for i in range(3):
        np.testing.assert_allclose(vals.demand(mu[i])[i], x[i], rtol=1e-10)


def test_linear_demand_is_flat_and_padding_demands_nothing(x64):
    vals = Valuation.linear([0.5, 0.0])
    np.testing.assert_array_equal(vals.demand(0.4), [1.0, 0.0])
    np.testing.assert_array_equal(vals.demand(0.6), [0.0, 0.0])
    np.testing.assert_array_equal(vals.demand(1e-300), [1.0, 0.0])


def test_inverse_inverts_value(x64):
    vals = _mixed()
    x = jnp.array([0.1, 0.4, 0.9, 0.25])
    np.testing.assert_allclose(vals.inverse(vals.value(x)), x, rtol=1e-10)
    assert np.all(np.isinf(vals.inverse(jnp.full(4, jnp.inf))))


def test_padding_is_inactive_with_zero_value(x64):
    vals = Valuation.linear([1.0, 0.5]).pad(5)
    assert vals.num_agents == 5
    np.testing.assert_array_equal(vals.active, [True, True, False, False, False])
    x = jnp.full(5, 0.3)
    np.testing.assert_array_equal(vals.value(x)[2:], 0.0)
    np.testing.assert_array_equal(vals.marginal(x)[2:], 0.0)


def test_random_instances_follow_the_spec(x64):
    vals = random_instances(jax.random.key(0), 2000, 6, n_min=3)
    w, r, s, kind = ref.agents(vals)
    assert w.shape == (2000, 6)
    n = (w > 0).sum(1)
    assert n.min() == 3 and n.max() == 6
    # padding sits at the end of each row
    assert np.all(np.diff((w > 0).astype(int), axis=1) <= 0)
    act = w > 0
    assert w[act].min() >= 0.05**2 - 1e-12 and w[act].max() <= 1.0
    assert set(np.unique(r[act & (kind == POWER)])) == {0.2, 0.5, 0.8, 0.95}
    logs = s[act & (kind != LINEAR)]
    assert logs.min() >= 10**-3 - 1e-12 and logs.max() <= 10**0.5 + 1e-12
    frac = np.array([np.mean(kind[act] == k) for k in (LINEAR, POWER, LOG)])
    np.testing.assert_allclose(frac, [0.3, 0.5, 0.2], atol=0.03)
    check_valuation("vals", vals)


def test_instance_config_samples_and_validates(x64):
    vals = sample_instances(jax.random.key(1), InstanceConfig(num=7, n_max=3))
    assert vals.w.shape == (7, 3)
    with pytest.raises(ConfigError, match="instances.n_max"):
        InstanceConfig(n_min=4, n_max=3)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(family_probs=(0.5, 0.5, 0.5)), "family_probs"),
        (dict(n_min=1), "n_min"),
        (dict(n_min=5), "n_max=4 is smaller"),
    ],
)
def test_random_instances_bad_arguments(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        random_instances(jax.random.key(0), 4, 4, **kwargs)


@pytest.mark.parametrize(
    "vals, match",
    [
        (Valuation.linear([1.0, 0.0]), "1 active agent"),  # a single agent is degenerate (spec pitfall)
        (Valuation.linear([1.0, -0.5]), "negative"),
        (Valuation.power([1.0, 1.0], [0.5, 1.0], [1.0, 1.0]), "out of range for a power agent"),
        (Valuation.log([1.0, 1.0], [1.0, 0.0]), "allowed s > 0"),
        (Valuation(jnp.ones(2), jnp.zeros(2), jnp.ones(2), jnp.array([0, 7])), "unknown entry"),
    ],
)
def test_check_valuation_rejects_bad_instances(vals, match):
    with pytest.raises(ConfigError, match=match):
        check_valuation("vals", vals)


def test_pad_rejects_a_smaller_size():
    with pytest.raises(ConfigError, match="n_max=1"):
        Valuation.linear([1.0, 0.5]).pad(1)
