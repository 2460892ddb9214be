"""FactorCodec / PlainCodec shapes, frame alignment, FiLM, the analysis input standardisation, losses."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import FactorCodec, PlainCodec, codec_phase1_loss, codec_phase2_loss, index_map
from jaxpapers.unialm.codec import FiLM
from jaxpapers.unialm.config import CodecConfig, LossConfig

TINY = CodecConfig(a_dim=16, a_blocks=1, a_heads=2, r_width=8, r_blocks=1, a_codes=8, r_codes=8, a_levels=2, r_levels=3)
V = 12


@pytest.fixture(scope="module")
def codec_and_params():
    codec = FactorCodec(TINY, V)
    # one jitted init (seconds, then the persistent cache) instead of hundreds of op-by-op dispatches (~40 s)
    return codec, jax.jit(codec.init, static_argnums=(1, 2))(jax.random.key(0), 12800, 3)


def test_index_map_is_floor():
    np.testing.assert_array_equal(index_map(8, 20), [int(np.floor(t * 8 / 20)) for t in range(20)])
    np.testing.assert_array_equal(index_map(5, 12)[-3:], [3, 4, 4])


@pytest.mark.slow  # > 25 s on 2 cores
def test_tokenize_detokenize_shapes(codec_and_params):
    codec, params = codec_and_params
    x = jnp.asarray(np.random.default_rng(0).normal(size=(2, 12800)) * 0.1, jnp.float32)
    a, r = codec.tokenize(params, x)
    assert a.shape == (2, 8, 2) and r.shape == (2, 20, 3)  # 10 Hz × 0.8 s, 25 Hz × 0.8 s
    assert int(a.max()) < TINY.a_codes and int(r.max()) < TINY.r_codes
    y = codec.detokenize(params, a, r)
    assert y.shape == x.shape and bool(jnp.all(jnp.isfinite(y)))
    text = codec.describe(params, a, jnp.full((2, 1), 3), 2)
    assert text.shape == (2, 2) and int(text.max()) < V
    assert codec.embed_A(params, a).shape == (2, 8, 16)
    assert codec.embed_R(params, r, 1).shape == (2, 20, 8)


def test_illegal_clip_length_names_the_legal_multiple(codec_and_params):
    codec, params = codec_and_params
    with pytest.raises(ConfigError, match="0.04 s"):  # 0.5 s = 12.5 recon frames (spec Pitfall)
        codec.tokenize(params, jnp.zeros((1, 8000)))
    with pytest.raises(ConfigError, match="codec.decoder"):
        CodecConfig(decoder="hifigan")
    with pytest.raises(ConfigError, match="codec.cond_dropout"):
        CodecConfig(cond_dropout=1.5)


@pytest.mark.slow  # > 25 s on 2 cores
def test_plain_codec_has_no_analysis_stream():
    codec = PlainCodec(TINY, V)
    params = codec.init(jax.random.key(1), 7680)
    a, r = codec.tokenize(params, jnp.zeros((1, 7680)))
    assert a.shape == (1, 0, 2) and r.shape == (1, 12, 3)
    assert codec.detokenize(params, a, r).shape == (1, 7680)


def test_film_bounds_and_dropped_rows_exact():
    film = FiLM(4)
    h = jnp.asarray(np.random.default_rng(2).normal(size=(3, 5, 4)), jnp.float32)
    c = jnp.asarray(np.random.default_rng(3).normal(size=(3, 5, 4)) * 50, jnp.float32)
    params = film.init(jax.random.key(0), h, c, jnp.zeros(3, bool))["params"]
    params = jax.tree.map(lambda p: p + 1.0, params)  # non-zero Dense so the condition acts
    drop = jnp.asarray([True, False, True])
    y = film.apply({"params": params}, h, c, drop)
    np.testing.assert_array_equal(y[0], h[0])
    np.testing.assert_array_equal(y[2], h[2])
    gb = c[1] @ params["proj"]["kernel"] + params["proj"]["bias"]
    gamma = 1 + 0.1 * np.tanh(gb[:, :4])
    np.testing.assert_allclose(y[1], gamma * h[1] + gb[:, 4:], rtol=1e-5, atol=1e-5)
    assert np.all((gamma >= 0.9) & (gamma <= 1.1))


def test_analysis_input_is_standardised(codec_and_params):
    """Spec Pitfall: raw log-mel sits near the −11.5 floor; the LayerNorm before the first Dense must exist."""
    codec, params = codec_and_params
    assert "in_norm" in params["analysis"]["encoder"]
    raw_codec = FactorCodec(dataclasses.replace(TINY, analysis_norm="none"), V)
    raw = jax.eval_shape(lambda key: raw_codec.init(key, 12800, 2), jax.random.key(0))  # the tree, not the values
    assert "in_norm" not in raw["analysis"]["encoder"]


@pytest.mark.slow  # > 25 s on 2 cores
def test_losses_are_finite_and_mask_padding(codec_and_params):
    codec, params = codec_and_params
    x = jnp.asarray(np.random.default_rng(4).normal(size=(2, 12800)) * 0.1, jnp.float32)
    batch = {"audio": x, "prompt": jnp.full((2, 1), 4), "target": jnp.asarray([[5, 2, 0], [6, 7, 2]])}
    loss, aux = codec_phase1_loss(codec, params["analysis"], batch)
    assert np.isfinite(float(loss)) and 0 <= float(aux["first_token_acc"]) <= 1
    # a PAD target contributes nothing: changing row 0's padded target id to another PAD keeps the loss
    loss2, aux2 = codec_phase2_loss(
        codec,
        params["recon"],
        codec.analyze(params, x)["q"],
        x,
        jax.random.key(0),
        train=True,
        weights=LossConfig(mrstft=1.0),
    )
    assert np.isfinite(float(loss2)) and {"msmd", "l1", "vq", "mrstft"} <= set(aux2)


def test_vocos_head_clips_log_magnitude_before_exp():
    """Spec Pitfall: an unclipped log-magnitude overflows exp; with huge head weights the output stays finite."""
    from jaxpapers.unialm.codec import VocosDecoder

    cfg = CodecConfig(r_width=8, r_blocks=1)
    dec = VocosDecoder(cfg)
    h = jnp.ones((1, 3, 8))
    params = jax.jit(dec.init)(jax.random.key(0), h)["params"]  # jitted: one program, not one per op
    params["head"]["bias"] = params["head"]["bias"] + 1e4
    y = jax.jit(dec.apply)({"params": params}, h)
    assert y.shape == (1, 3 * 640) and bool(jnp.all(jnp.isfinite(y)))
    assert float(jnp.abs(y).max()) < 2 * np.exp(cfg.logmag_max) * cfg.r_fft
