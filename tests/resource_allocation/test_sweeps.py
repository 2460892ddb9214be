"""The α × instances sweep programs against plain loops (chunked and unchunked)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.resource_allocation.batching import batched, batched_over_alphas
from jaxpapers.resource_allocation.sweeps import efficiency_one, liquid_efficiency_one, over_alphas
from jaxpapers.resource_allocation.valuations import random_budgets, random_instances

ALPHAS = (1.0, 0.3, 0.02)


@pytest.fixture(scope="module")
def vals():
    with jax.enable_x64(True):
        return random_instances(jax.random.key(11), 5, 4)


@pytest.mark.parametrize("chunk_size", [None, 2])
def test_sweep_equals_a_plain_loop(x64, vals, chunk_size):
    out = batched_over_alphas(efficiency_one, chunk_size, outer_iters=60, inner_iters=50)(jnp.asarray(ALPHAS), vals)
    assert out.shape == (len(ALPHAS), 5)
    one = jax.jit(lambda v, a: efficiency_one(v, a, outer_iters=60, inner_iters=50))
    for i, a in enumerate(ALPHAS):
        for b in range(5):
            np.testing.assert_allclose(out[i, b], one(vals[b], a), rtol=1e-15)


def test_sweep_with_per_instance_extras(x64, vals):
    budgets = random_budgets(jax.random.key(1), vals.w.shape)
    ratio, x, lam = batched_over_alphas(liquid_efficiency_one, 2)(jnp.asarray(ALPHAS), vals, budgets)
    assert ratio.shape == (3, 5) and x.shape == (3, 5, 4)
    one = jax.jit(liquid_efficiency_one)
    r, xb, lb = one(vals[4], ALPHAS[2], budgets[4])
    np.testing.assert_allclose(ratio[2, 4], r, rtol=1e-15)
    np.testing.assert_allclose(x[2, 4], xb, rtol=1e-15)


def test_over_alphas_layout_matches_the_sweep(x64, vals):
    tiled, grid, _ = over_alphas(vals, ALPHAS)
    assert tiled.w.shape == (3, 5, 4) and grid.shape == (3, 5)
    flat = jax.tree.map(lambda a: a.reshape((-1,) + a.shape[2:]), tiled)
    a = batched(efficiency_one, None, outer_iters=60, inner_iters=50)(flat, grid.reshape(-1)).reshape(3, 5)
    b = batched_over_alphas(efficiency_one, None, outer_iters=60, inner_iters=50)(jnp.asarray(ALPHAS), vals)
    np.testing.assert_allclose(a, b, rtol=1e-15)
