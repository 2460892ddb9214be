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


def _np_ema(count, summ, codes, enc, decay, eps=quantize.EMA_EPS):
    """Float64 loop re-implementation of one EMA codebook update (VQ-VAE appendix A.1, Laplace smoothing)."""
    k = len(count)
    n_b, m_b = np.zeros(k), np.zeros_like(summ, dtype=np.float64)
    for code, e in zip(codes, enc, strict=True):
        n_b[code] += 1
        m_b[code] += e
    count = decay * count + (1 - decay) * n_b
    summ = decay * summ + (1 - decay) * m_b
    tot = count.sum()
    return count, summ, summ / ((count + eps) / (tot + k * eps) * tot)[:, None]


def test_ema_update_matches_numpy_loop():
    rng = np.random.default_rng(3)
    q, k, c, n = 2, 6, 3, 40
    codes = rng.integers(0, k - 1, size=(n, q))  # code k-1 unused: its value must stay (decayed stats)
    enc = rng.normal(size=(q, n, c))
    aux = quantize.usage_aux(jnp.asarray(codes), jnp.asarray(enc, jnp.float32), k)
    count0, summ0 = rng.uniform(0.5, 2, size=(q, k)), rng.normal(size=(q, k, c))
    for lvl in range(q):
        got = quantize.ema_codebook_update(
            jnp.asarray(count0[lvl], jnp.float32),
            jnp.asarray(summ0[lvl], jnp.float32),
            aux[quantize.USAGE_KEY][lvl],
            aux[quantize.ENC_SUM_KEY][lvl],
            0.9,
        )
        ref = _np_ema(count0[lvl], summ0[lvl], codes[:, lvl], enc[lvl], 0.9)
        for g, r in zip(got, ref, strict=True):
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-6)
    # fresh statistics reproduce the codebook; an unused code keeps its value after an update
    book = jnp.asarray(rng.normal(size=(k, c)), jnp.float32)
    cnt, sm = quantize.ema_init(book)
    np.testing.assert_allclose(quantize.ema_codebook(cnt, sm), book, rtol=1e-5)
    _, _, new = quantize.ema_codebook_update(cnt, sm, aux[quantize.USAGE_KEY][0], aux[quantize.ENC_SUM_KEY][0], 0.99)
    np.testing.assert_allclose(new[k - 1] / book[k - 1], new[k - 1, 0] / book[k - 1, 0], rtol=1e-5)  # same direction


def test_ema_quantizer_has_no_codebook_loss_or_gradient():
    x = jnp.asarray(np.random.default_rng(4).normal(size=(5, 6)), jnp.float32)
    grad_vq, ema_vq = VectorQuantizer(16, 4), VectorQuantizer(16, 4, ema=True)
    params = grad_vq.init(jax.random.key(0), x)["params"]  # same parameter tree for both
    out_g, out_e = grad_vq.apply({"params": params}, x), ema_vq.apply({"params": params}, x)
    np.testing.assert_array_equal(out_g["codes"], out_e["codes"])
    commit = np.mean((np.asarray(out_e["e"]) - np.asarray(out_e["z"])) ** 2, -1)
    np.testing.assert_allclose(out_e["loss"], quantize.COMMIT_WEIGHT * commit, rtol=1e-5)
    g = jax.grad(lambda p: ema_vq.apply({"params": p}, x)["loss"].sum())(params)
    assert float(jnp.abs(g["codebook"]).sum()) == 0 and float(jnp.abs(g["proj_in"]["kernel"]).sum()) > 0
    g = jax.grad(lambda p: grad_vq.apply({"params": p}, x)["loss"].sum())(params)
    assert float(jnp.abs(g["codebook"]).sum()) > 0
