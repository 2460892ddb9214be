"""The flow decoder (spec §2 recon step 6): the rectified-flow path and loss vs float64 NumPy, Euler sampling
with the exact velocity of a known Gaussian reproducing it (and matching a plain loop), the DiT's shapes,
null condition and CFG."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import flow


def test_flow_path_matches_numpy_and_its_derivative():
    rng = np.random.default_rng(0)
    z, x1 = rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4, 2))
    t = np.array([0.0, 0.3, 1.0])
    s = 1e-2
    y, u = flow.flow_path(jnp.asarray(z, jnp.float32), jnp.asarray(x1, jnp.float32), jnp.asarray(t, jnp.float32), s)
    tt = t[:, None, None]
    np.testing.assert_allclose(y, (1 - (1 - s) * tt) * z + tt * x1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(u, x1 - (1 - s) * z, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y[0], z[0], atol=1e-6)  # t = 0: noise; t = 1: the target up to σ_min·z
    np.testing.assert_allclose(y[2], x1[2] + s * z[2], rtol=1e-5, atol=1e-6)


def test_flow_matching_loss_matches_numpy():
    """A linear velocity model in JAX and in float64 NumPy, the same draws of z, t and the drop mask."""
    rng = np.random.default_rng(1)
    b, t_len, f, c = 5, 3, 2, 4
    w, m, bias, null = rng.normal(size=(f, f)), rng.normal(size=(c, f)), rng.normal(size=f), rng.normal(size=c)
    x1, cond = rng.normal(size=(b, t_len, f)), rng.normal(size=(b, t_len, c))

    def velocity(y, t, cnd, drop):
        cnd = jnp.where(drop[:, None, None], jnp.asarray(null, jnp.float32), cnd)
        return y @ jnp.asarray(w, jnp.float32) + t[:, None, None] * jnp.asarray(bias, jnp.float32) + cnd @ m

    key = jax.random.key(3)
    loss, aux = jax.jit(lambda x, c, k: flow.flow_matching_loss(velocity, x, c, k, sigma_min=1e-3, cond_drop=0.4))(
        jnp.asarray(x1, jnp.float32), jnp.asarray(cond, jnp.float32), key
    )
    kz, kt, kd = jax.random.split(key, 3)  # the documented draws
    z = np.asarray(jax.random.normal(kz, x1.shape), np.float64)
    t = np.asarray(jax.random.uniform(kt, (b,)), np.float64)
    drop = np.asarray(jax.random.uniform(kd, (b,)) < 0.4)
    assert 0 < drop.sum() < b  # both branches exercised
    y = (1 - (1 - 1e-3) * t[:, None, None]) * z + t[:, None, None] * x1
    u = x1 - (1 - 1e-3) * z
    cn = np.where(drop[:, None, None], null, cond)
    v = y @ w + t[:, None, None] * bias + cn @ m
    np.testing.assert_allclose(loss, np.mean((v - u) ** 2), rtol=1e-5)
    np.testing.assert_allclose(aux["flow_t"], t.mean(), rtol=1e-6)
    with pytest.raises(ConfigError, match="cond_drop"):
        flow.flow_matching_loss(velocity, jnp.asarray(x1), jnp.asarray(cond), key, cond_drop=1.5)


def _gaussian_velocity(mu, s, sigma_min):
    """The exact marginal velocity E[u | y_t = y] when x1 ~ N(μ, s²) per coordinate and z ~ N(0, 1)."""

    def v(y, t):
        tt = t[:, None, None]
        a = 1 - (1 - sigma_min) * tt
        return mu + (tt * s**2 - (1 - sigma_min) * a) / (a**2 + tt**2 * s**2) * (y - tt * mu)

    return v


def test_euler_sampling_with_the_exact_velocity_reproduces_the_gaussian():
    mu, s, sm = jnp.asarray([1.5, -0.5]), jnp.asarray([0.3, 2.0]), 1e-4
    z = jax.random.normal(jax.random.key(0), (4000, 1, 2))
    y1 = jax.jit(lambda z: flow.euler_sample(_gaussian_velocity(mu, s, sm), z, 400))(z)
    # the 1-D Gaussian flow is the monotone affine map z -> μ + sqrt(s² + σ_min²)·z: check it per sample
    # (Euler's error is relative: about 0.4% of s·|z| at 400 steps)
    assert np.all(np.abs(y1 - (mu + np.sqrt(s**2 + sm**2) * z)) <= 1e-2 * s * (0.1 + np.abs(z)))
    np.testing.assert_allclose(y1.mean(axis=(0, 1)), mu, atol=0.1)
    np.testing.assert_allclose(y1.std(axis=(0, 1)), s, rtol=0.05)
    # the fori_loop path equals a plain Python loop of Euler steps
    v = _gaussian_velocity(mu, s, sm)
    y = z[:8]
    for i in range(7):
        y = y + v(y, jnp.full((8,), i / 7.0)) / 7.0
    np.testing.assert_allclose(flow.euler_sample(v, z[:8], 7), y, rtol=1e-5, atol=1e-6)
    with pytest.raises(ConfigError, match="steps"):
        flow.euler_sample(v, z, 0)


def test_dit_shapes_null_condition_and_cfg():
    dit = flow.FlowDiT(features=3, dim=16, blocks=1, heads=2)
    rng = np.random.default_rng(2)
    y, cond = jnp.asarray(rng.normal(size=(2, 5, 3)), jnp.float32), jnp.asarray(rng.normal(size=(2, 5, 4)), jnp.float32)
    t, keep = jnp.asarray([0.2, 0.7]), jnp.zeros((2,), bool)
    params = jax.jit(dit.init)(jax.random.key(0), y, t, cond, keep)["params"]
    run = jax.jit(lambda p, y, t, c, d: dit.apply({"params": p}, y, t, c, d))  # one compile for every call below
    out = run(params, y, t, cond, keep)
    assert out.shape == (2, 5, 3) and float(jnp.abs(out).max()) == 0  # zero-initialised output projection
    params = jax.tree.map(lambda p: p + 0.05 * jnp.ones_like(p), params)  # leave the zero init

    def apply(y, t, c, d):
        return run(params, y, t, c, d)

    drop = jnp.ones((2,), bool)
    np.testing.assert_allclose(apply(y, t, cond, drop), apply(y, t, cond * 3.0 - 1.0, drop))  # null ignores c
    assert float(jnp.abs(apply(y, t, cond, keep) - apply(y, t, cond * 3.0, keep)).max()) > 0
    v1 = flow.cfg_velocity(apply, cond, 1.0)(y, t)
    np.testing.assert_array_equal(v1, apply(y, t, cond, keep))  # s = 1: the conditional velocity exactly
    v2 = flow.cfg_velocity(apply, cond, 1.5)(y, t)
    v_u = apply(y, t, cond, drop)
    np.testing.assert_allclose(v2, v_u + 1.5 * (apply(y, t, cond, keep) - v_u), rtol=1e-5, atol=1e-6)
    # rows are independent (attention within a sequence): editing row 1's inputs leaves row 0's output alone
    y2 = y.at[1].set(0.0)
    np.testing.assert_array_equal(apply(y2, t, cond, keep)[0], apply(y, t, cond, keep)[0])


@pytest.mark.slow  # compiles the reconstruction branch with the DiT and the vocoder: > 30 CPU-s
def test_flow_decoder_option_in_the_codec():
    """``decoder="flow"``: init, the phase-2 loss (flow matching + vocoder MSMD/L1 + VQ) with gradients reaching
    the DiT and the vocoder, and a sampled decode of the right length; bad flow settings raise."""
    from jaxpapers.unialm import PlainCodec, codec_phase2_loss
    from jaxpapers.unialm.config import CodecConfig, LossConfig
    from jaxpapers.unialm.flow_decoder import mel_target

    cfg = CodecConfig(r_width=8, r_blocks=1, r_codes=8, r_levels=2, n_mels=16, decoder="flow", flow_width=16)
    cfg = dataclasses.replace(cfg, flow_blocks=1, flow_heads=2, flow_steps=3)
    codec = PlainCodec(cfg, 4)
    x = jnp.asarray(np.random.default_rng(0).normal(size=(2, 1280)) * 0.1, jnp.float32)
    params = codec.init(jax.random.key(0), 1280)
    assert {"dit", "vocoder"} <= set(params["recon"]["decoder"])

    def loss(p):
        return codec_phase2_loss(codec, p, None, x, jax.random.key(1), train=True, weights=LossConfig())

    (val, aux), g = jax.jit(jax.value_and_grad(loss, has_aux=True))(params["recon"])
    assert np.isfinite(float(val)) and float(aux["flow_mse"]) > 0 and float(aux["msmd"]) > 0
    dec = g["decoder"]
    assert float(optax_norm(dec["dit"]["out_proj"])) > 0 and float(optax_norm(dec["vocoder"])) > 0
    assert float(optax_norm(g["encoder"])) > 0  # the flow loss trains the tokens' encoder too
    assert mel_target(cfg, x).shape == (2, 8, 16)
    codes_a, codes_r = codec.tokenize(params, x)
    y = jax.jit(codec.detokenize)(params, codes_a, codes_r)
    assert y.shape == (2, 1280) and np.isfinite(np.asarray(y)).all()
    h = jnp.zeros((2, 2, 8))
    dec_key = codec.recon.apply({"params": params["recon"]}, h, method=lambda m, h: m.decoder(h, jax.random.key(5)))
    assert dec_key.shape == (2, 1280)
    with pytest.raises(ConfigError, match="flow_width"):
        CodecConfig(decoder="flow", flow_width=10, flow_heads=4)


def optax_norm(tree):
    return jnp.sqrt(sum(jnp.sum(jnp.square(v)) for v in jax.tree.leaves(tree)))
