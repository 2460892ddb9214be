"""UniALM's language model against its by-construction properties and independent references (spec §1, §3)."""

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import lm

CFG = lm.UniALMConfig(
    text_vocab=40, codebooks=3, analysis_codes=6, recon_codes=5, dim=16, num_heads=4, num_kv_heads=2, mlp_dim=24,
    backbone_layers=2, understanding_layers=1, generation_layers=1, depth_dim=8, depth_layers=1, depth_heads=2,
    depth_kv_heads=1, depth_mlp_dim=16,
)  # fmt: skip


def _frames(key, b, length, audio):
    """Random frames: codes in [0, V) in the audio columns, a text id in the last column."""
    k1, k2 = jax.random.split(key)
    codes = jax.random.randint(k1, (b, length, CFG.codebooks), 0, CFG.codebook_vocab)
    text = jax.random.randint(k2, (b, length, 1), 0, CFG.text_vocab)
    return jnp.concatenate([codes, text], -1), jnp.asarray(audio, bool)


@pytest.fixture(scope="module")
def model_and_params():
    model = lm.UniALM(CFG)
    frames, audio = _frames(jax.random.key(0), 2, 9, np.zeros((2, 9), bool))
    return model, jax.jit(model.init)(jax.random.key(1), frames, audio)


@pytest.fixture(scope="module")
def apply(model_and_params):
    model, _ = model_and_params
    return jax.jit(lambda p, f, a, pos=None: model.apply(p, f, a, pos, mutable="intermediates"))


def _leaf_count(tree):
    return sum(int(np.prod(x.shape)) for x in jax.tree.leaves(nn.meta.unbox(tree)))


def test_parameter_count_closed_form_equals_the_initialised_tree(model_and_params):
    _, params = model_and_params
    count = lm.parameter_count(CFG)
    assert _leaf_count(params) == count["total"]
    p = nn.meta.unbox(params)["params"]
    assert _leaf_count({k: p[k] for k in p if k.startswith(("understanding", "generation"))}) == count["experts"]
    assert _leaf_count({k: p[k] for k in p if k.startswith("depth_") and k != "depth_in"}) == count["depth_decoder"]


def test_paper_config_has_the_spec_parameter_count():
    """Spec §1: 3,212,749,824 backbone + 503M experts + 243M depth decoder + 302M audio embeddings + 201M heads +
    6M projection ≈ 4.47B; the abstract (eval_shape) tree of the paper model has exactly the closed-form count."""
    cfg = lm.UniALMConfig.paper()
    count = lm.parameter_count(cfg)
    assert count["backbone"] == 3_212_749_824
    assert round(count["experts"] / 1e6) == 503 and round(count["depth_decoder"] / 1e6) == 243
    assert round(count["audio_embeddings"] / 1e6) == 302 and round(count["audio_heads"] / 1e6) == 201
    assert round(count["projection"] / 1e6) == 6 and round(count["total"] / 1e7) == 447
    frames = jax.ShapeDtypeStruct((1, 8, cfg.codebooks + 1), jnp.int32)
    audio = jax.ShapeDtypeStruct((1, 8), jnp.bool_)
    shapes = jax.eval_shape(lm.UniALM(cfg).init, jax.random.key(0), frames, audio)
    assert _leaf_count(shapes) == count["total"]


def test_text_logits_are_bit_identical_to_the_backbone_only_lm(model_and_params, apply):
    """On text-only sequences the experts' outputs are discarded by selects, not products (0·NaN = NaN): the text
    logits equal the backbone-only LM's exactly."""
    _, params = model_and_params
    frames, audio = _frames(jax.random.key(2), 2, 9, np.zeros((2, 9), bool))
    out, _ = apply(params, frames, audio)
    want = jax.jit(lambda p, t: lm.backbone_lm_logits(p, CFG, t))(params, frames[..., -1])
    np.testing.assert_array_equal(np.asarray(out["text_logits"]), np.asarray(want))


def _audio_mask():
    return np.array([[0, 1, 1, 0, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 1, 0, 1, 1]], bool)


def test_understanding_expert_ignores_text_content_and_text_placement(model_and_params, apply):
    """Its key mask (causal ∧ key is audio ∨ key = query) keeps text out of its audio outputs: changing the text
    ids changes nothing at audio frames, nor does turning a text frame into padding at the same RoPE positions."""
    _, params = model_and_params
    p = nn.meta.unbox(params)
    # non-zero residual projections, so the expert is not the identity it is at insertion
    p = jax.tree_util.tree_map_with_path(
        lambda path, x: x + 0.3 * jax.random.normal(jax.random.key(len(str(path))), x.shape), p
    )
    audio = _audio_mask()
    frames, audio = _frames(jax.random.key(3), 2, 9, audio)
    _, inter = apply(p, frames, audio)
    g = np.asarray(inter["intermediates"]["understanding"][0])
    other = frames.at[..., -1].set((frames[..., -1] + 7) % CFG.text_vocab)
    _, inter2 = apply(p, other, audio)
    g2 = np.asarray(inter2["intermediates"]["understanding"][0])
    a = np.asarray(audio)
    np.testing.assert_array_equal(g[a], g2[a])
    # Drop the text frames, keeping every audio frame's RoPE position. Without the key mask the (zero) text keys
    # would still take softmax weight, and the audio outputs would change.
    pos = jnp.broadcast_to(jnp.arange(9), (2, 9))
    keep = np.asarray(audio[0])
    f_short, a_short, pos_short = frames[:1, keep], audio[:1, keep], pos[:1, keep]
    _, inter3 = apply(p, f_short, a_short, pos_short)
    g3 = np.asarray(inter3["intermediates"]["understanding"][0])[0]
    np.testing.assert_allclose(g3, g[0][keep], atol=1e-5, rtol=1e-5)


def test_zero_initialised_experts_leave_the_expert_free_model_unchanged(model_and_params, apply):
    """S2 → S3: inserting the experts (zero-initialised output projections) changes no logit, text or audio."""
    _, params = model_and_params
    frames, audio = _frames(jax.random.key(4), 2, 9, _audio_mask())
    out, _ = apply(params, frames, audio)
    bare_cfg = dataclasses.replace(CFG, understanding_layers=0, generation_layers=0)
    p = nn.meta.unbox(params)["params"]
    bare = {"params": {k: v for k, v in p.items() if not k.startswith(("understanding", "generation"))}}
    out2 = jax.jit(lm.UniALM(bare_cfg).apply)(bare, frames, audio)
    for name in ("text_logits", "audio_logits"):
        np.testing.assert_array_equal(np.asarray(out[name]), np.asarray(out2[name]))


def test_depth_decoder_targets_are_the_next_audio_frame_per_sequence(model_and_params, apply):
    """Positions are the frames whose next frame is audio, per sequence (a NumPy loop), targets that next frame's
    codes; teacher forcing: codebook c's logits do not depend on codes c, c+1, ... of the target frame."""
    _, params = model_and_params
    audio = _audio_mask()
    frames, audio_j = _frames(jax.random.key(5), 2, 9, audio)
    out, _ = apply(params, frames, audio_j)
    f = np.asarray(frames)
    for row in range(2):
        want = [t for t in range(8) if audio[row, t + 1]]
        m = len(want)
        assert np.asarray(out["audio_valid"][row]).sum() == m
        np.testing.assert_array_equal(np.asarray(out["audio_positions"][row, :m]), want)
        np.testing.assert_array_equal(np.asarray(out["audio_targets"][row, :m]), f[row, np.array(want) + 1, :-1])
    t0 = int(out["audio_positions"][0, 0])
    changed = frames.at[0, t0 + 1, 1].set((frames[0, t0 + 1, 1] + 1) % CFG.codebook_vocab)
    out2, _ = apply(params, changed, audio_j)
    la, lb = np.asarray(out["audio_logits"][0, 0]), np.asarray(out2["audio_logits"][0, 0])
    np.testing.assert_array_equal(la[:2], lb[:2])  # codebooks 0 and 1 are predicted before code 1 is seen
    assert np.abs(la[2] - lb[2]).max() > 0  # codebook 2 sees it


def test_capacity_keeps_the_first_positions_and_pads_with_the_last_frame():
    nxt = jnp.array([[0, 1, 1, 0, 1], [0, 0, 0, 0, 0]], bool)
    pos, valid = lm.audio_target_positions(nxt, 2)
    np.testing.assert_array_equal(np.asarray(pos), [[1, 2], [4, 4]])
    np.testing.assert_array_equal(np.asarray(valid), [[True, True], [False, False]])


def test_bad_shapes_name_the_value_and_what_is_allowed():
    with pytest.raises(ConfigError, match="kv_heads=3 must be at least 1 and divide heads=4"):
        lm.UniALMConfig(num_kv_heads=3)
    with pytest.raises(ConfigError, match="dim=30 must split into heads=4"):
        lm.UniALMConfig(dim=30)
    frames = jnp.zeros((1, 4, CFG.codebooks), jnp.int32)
    with pytest.raises(ConfigError, match="frames has 3 columns; this UniALM needs codebooks \\+ 1 = 4"):
        lm.UniALM(CFG).init(jax.random.key(0), frames, jnp.zeros((1, 4), bool))


def test_vocabulary_layout_matches_the_spec():
    """[0, K_a) analysis | K_a + 5 specials | recon codes at [V_A, V_A + K_r) | 3 specials: V = K_a + K_r + 8."""
    cfg = lm.UniALMConfig.paper()
    assert cfg.analysis_vocab == 4096 + 5 and cfg.codebook_vocab == 4096 + 5 + 8192 + 3


def test_lm_loss_matches_a_numpy_loop(model_and_params, apply):
    """CE_text over text-target frames t+1 predicted at t, plus the mean over codebooks of each codebook's CE over
    its audio targets (a plain loop over batch, positions and codebooks in float64)."""
    _, params = model_and_params
    audio = _audio_mask()
    frames, audio_j = _frames(jax.random.key(6), 2, 9, audio)
    rng = np.random.default_rng(0)
    loss_mask = rng.uniform(size=(2, 9, CFG.codebooks + 1)) < 0.6
    loss_mask[..., :-1] &= audio[..., None]
    loss_mask[..., -1] &= ~audio
    out, _ = apply(params, frames, audio_j)
    loss, metrics = lm.lm_loss(out, frames, jnp.asarray(loss_mask))
    f = np.asarray(frames)
    tl = np.asarray(out["text_logits"], np.float64)
    nll = []
    for b in range(2):
        for t in range(8):
            if loss_mask[b, t + 1, -1]:
                z = tl[b, t] - tl[b, t].max()
                nll.append(np.log(np.exp(z).sum()) - z[f[b, t + 1, -1]])
    al = np.asarray(out["audio_logits"], np.float64)
    per_c = []
    for c in range(CFG.codebooks):
        vals = []
        for b in range(2):
            for t in range(8):
                if audio[b, t + 1] and loss_mask[b, t + 1, c]:
                    m = [int(x) for x in np.asarray(out["audio_positions"][b])].index(t)
                    z = al[b, m, c] - al[b, m, c].max()
                    vals.append(np.log(np.exp(z).sum()) - z[f[b, t + 1, c]])
        per_c.append(np.mean(vals))
    np.testing.assert_allclose(float(metrics["text_ce"]), np.mean(nll), rtol=1e-5)
    np.testing.assert_allclose([float(metrics[f"audio_ce_{c}"]) for c in range(CFG.codebooks)], per_c, rtol=1e-5)
    np.testing.assert_allclose(float(loss), np.mean(nll) + np.mean(per_c), rtol=1e-5)
