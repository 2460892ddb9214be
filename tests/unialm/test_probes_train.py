"""Probes (vmapped scan trainer vs a plain loop), the dead-code restart step, orbax checkpoints and resume."""

import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.train import LoopConfig, OptimConfig, TrainState
from jaxpapers.unialm import PlainCodec, probes, train
from jaxpapers.unialm.config import CodecConfig, LossConfig, ProbeConfig
from jaxpapers.unialm.quantize import ENC_KEY, USAGE_KEY


def test_vmapped_probes_match_plain_loop():
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(3, 6)) * 2
    y = np.tile(np.arange(3), 4)
    xs = np.stack([centers[y] + rng.normal(size=(12, 6)) for _ in range(2)])
    ty = np.tile(np.arange(3), 10)
    tx = np.stack([centers[ty] + rng.normal(size=(30, 6)) * s for s in (1.5, 8.0)])  # each probe its own test set
    cfg = ProbeConfig(steps=60, voices=(0, 1))
    got = probes.probe_accuracies(xs, np.stack([y, y]), tx, ty, cfg, 3)
    ref = [probes.probe_accuracy_loop(xs[i], y, tx[i], ty, cfg, 3) for i in range(2)]
    np.testing.assert_allclose(got, ref, atol=1 / 30 + 1e-9)
    assert got[0] > 0.5 and got[1] < got[0]
    shared = probes.probe_accuracies(xs, np.stack([y, y]), tx[0], ty, cfg, 3)
    np.testing.assert_allclose(shared[0], got[0])


def test_single_voice_sets_split_by_voice():
    f = np.arange(12.0)[:, None]
    voice = np.array([0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2])
    held = voice == 2
    trx, try_, tex, tey = probes.single_voice_sets(f, voice, np.arange(12) % 10, held, (0, 1))
    assert trx.shape == (2, 4, 1) and tex.shape == (4, 1)
    np.testing.assert_array_equal(trx[0, :, 0], [0, 1, 6, 7])
    with pytest.raises(ValueError, match="training voices"):
        probes.single_voice_sets(f, voice, np.arange(12), held, (2,))


def test_dead_code_restart_step():
    params = {"rvq": {"level_0": {"codebook": jnp.zeros((4, 2))}}}
    enc = jnp.ones((1, 3, 2)) * 7

    def step(state, batch):
        metrics = {"loss": jnp.zeros(()), USAGE_KEY: jnp.asarray([[1.0, 0, 0, 2]]), ENC_KEY: enc}
        return state.replace(step=state.step + 1), metrics

    wrapped = jax.jit(train.with_dead_code_restart(step, ("rvq",), 1, every=2))
    state = TrainState(
        step=jnp.zeros((), jnp.int32),
        params=params,
        opt_state=(),
        rng=jax.random.key_data(jax.random.key(0)),
        extras={"usage": jnp.zeros((1, 4))},
    )
    state, m = wrapped(state, None)
    assert USAGE_KEY not in m and float(state.params["rvq"]["level_0"]["codebook"].sum()) == 0  # step 1: no restart
    state, m = wrapped(state, None)
    book = np.asarray(state.params["rvq"]["level_0"]["codebook"])
    np.testing.assert_array_equal(book[[1, 2]], 7.0)  # unused codes restarted from encodings
    np.testing.assert_array_equal(book[[0, 3]], 0.0)
    assert float(state.extras["usage"].sum()) == 0


@pytest.mark.slow  # > 25 s on 2 cores
def test_recon_training_checkpoints_and_resumes(tmp_path):
    cfg = CodecConfig(r_width=8, r_blocks=1, r_codes=8, r_levels=2)
    codec = PlainCodec(cfg, 4)
    audio = np.random.default_rng(0).normal(size=(6, 1280)).astype(np.float32) * 0.1
    kw = dict(
        optim=OptimConfig(lr=1e-3), loss=LossConfig(restart_every=1), key=jax.random.key(0), workdir=str(tmp_path)
    )
    r1 = train.train_recon(codec, audio, loop=LoopConfig(steps=2, batch_size=2, log_every=1), **kw)
    assert (tmp_path / "checkpoints").exists() and r1.resumed_from is None
    assert {"msmd", "l1", "vq", "dead_codes"} <= set(r1.history[-1])
    r2 = train.train_recon(codec, audio, loop=LoopConfig(steps=3, batch_size=2, log_every=1), **kw)
    assert r2.resumed_from == 2 and int(r2.state.step) == 3
    p0 = train.recon_init(codec, 1280, jax.random.key(0))
    assert jax.tree.structure(p0) == jax.tree.structure(r1.state.params)


def test_ema_codebook_step_and_restart_match_numpy():
    """EMA path of the restart wrapper: step 1 is one EMA update; step 2 also restarts the unused codes."""
    from jaxpapers.unialm import quantize

    book0 = jnp.asarray(np.random.default_rng(5).normal(size=(4, 2)), jnp.float32)
    enc = jnp.asarray([[[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]])
    codes = jnp.asarray([[0], [0], [3]])
    aux = quantize.usage_aux(codes, enc, 4)

    def step(state, batch):
        return state.replace(step=state.step + 1), {"loss": jnp.zeros(()), **aux}

    params = {"rvq": {"level_0": {"codebook": book0}}}
    wrapped = jax.jit(train.with_dead_code_restart(step, ("rvq",), 1, every=2, ema_decay=0.9))
    extras = train.codec_extras(params, ("rvq",), 1, 4, ema=True)
    state = TrainState(jnp.zeros((), jnp.int32), params, (), jax.random.key_data(jax.random.key(0)), extras)
    state, _ = wrapped(state, None)
    cnt = 0.9 * np.ones(4) + 0.1 * np.array([2.0, 0, 0, 1])
    sm = 0.9 * np.asarray(book0, np.float64) + 0.1 * np.array([[4.0, 1.0], [0, 0], [0, 0], [0.5, 0.5]])

    def smooth(c):
        return (c + quantize.EMA_EPS) / (c.sum() + 4 * quantize.EMA_EPS) * c.sum()

    np.testing.assert_allclose(state.params["rvq"]["level_0"]["codebook"], sm / smooth(cnt)[:, None], rtol=1e-5)
    state, m = wrapped(state, None)  # step 2: codes 1 and 2 unused over the window -> restarted from encodings
    cnt = 0.9 * cnt + 0.1 * np.array([2.0, 0, 0, 1])
    sm = 0.9 * sm + 0.1 * np.array([[4.0, 1.0], [0, 0], [0, 0], [0.5, 0.5]])
    cnt[[1, 2]] = 1.0
    new_m = np.asarray(state.extras["ema_sum"][0])
    assert all(any(np.allclose(new_m[i], e) for e in np.asarray(enc[0])) for i in (1, 2))
    sm[[1, 2]] = new_m[[1, 2]]
    np.testing.assert_allclose(state.extras["ema_count"][0], cnt, rtol=1e-6)
    np.testing.assert_allclose(state.params["rvq"]["level_0"]["codebook"], sm / smooth(cnt)[:, None], rtol=1e-5)
    assert float(m["dead_codes"]) == 2


@pytest.mark.slow  # > 25 s on 2 cores (100 s at load 8 for two of its three runs)
def test_ema_recon_training_resumes_with_ema_statistics(tmp_path):
    cfg = CodecConfig(r_width=8, r_blocks=1, r_codes=8, r_levels=2, r_ema_decay=0.9)
    codec = PlainCodec(cfg, 4)
    audio = np.random.default_rng(0).normal(size=(6, 1280)).astype(np.float32) * 0.1
    kw = dict(
        optim=OptimConfig(lr=1e-3), loss=LossConfig(restart_every=1), key=jax.random.key(0), workdir=str(tmp_path)
    )
    r1 = train.train_recon(codec, audio, loop=LoopConfig(steps=2, batch_size=2, log_every=1), **kw)
    ex = r1.state.extras
    assert ex["ema_count"].shape == (2, 8) and ex["ema_sum"].shape == (2, 8, 8)
    from jaxpapers.unialm.quantize import ema_codebook

    for lvl in range(2):  # the codebook is a function of the EMA statistics, not of the optimizer
        np.testing.assert_allclose(
            r1.state.params["rvq"][f"level_{lvl}"]["codebook"],
            ema_codebook(ex["ema_count"][lvl], ex["ema_sum"][lvl]),
            rtol=1e-5,
        )
    # resume equals no interruption: a 3-step run saving every step, its last checkpoint deleted, run again
    # (restores step 2: params, Adam state, EMA statistics and the grain iterator's position)
    straight = tmp_path / "straight"
    kw["workdir"] = str(straight)
    loop3 = LoopConfig(steps=3, batch_size=2, log_every=1, ckpt_every=1)
    r3 = train.train_recon(codec, audio, loop=loop3, **kw)
    assert (straight / "checkpoints" / "3").is_dir()
    shutil.rmtree(straight / "checkpoints" / "3")
    r4 = train.train_recon(codec, audio, loop=loop3, **kw)
    assert r4.resumed_from == 2 and int(r4.state.step) == 3
    leaves = zip(jax.tree.leaves(r3.state), jax.tree.leaves(r4.state), strict=True)
    for a, b in leaves:
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)


def test_recon_init_is_one_program_and_matches_the_plain_init():
    """``recon_init`` and ``train_recon`` share one jitted init per (codec, clip length); its params are the
    flax init at ``split(key)[0]`` (init_state's split), compiled on its own here."""
    codec = PlainCodec(CodecConfig(r_width=8, r_blocks=1, r_codes=8, r_levels=2), 4)
    key = jax.random.key(3)
    got = train.recon_init(codec, 1280, key)
    assert train._recon_init_fn(codec, 1280) is train._recon_init_fn(PlainCodec(codec.cfg, 4), 1280)
    x0 = jnp.zeros((1, 1280), jnp.float32)
    ref = jax.jit(lambda k: codec.recon.init(k, x0, None, jnp.zeros((1,), bool))["params"])(jax.random.split(key)[0])
    assert jax.tree.structure(got) == jax.tree.structure(ref)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(ref), strict=True):
        np.testing.assert_array_equal(a, b)
