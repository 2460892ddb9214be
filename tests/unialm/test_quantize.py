"""Quantizers: nearest codes vs brute force, the straight-through estimator, level masks, usage, restarts."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import quantize
from jaxpapers.unialm.quantize import ResidualVQ, VectorQuantizer


def test_nearest_code_is_cosine_argmax():
    rng = np.random.default_rng(0)
    e, book = rng.normal(size=(20, 8)), rng.normal(size=(16, 8))
    got = np.asarray(quantize.nearest_code(jnp.asarray(e), jnp.asarray(book)))
    ref = [max(range(16), key=lambda k: e[i] @ book[k] / np.linalg.norm(book[k])) for i in range(20)]
    np.testing.assert_array_equal(got, ref)


def test_straight_through_passes_gradient_upstream():
    """Spec Pitfall: z̃ = e + sg(z − e) must give d z̃ / d x = d e / d x (else nothing upstream trains)."""
    vq = VectorQuantizer(16, 4)
    x = jnp.asarray(np.random.default_rng(1).normal(size=(5, 6)), jnp.float32)
    params = vq.init(jax.random.key(0), x)["params"]
    g_st = jax.grad(lambda x: vq.apply({"params": params}, x)["z_st"].sum())(x)
    g_e = jax.grad(lambda x: vq.apply({"params": params}, x)["e"].sum())(x)
    np.testing.assert_allclose(g_st, g_e, rtol=1e-6)
    assert float(jnp.abs(g_st).sum()) > 0
    out = vq.apply({"params": params}, x)
    np.testing.assert_allclose(out["z_st"], out["z"], atol=1e-6)  # forward value is the code


def test_rvq_decode_matches_forward_and_level_masks():
    rvq = ResidualVQ(3, 8, 4, dim=6)
    x = jnp.asarray(np.random.default_rng(2).normal(size=(4, 5, 6)), jnp.float32)
    params = rvq.init(jax.random.key(0), x)["params"]
    out = rvq.apply({"params": params}, x)
    np.testing.assert_allclose(
        rvq.apply({"params": params}, out["codes"], method=ResidualVQ.decode), out["q"], atol=1e-5
    )
    # per-example level counts: row i keeps the first n_i levels, the plain loop over levels agrees
    n = jnp.asarray([1, 2, 3, 1])
    part = rvq.apply({"params": params}, x, n)
    for i in range(4):
        ref = sum(out["parts"][lvl][i] for lvl in range(int(n[i])))
        np.testing.assert_allclose(part["q"][i], ref, atol=1e-5)
        dec = quantize.codes_to_embeddings(rvq, params, out["codes"][i], int(n[i]))
        np.testing.assert_allclose(dec, ref, atol=1e-5)
    with pytest.raises(ConfigError, match="levels"):
        quantize.codes_to_embeddings(rvq, params, out["codes"][..., :2])


def test_usage_stats_and_restart():
    codes = np.array([[0, 1], [0, 1], [2, 1], [0, 3]])
    s = quantize.code_usage_stats(codes, 4)
    np.testing.assert_array_equal(s["distinct"], [2, 2])
    p = np.array([0.75, 0.25])
    np.testing.assert_allclose(s["perplexity"][0], np.exp(-(p * np.log(p)).sum()))
    with pytest.raises(ConfigError, match=r"\[0, 4\)"):
        quantize.code_usage_stats(codes + 2, 4)
    book = jnp.arange(8.0).reshape(4, 2)
    cand = jnp.full((3, 2), -1.0)
    new = np.asarray(quantize.restart_dead_codes(book, jnp.asarray([1.0, 0, 2, 0]), cand, jax.random.key(0)))
    np.testing.assert_array_equal(new[[0, 2]], np.asarray(book)[[0, 2]])
    np.testing.assert_array_equal(new[[1, 3]], -1.0)
    counts = quantize.usage_aux(jnp.asarray(codes), jnp.zeros((2, 4, 8)), 4)[quantize.USAGE_KEY]
    np.testing.assert_array_equal(counts, [[3, 0, 1, 0], [0, 3, 0, 1]])


def test_dropout_levels_range():
    n = np.asarray(quantize.dropout_levels(jax.random.key(0), 4000, 4, 0.5))
    assert n.min() >= 1 and n.max() == 4
    assert abs(np.mean(n == 4) - (0.5 + 0.5 / 4)) < 0.03
