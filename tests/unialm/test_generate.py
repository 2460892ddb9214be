"""UniALM's cached inference against the full-sequence forward (spec §3 "Inference"; Pitfalls: CFG sign, depth
cache reset every frame, the recon phase forbids analysis ids)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import generate, lm
from jaxpapers.unialm.sequence import Vocab

CFG = lm.UniALMConfig(
    text_vocab=48, codebooks=3, analysis_codes=6, recon_codes=5, dim=16, num_heads=4, num_kv_heads=2, mlp_dim=24,
    backbone_layers=2, understanding_layers=1, generation_layers=1, depth_dim=8, depth_layers=1, depth_heads=2,
    depth_kv_heads=1, depth_mlp_dim=16,
)  # fmt: skip


def _frames(rng, b, length, audio):
    codes = rng.integers(0, CFG.codebook_vocab, (b, length, CFG.codebooks))
    text = rng.integers(0, CFG.text_vocab, (b, length, 1))
    return np.concatenate([codes, text], -1).astype(np.int32), np.asarray(audio, bool)


@pytest.fixture(scope="module")
def model_and_params():
    """Initialised params with the zero-initialised expert projections perturbed, so every part matters."""
    model = lm.UniALM(CFG)
    frames, audio = _frames(np.random.default_rng(0), 2, 9, np.ones((2, 9), bool))
    params = jax.jit(model.init)(jax.random.key(1), frames, audio)
    leaves, tree = jax.tree.flatten(params)
    keys = jax.random.split(jax.random.key(2), len(leaves))
    leaves = [x + 0.05 * jax.random.normal(k, x.shape) for x, k in zip(leaves, keys, strict=True)]
    return model, jax.tree.unflatten(tree, leaves)


@pytest.fixture(scope="module")
def full(model_and_params):
    model, _ = model_and_params
    return jax.jit(model.apply)


def test_cached_logits_equal_the_full_sequence_forward(model_and_params, full):
    _, params = model_and_params
    rng = np.random.default_rng(3)
    audio = rng.uniform(size=(2, 9)) < 0.6
    audio[:, :2] = [False, True]  # a text query before any audio frame, and audio right after it
    frames, audio = _frames(rng, 2, 9, audio)
    ref = full(params, frames, audio)
    out = generate.step_logits(params, CFG, frames, audio, prefill=3)
    np.testing.assert_allclose(out["text_logits"], ref["text_logits"], atol=1e-5, rtol=1e-5)
    pos, valid = np.asarray(ref["audio_positions"]), np.asarray(ref["audio_valid"])
    got = np.asarray(out["audio_logits"])
    for b, m in zip(*np.nonzero(valid), strict=True):
        np.testing.assert_allclose(got[b, pos[b, m]], ref["audio_logits"][b, m], atol=1e-5, rtol=1e-5)


def test_sampling_greedy_top_k_and_temperature():
    logits = jnp.asarray([[0.0, 2.0, 1.0, -1.0], [3.0, 0.0, 2.9, -jnp.inf]])
    key = jax.random.key(0)
    np.testing.assert_array_equal(generate.sample_logits(key, logits, 0.0), [1, 0])
    np.testing.assert_array_equal(generate.sample_logits(key, logits, 5.0, top_k=1), [1, 0])
    keys = jax.random.split(jax.random.key(1), 4000)
    draws = np.asarray(jax.vmap(lambda k: generate.sample_logits(k, logits, 1.0, top_k=2))(keys))
    assert set(draws[:, 0]) <= {1, 2} and set(draws[:, 1]) <= {0, 2}  # never outside the top 2, never −inf
    p = np.exp([2.0, 1.0]) / np.exp([2.0, 1.0]).sum()  # softmax restricted to the top 2 of row 0
    freq = (draws[:, 0] == 1).mean()
    assert abs(freq - p[0]) < 4 * np.sqrt(p[0] * p[1] / len(draws))
    with pytest.raises(ConfigError, match="temperature"):
        generate.sample_logits(key, logits, -1.0)
    with pytest.raises(ConfigError, match="top_k"):
        generate.sample_logits(key, logits, 1.0, top_k=9)


def test_cfg_unit_scale_is_exactly_the_conditional_and_the_sign_is_right():
    rng = np.random.default_rng(4)
    cond, uncond = (jnp.asarray(rng.normal(size=(3, 11)), jnp.float32) for _ in range(2))
    np.testing.assert_array_equal(generate.apply_cfg(cond, uncond, 1.0), cond)
    np.testing.assert_allclose(generate.apply_cfg(cond, uncond, 0.0), uncond, atol=1e-6)
    c64, u64 = np.asarray(cond, np.float64), np.asarray(uncond, np.float64)
    np.testing.assert_allclose(generate.apply_cfg(cond, uncond, 2.5), u64 + 2.5 * (c64 - u64), atol=1e-5)


def test_greedy_generation_replays_under_the_full_forward(model_and_params, full):
    """Each greedy frame's codes are the argmax (over the phase's allowed ids) of the full forward's audio logits
    on the prompt plus the frames generated so far: the depth cache is reset per frame and frames are fed back."""
    _, params = model_and_params
    frames, audio = _frames(np.random.default_rng(5), 2, 4, [[False] * 4, [False, False, True, True]])
    new, valid = generate.generate_audio(params, CFG, frames, audio, max_new=4, temperature=0.0, top_k=None)
    assert new.shape == (2, 4, CFG.codebooks + 1)
    seq = np.concatenate([frames, np.asarray(new)], axis=1)
    seq_audio = np.concatenate([audio, np.ones((2, 4), bool)], axis=1)
    ref = full(params, seq, seq_audio)
    pos, logits = np.asarray(ref["audio_positions"]), np.asarray(ref["audio_logits"])
    v_a = CFG.analysis_vocab
    for b in range(2):
        for t in range(4):
            if not valid[b, t]:
                continue
            m = int(np.nonzero(pos[b] == 3 + t)[0][0])  # the slot predicting frame 4 + t
            allowed = logits[b, m].copy()
            allowed[:, v_a:] = -np.inf  # analysis phase (no all-A_EOS frame in random params' first frames)
            if (np.asarray(new)[b, :t, : CFG.codebooks] == Vocab(CFG).audio("A_EOS")).all(-1).any():
                continue
            np.testing.assert_array_equal(np.asarray(new)[b, t, : CFG.codebooks], allowed.argmax(-1))


def test_guidance_at_unit_scale_generates_what_the_conditional_rows_do(model_and_params):
    _, params = model_and_params
    frames, audio = _frames(np.random.default_rng(6), 2, 5, np.zeros((2, 5), bool))
    key = jax.random.key(7)
    plain = generate.generate_audio(params, CFG, frames, audio, max_new=3, key=key, top_k=5)
    uncond = np.full_like(frames, Vocab(CFG).text("<pad>"))
    guided = generate.generate_audio(params, CFG, frames, audio, max_new=3, key=key, top_k=5, cfg_scale=1.0,
                                     uncond_frames=uncond, uncond_audio=audio)  # fmt: skip
    np.testing.assert_array_equal(plain[0], guided[0])
    strong = generate.generate_audio(params, CFG, frames, audio, max_new=3, key=key, top_k=5, cfg_scale=3.0,
                                     uncond_frames=uncond, uncond_audio=audio)  # fmt: skip
    assert strong[0].shape == plain[0].shape


def test_phases_allow_only_their_ids(model_and_params):
    _, params = model_and_params
    frames, audio = _frames(np.random.default_rng(8), 4, 3, np.zeros((4, 3), bool))
    new, valid = generate.generate_audio(params, CFG, frames, audio, max_new=6, key=jax.random.key(9), top_k=None,
                                         temperature=3.0)  # fmt: skip
    codes, a_eos = np.asarray(new)[..., : CFG.codebooks], Vocab(CFG).audio("A_EOS")
    for b in range(4):
        recon = False
        for t in range(6):
            if valid[b, t]:
                assert ((codes[b, t] >= CFG.analysis_vocab) == recon).all()
            recon = recon or (codes[b, t] == a_eos).all()


def test_understanding_decodes_greedily_and_stops(model_and_params, full):
    _, params = model_and_params
    frames, audio = _frames(np.random.default_rng(10), 2, 5, [[True] * 3 + [False] * 2] * 2)
    tokens, valid = generate.understand(params, CFG, frames, audio, stop_id=CFG.text_vocab - 1, max_new=4)
    pad = Vocab(CFG).audio("A_PAD")
    for b in range(2):
        seq, seq_audio = frames[b : b + 1], audio[b : b + 1]
        for t in range(4):
            if not valid[b, t]:
                break
            step = np.full((1, 1, CFG.codebooks + 1), pad, np.int32)
            step[0, 0, -1] = int(tokens[b, t])
            expected = int(np.asarray(full(params, seq, seq_audio)["text_logits"])[0, -1].argmax())
            assert int(tokens[b, t]) == expected
            seq, seq_audio = np.concatenate([seq, step], 1), np.concatenate([seq_audio, [[False]]], 1)
    first = int(tokens[0, 0])
    again, valid = generate.understand(params, CFG, frames[:1], audio[:1], stop_id=first, max_new=4)
    np.testing.assert_array_equal(valid, [[True, False, False, False]])
    with pytest.raises(ConfigError, match="prompt must be frames"):
        generate.understand(params, CFG, frames[..., :2], audio, stop_id=1, max_new=2)
