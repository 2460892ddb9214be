"""The phase-2 GAN step (spec §2 recon step 5): alternating updates vs a two-pass reference, warm-up, the
discriminator loss falling, checkpoint/resume of both optimizer states through the shared trainer, and
(slow) the codec's GAN phase plus the unchanged plain phase."""

import dataclasses
import functools
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import OptimConfig, TrainState, fit, init_state, make_optimizer, make_train_step
from jaxpapers.unialm import discriminators as D
from jaxpapers.unialm import gan as G
from jaxpapers.unialm.config import GanConfig
from jaxpapers.unialm.data.pipeline import codec_stream

N = 96
TINY = GanConfig(periods=(3,), ffts=(32,), period_channels=(4,), stft_channels=4, bands=(0.0, 1.0), stft_layers=1)


def _audio(n=6, seed=0):
    return (np.random.default_rng(seed).normal(size=(n, N)) * 0.3).astype(np.float32)


def _toy_terms(params, batch, key):
    """A tiny 'generator': x̂ = tanh(x W + noise·s), reconstruction loss mean|x − x̂|."""
    x = batch["audio"]
    x_hat = jnp.tanh(x @ params["w"] + params["s"] * jax.random.normal(key, x.shape))
    loss = jnp.mean(jnp.abs(x - x_hat))
    return loss, {"l1": loss}, x_hat


def _toy_init(key):
    return {"w": jnp.eye(N) * 0.5 + 0.01 * jax.random.normal(key, (N, N)), "s": jnp.full((), 0.1, jnp.float32)}


def _state(gan, tx_g, tx_d, key=0):
    disc = G.make_discriminator(gan)
    dkey = jax.random.key(99)
    state, shardings = init_state(
        _toy_init, tx_g, jax.random.key(key), extras=lambda p: {G.DISC_KEY: G.disc_extras(disc, tx_d, dkey, N)}
    )
    return disc, state, shardings


def test_gan_config_rejects_bad_values():
    with pytest.raises(ConfigError, match="gan.kind"):
        GanConfig(kind="wgan")
    with pytest.raises(ConfigError, match="gan.bands"):
        GanConfig(bands=(0.0, 0.5, 0.4, 1.0))
    with pytest.raises(ConfigError, match="gan.start"):
        GanConfig(start=-1)
    with pytest.raises(ConfigError, match="at least one discriminator"):
        GanConfig(periods=(), ffts=())


def _reference_step(disc, gan, tx_g, tx_d, state, batch):
    """The GAN step written plainly: discriminator update, then ``jax.grad`` of the summed generator loss at
    the updated discriminator (two forward passes of the generator, no VJP reuse)."""
    kind = gan.kind
    key = jax.random.fold_in(state.key, state.step)
    x = batch["audio"]
    d = state.extras[G.DISC_KEY]
    x_hat = _toy_terms(state.params, batch, key)[2]
    d_loss, dg = jax.value_and_grad(lambda pd: D.discriminator_objective(disc, pd, x, x_hat, kind))(d["params"])
    du, d_opt = tx_d.update(dg, d["opt_state"], d["params"])
    d_params = optax.apply_updates(d["params"], du)

    def total(p):
        loss_rec, _, y = _toy_terms(p, batch, key)
        t = D.generator_terms(disc, d_params, x, y, kind)
        return loss_rec + gan.adv * t["adv"] + gan.fm * t["fm"]

    loss, g = jax.value_and_grad(total)(state.params)
    gu, opt_state = tx_g.update(g, state.opt_state, state.params)
    return loss, d_loss, optax.apply_updates(state.params, gu), d_params


def _close(a, b, rtol=1e-5, atol=1e-7):
    for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=atol)


@pytest.fixture(scope="module")
def toy():
    """One warm-up step (``start=1``) then the adversary: one compiled step shared by the default tests. The
    period discriminator alone keeps compilation short; the slow test below runs both kinds."""
    gan = dataclasses.replace(TINY, ffts=(), start=1)
    tx_g, tx_d = optax.adam(1e-2), optax.adam(3e-3)
    disc, state, _ = _state(gan, tx_g, tx_d)
    step = jax.jit(G.make_gan_step(_toy_terms, disc, tx_g, tx_d, gan))
    return gan, tx_g, tx_d, disc, state, step, {"audio": jnp.asarray(_audio()[:2])}


def test_warmup_then_adversarial_step_matches_the_plain_reference(toy):
    gan, tx_g, tx_d, disc, state, step, batch = toy
    # step 0 (warm-up): the plain reconstruction step, the discriminator state untouched
    plain = jax.jit(make_train_step(lambda p, b, k, *, train: _toy_terms(p, b, k)[:2], tx_g))
    s1, m0 = step(state, batch)
    p1, mp = plain(state, batch)
    np.testing.assert_allclose(m0["loss"], mp["loss"], rtol=1e-6)
    _close(s1.params, p1.params)
    assert all(
        bool(jnp.array_equal(a, b))
        for a, b in zip(jax.tree.leaves(state.extras[G.DISC_KEY]), jax.tree.leaves(s1.extras[G.DISC_KEY]), strict=True)
    )
    # step 1: discriminator update on (x, sg(x̂)), then the generator at the updated discriminator
    s2, m1 = step(s1, batch)
    loss, d_loss, params, d_params = jax.jit(functools.partial(_reference_step, disc, gan, tx_g, tx_d))(s1, batch)
    np.testing.assert_allclose(m1["loss"], loss, rtol=1e-5)
    np.testing.assert_allclose(m1["d_loss"], d_loss, rtol=1e-5)
    _close(s2.params, params, rtol=1e-4, atol=1e-6)
    _close(s2.extras[G.DISC_KEY]["params"], d_params)
    assert int(s2.step) == 2 and float(m1["loss"]) > float(m1["loss_rec"]) > 0


def test_discriminator_loss_falls_on_a_fixed_batch(toy):
    *_, state, step, batch = toy
    d_losses = []
    for _ in range(9):
        state, m = step(state, batch)
        assert np.isfinite(float(m["loss"])) and np.isfinite(float(m["d_loss"]))
        d_losses.append(float(m["d_loss"]))
    assert d_losses[-1] < d_losses[1], d_losses  # d_losses[0] is the warm-up step (no discriminator update)


@pytest.mark.slow  # two fits with orbax checkpoints: ~20 CPU-s
def test_fit_checkpoints_and_resumes_both_states(tmp_path):
    """Through the shared trainer: a 3-step run saving every step, its last checkpoint deleted, run again,
    equals the uninterrupted run in the generator's and the discriminator's params and optimizer states."""
    cfg = OptimConfig(lr=1e-2, b1=0.8, b2=0.99)
    tx_g, tx_d = make_optimizer(cfg, 3), make_optimizer(cfg, 3)
    audio = _audio()

    def run():
        disc, state, shardings = _state(TINY, tx_g, tx_d)
        step = G.make_gan_step(_toy_terms, disc, tx_g, tx_d, TINY)
        data = codec_stream({"audio": audio}, 2, seed=0)
        return fit(
            state,
            step,
            data,
            num_steps=3,
            workdir=str(tmp_path),
            shardings=shardings,
            log_every=1,
            ckpt_every=1,
            progress=False,
        )

    r1 = run()
    assert r1.resumed_from is None and {"d_loss", "adv", "fm", "loss_rec"} <= set(r1.history[-1])
    shutil.rmtree(tmp_path / "checkpoints" / "3")
    r2 = run()
    assert r2.resumed_from == 2 and int(r2.state.step) == 3
    for a, b in zip(jax.tree.leaves(r1.state), jax.tree.leaves(r2.state), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-8)
    assert isinstance(r2.state, TrainState) and G.DISC_KEY in r2.state.extras


@pytest.mark.slow  # compiles the codec's reconstruction branch three times: > 60 CPU-s
def test_codec_gan_phase_trains_and_resumes(tmp_path):
    """train_recon with a GanConfig: finite losses, the discriminator state checkpointed, resume = no interruption."""
    from jaxpapers.core.train import LoopConfig
    from jaxpapers.unialm import PlainCodec, train
    from jaxpapers.unialm.config import CodecConfig, LossConfig

    codec = PlainCodec(CodecConfig(r_width=8, r_blocks=1, r_codes=8, r_levels=2), 4)
    audio = np.random.default_rng(0).normal(size=(6, 1280)).astype(np.float32) * 0.1
    gan = dataclasses.replace(TINY, ffts=(64,), kind="hinge")
    kw = dict(optim=OptimConfig(lr=1e-3), loss=LossConfig(restart_every=2), key=jax.random.key(0), gan=gan)
    loop = LoopConfig(steps=3, batch_size=2, log_every=1, ckpt_every=1)
    r1 = train.train_recon(codec, audio, loop=loop, workdir=str(tmp_path), **kw)
    last = r1.history[-1]
    assert {"msmd", "l1", "vq", "adv", "fm", "d_loss", "dead_codes"} <= set(last)
    assert all(np.isfinite(last[k]) for k in ("loss", "adv", "fm", "d_loss"))
    assert last["loss"] > last["loss_rec"]
    shutil.rmtree(tmp_path / "checkpoints" / "3")
    r2 = train.train_recon(codec, audio, loop=loop, workdir=str(tmp_path), **kw)
    assert r2.resumed_from == 2
    _close(r1.state, r2.state, rtol=1e-6, atol=1e-8)
    p0 = train.recon_init(codec, 1280, jax.random.key(0))  # the generator's init does not move with a GAN
    plain = train.train_recon(
        codec, audio, loop=dataclasses.replace(loop, steps=1, ckpt_every=None), **{**kw, "gan": None}
    )
    assert jax.tree.structure(p0) == jax.tree.structure(plain.state.params) == jax.tree.structure(r1.state.params)
    assert G.DISC_KEY not in plain.state.extras


@pytest.mark.slow  # two compilations of the reconstruction branch: > 40 CPU-s
def test_plain_phase_is_the_stock_step_bit_for_bit():
    """Without a GanConfig, train_recon equals the stock make_train_step over codec_phase2_loss exactly."""
    from jaxpapers.core.train import LoopConfig
    from jaxpapers.unialm import PlainCodec, codec_phase2_loss, train
    from jaxpapers.unialm.config import CodecConfig, LossConfig

    codec = PlainCodec(CodecConfig(r_width=8, r_blocks=1, r_codes=8, r_levels=2), 4)
    audio = np.random.default_rng(0).normal(size=(6, 1280)).astype(np.float32) * 0.1
    optim, loss, key = OptimConfig(lr=1e-3), LossConfig(restart_every=2), jax.random.key(0)
    loop = LoopConfig(steps=3, batch_size=2, log_every=1)
    got = train.train_recon(codec, audio, optim=optim, loop=loop, loss=loss, key=key)

    x0 = jnp.zeros((1, 1280), jnp.float32)
    tx = make_optimizer(optim, loop.steps)

    def loss_fn(p, batch, k, *, train):
        return codec_phase2_loss(codec, p, None, batch["audio"], k, train=train, weights=loss, usage=True)

    state, _ = init_state(
        lambda k: codec.recon.init(k, x0, None, jnp.zeros((1,), bool))["params"],
        tx,
        key,
        extras=lambda p: train.codec_extras(p, ("rvq",), 2, 8, False),
    )
    step = train.with_dead_code_restart(make_train_step(loss_fn, tx), ("rvq",), 2, 2)
    ref = fit(state, step, codec_stream({"audio": audio}, 2, seed=3 + 1), num_steps=3, log_every=1, progress=False)
    for a, b in zip(jax.tree.leaves(got.state), jax.tree.leaves(ref.state), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert [r["loss"] for r in got.history] == [r["loss"] for r in ref.history]
