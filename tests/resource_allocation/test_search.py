"""Adversarial search: perturbations respect the families, the best value never rises, bounds are never beaten."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation.bounds import poa_bound
from jaxpapers.resource_allocation.config import SearchConfig
from jaxpapers.resource_allocation.search import perturb, run_search
from jaxpapers.resource_allocation.sweeps import efficiency_one
from jaxpapers.resource_allocation.valuations import check_valuation, random_instances


def test_perturb_keeps_kinds_padding_and_ranges(x64):
    vals = random_instances(jax.random.key(0), 64, 5)
    new = perturb(jax.random.key(1), vals, 0.5)
    np.testing.assert_array_equal(new.kind, vals.kind)
    np.testing.assert_array_equal(new.active, vals.active)
    assert not np.allclose(new.w, vals.w)
    check_valuation("perturbed", new)


def test_search_never_gets_worse_and_respects_the_bound(x64):
    cfg = SearchConfig(population=16, generations=3, elite_frac=0.25, sigma=0.5)
    init = random_instances(jax.random.key(2), cfg.population, 3)
    objective = functools.partial(efficiency_one, outer_iters=60, inner_iters=50)
    best, worst_vals, worst = run_search(jax.random.key(3), init, lambda v: objective(v, 0.5), cfg)
    best = np.asarray(best)
    assert best.shape == (cfg.generations + 1,)
    assert np.all(np.diff(best) <= 0)  # elites survive unchanged
    evaluate = jax.jit(jax.vmap(lambda v: objective(v, 0.5)))
    initial = evaluate(init).min()
    np.testing.assert_allclose(best[0], initial, rtol=1e-15)
    assert best[-1] <= initial
    assert worst >= poa_bound(0.5) - 1e-9
    again = evaluate(jax.tree.map(lambda a: a[None], worst_vals))[0]
    np.testing.assert_allclose(again, worst, rtol=1e-12)


def test_search_finds_a_known_minimum(x64):
    """On a toy objective (total slope) the search must make progress."""
    cfg = SearchConfig(population=20, generations=6, elite_frac=0.2, sigma=0.3)
    init = random_instances(jax.random.key(4), cfg.population, 3)
    best, _, worst = run_search(jax.random.key(5), init, lambda v: jnp.sum(v.w), cfg)
    assert best[-1] < 0.7 * float(jnp.min(jnp.sum(init.w, -1)))


@pytest.mark.parametrize("kw", [dict(population=1), dict(elite_frac=0.0), dict(sigma=-1.0), dict(generations=-1)])
def test_search_config_validation(kw):
    with pytest.raises(ConfigError):
        SearchConfig(**kw)
