"""TinyVLM (spec §TinyVLM) at tiny size: head shapes, a few steps of the shared trainer lower the loss on a fixed
batch, the span decoder against brute force, and the model-interface outputs (parsable text, normalised Yes/No,
fixed weights)."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.train import OptimConfig, init_state, make_optimizer, make_train_step
from jaxpapers.vmr_prompts.adapters.tiny_vlm import TinyVLM, TinyVLMNet, best_span, tokenize
from jaxpapers.vmr_prompts.adapters.tiny_vlm_train import make_loss
from jaxpapers.vmr_prompts.model_api import NO, YES
from jaxpapers.vmr_prompts.parse import parse_segment
from jaxpapers.vmr_prompts.verify import YesNoVerifier

NET = TinyVLMNet(d_model=16, layers=2, heads=2, max_frames=8)


def _batch(b=2, m=6, s=16):
    r = np.random.default_rng(0)
    frames = r.random((b, m, s, s, 3)).astype(np.float32)
    tokens = np.stack([tokenize("the red circle moves left"), tokenize("the blue cross appears")])[:b]
    return jnp.asarray(frames), jnp.asarray(tokens), jnp.array([1, 2])[:b], jnp.array([3, 4])[:b], jnp.array([0, 1])[:b]


def test_tokenize_known_unknown_and_padding():
    t = tokenize("the red circle moves left", 8)
    assert t.shape == (8,) and (t[:5] > 0).all() and (t[5:] == -1).all()
    assert tokenize("the zebra")[1] == 0


def test_best_span_matches_brute_force():
    r = np.random.default_rng(1)
    for _ in range(20):
        s, e = r.normal(size=7), r.normal(size=7)
        ref = max(((a, b) for a, b in itertools.product(range(7), repeat=2) if a <= b), key=lambda x: s[x[0]] + e[x[1]])
        assert best_span(s, e) == ref


@pytest.mark.slow
def test_shapes_and_adam_steps_lower_the_loss():
    frames, tokens, st, en, lab = _batch()
    params = NET.init(jax.random.key(0), frames, tokens)["params"]
    s, e, yn = NET.apply({"params": params}, frames, tokens)
    assert s.shape == (2, 6) and e.shape == (2, 6) and yn.shape == (2, 2)
    tx = make_optimizer(OptimConfig(lr=1e-3), 6)
    state, _ = init_state(params, tx, jax.random.key(1))
    step = jax.jit(make_train_step(make_loss(NET), tx))
    ones = jnp.ones(2)
    batch = {"frames": (frames * 255).astype(jnp.uint8), "tokens": tokens, "frame_mask": jnp.ones((2, 6), bool),
             "start": st, "end": en, "label": lab, "span_weight": ones, "yn_weight": ones}
    losses = []
    for _ in range(6):
        state, metrics = step(state, batch)
        losses.append(float(metrics["loss"]))
    assert losses[-1] < losses[0] - 0.05, losses


def test_model_interface_outputs():
    frames, tokens, *_ = _batch(1)
    params = NET.init(jax.random.key(0), frames, tokens)["params"]
    model = TinyVLM(NET, params)
    before = model.params_fingerprint()
    u8 = (np.asarray(frames[0]) * 255).astype(np.uint8)
    seg = parse_segment(model.generate(u8, 1.0, 'Find ... matches: "the red circle moves left". Answer'), 1.0, 6.0)
    assert seg is not None and 0 <= seg[0] < seg[1] <= 6
    lp = model.answer_logprobs(u8, 1.0, 'Is "the red circle moves left" happening?', (*YES, *NO))
    assert np.isclose(np.exp(lp["Yes"]) + np.exp(lp["No"]), 1.0, atol=1e-5)
    assert model.params_fingerprint() == before
    assert YesNoVerifier("clip").rule(np.exp(lp["Yes"]), np.exp(lp["No"])) <= 1.0
