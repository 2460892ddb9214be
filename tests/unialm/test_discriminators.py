"""GAN discriminators: output shapes, losses vs NumPy, gradients, and one tiny training step."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import discriminators as D

TINY = dict(periods=(2, 3), ffts=(64, 32), period_channels=(4, 8), stft_channels=4, bands=(0, 0.3, 1), stft_layers=2)


def _batch(seed=0, b=2, n=330):
    rng = np.random.default_rng(seed)
    return jnp.asarray(rng.normal(size=(b, n)) * 0.3, jnp.float32)


def test_shapes_per_sub_discriminator():
    disc = D.MultiDiscriminator(**TINY)
    x = _batch()
    params = disc.init(jax.random.key(0), x)["params"]
    outs = disc.apply({"params": params}, x)
    assert len(outs) == 4
    for p, (logits, feats) in zip((2, 3), outs[:2], strict=True):
        rows = -(-330 // p)  # right-padded to a multiple of p
        assert feats[0].shape == (2, -(-rows // 3), p, 4) and len(feats) == 2
        assert logits.shape[-1] == 1 and logits.shape[2] == p  # periods never mix
    for f, (logits, feats) in zip((64, 32), outs[2:], strict=True):
        t = D.audio.stft(x, f, f // 4).shape[1]
        assert len(feats) == 2 * 2 and feats[0].shape[:2] == (2, t) and logits.shape[:2] == (2, t)


def test_period_reshape_keeps_columns_apart():
    """A signal living only on phase 0 of period 3 gives features that differ only in column 0 from zeros'."""
    disc = D.PeriodDiscriminator(3, (4, 4))
    x = jnp.zeros((1, 30)).at[:, ::3].set(1.0)
    params = disc.init(jax.random.key(1), x)["params"]
    _, f_x = disc.apply({"params": params}, x)
    _, f_0 = disc.apply({"params": params}, jnp.zeros((1, 30)))
    diff = np.abs(np.asarray(f_x[-1]) - np.asarray(f_0[-1])).sum(axis=(0, 1, 3))
    assert diff[0] > 0 and diff[1] == 0 and diff[2] == 0


def test_losses_match_numpy():
    rng = np.random.default_rng(2)
    real = [(jnp.asarray(rng.normal(size=(2, 5, 1))), [jnp.asarray(rng.normal(size=(2, 3)))]) for _ in range(2)]
    fake = [(jnp.asarray(rng.normal(size=(2, 4, 1))), [jnp.asarray(rng.normal(size=(2, 3)))]) for _ in range(2)]
    r = [np.asarray(lr) for lr, _ in real]
    f = [np.asarray(lf) for lf, _ in fake]
    ls = np.mean([np.mean((1 - a) ** 2) + np.mean(b**2) for a, b in zip(r, f, strict=True)])
    hi = np.mean([np.mean(np.maximum(1 - a, 0)) + np.mean(np.maximum(1 + b, 0)) for a, b in zip(r, f, strict=True)])
    np.testing.assert_allclose(D.d_loss(real, fake, "lsgan"), ls, rtol=1e-6)
    np.testing.assert_allclose(D.d_loss(real, fake, "hinge"), hi, rtol=1e-6)
    np.testing.assert_allclose(D.g_loss(fake, "lsgan"), np.mean([np.mean((1 - b) ** 2) for b in f]), rtol=1e-6)
    np.testing.assert_allclose(D.g_loss(fake, "hinge"), np.mean([-np.mean(b) for b in f]), rtol=1e-6)
    fm = np.mean([np.mean(np.abs(np.asarray(a[1][0]) - np.asarray(b[1][0]))) for a, b in zip(real, fake, strict=True)])
    np.testing.assert_allclose(D.feature_matching(real, fake), fm, rtol=1e-6)
    with pytest.raises(ConfigError, match="kind"):
        D.d_loss(real, fake, "wgan")


@pytest.mark.slow  # 10 s in CI; test_gan.py's fixed-batch test checks the falling discriminator loss by default
def test_tiny_gradient_steps():
    """Discriminator steps lower its loss on a fixed pair; generator terms send finite gradient to x̂ only."""
    disc = D.MultiDiscriminator(
        periods=(3,), ffts=(32,), period_channels=(4,), stft_channels=4, bands=(0, 1), stft_layers=1
    )
    x, x_hat = _batch(3, n=96), _batch(4, n=96) * 0.2
    params = disc.init(jax.random.key(0), x)["params"]
    tx = optax.adam(1e-3)
    opt = tx.init(params)
    loss_grad = jax.jit(jax.value_and_grad(lambda p: D.discriminator_objective(disc, p, x, x_hat, "hinge")))
    first, _ = loss_grad(params)
    for _ in range(5):
        _, g = loss_grad(params)
        upd, opt = tx.update(g, opt, params)
        params = optax.apply_updates(params, upd)
    assert float(loss_grad(params)[0]) < float(first)
    g_fake = jax.jit(jax.grad(lambda y: D.discriminator_objective(disc, params, x, y)))(x_hat)
    assert float(jnp.abs(g_fake).sum()) == 0  # the discriminator objective does not train the generator

    def gen(p, y):
        t = D.generator_terms(disc, p, x, y)
        return t["adv"] + 2.0 * t["fm"]

    gp, gy = jax.jit(jax.grad(gen, argnums=(0, 1)))(params, x_hat)
    assert all(float(jnp.abs(v).sum()) == 0 for v in jax.tree.leaves(gp))
    assert np.isfinite(np.asarray(gy)).all() and float(jnp.abs(gy).sum()) > 0
