"""UniALM's four-stage recipe: which params move in each stage, and the S2 -> S3 insertion (spec §5)."""

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.unialm import lm, stages

CFG = lm.UniALMConfig(
    text_vocab=32, codebooks=2, analysis_codes=4, recon_codes=4, dim=16, num_heads=2, num_kv_heads=1, mlp_dim=16,
    backbone_layers=1, understanding_layers=1, generation_layers=1, depth_dim=8, depth_layers=1, depth_heads=2,
    depth_kv_heads=1, depth_mlp_dim=8,
)  # fmt: skip
FRAMES = jnp.array([[[1, 2, 5], [3, 4, 6], [0, 1, 7], [2, 2, 8]]], jnp.int32)
AUDIO = jnp.array([[False, True, True, False]])


def _params(cfg):
    return nn.meta.unbox(jax.jit(lm.UniALM(cfg).init)(jax.random.key(0), FRAMES, AUDIO))


@pytest.fixture(scope="module")
def params_and_grads():
    """The toy model's params and the gradient of its loss (one compiled program for every stage)."""
    params = _params(CFG)
    model = lm.UniALM(CFG)

    def loss_fn(p):
        out = model.apply(p, FRAMES, AUDIO)
        return lm.lm_loss(out, FRAMES, jnp.ones(FRAMES.shape, bool))[0]

    return params, jax.jit(jax.grad(loss_fn))(params)


def _moved_after_one_step(params, grads, stage):
    tx = stages.stage_optimizer(lambda lr: optax.sgd(lr), 0.1, params, stage)
    updates, _ = tx.update(grads, tx.init(params), params)
    new = optax.apply_updates(params, updates)
    moved = jax.tree.map(lambda a, b: bool(jnp.any(a != b)), params, new)
    return {top: any(jax.tree.leaves(sub)) for top, sub in moved["params"].items()}, updates


@pytest.mark.parametrize("stage", stages.STAGES)
def test_each_stage_moves_exactly_its_trainable_parts(stage, params_and_grads):
    params, grads = params_and_grads
    moved, updates = _moved_after_one_step(params, grads, stage)
    labels = stages.stage_labels(params, stage)["params"]
    for top, did in moved.items():
        lab = jax.tree.leaves(labels[top])[0]
        if lab == "frozen":
            assert not did, f"{stage}: frozen {top} moved"
        elif not top.startswith(("understanding", "generation")):  # zero-init experts: some grads are exactly 0
            assert did, f"{stage}: trainable {top} did not move"
    if stage == "S2":  # the backbone at half the learning rate: sgd update = -lr/2 * grad
        u, g = updates["params"]["text_embed"], grads["params"]["text_embed"]
        np.testing.assert_allclose(np.asarray(u), -0.05 * np.asarray(g), rtol=1e-6)


def test_stage_labels_follow_the_recipe(params_and_grads):
    params, _ = params_and_grads
    labels = stages.stage_labels(params, "S1")["params"]
    first = {k: jax.tree.leaves(v)[0] for k, v in labels.items()}
    assert first["backbone_0"] == first["text_embed"] == first["final_norm"] == "frozen"
    assert first["audio_embed"] == first["depth_0"] == first["audio_heads"] == first["depth_in"] == "train"
    assert {jax.tree.leaves(v)[0] for v in stages.stage_labels(params, "S3")["params"].values()} == {"train"}
    with pytest.raises(ValueError, match="stage='S5' is not allowed"):
        stages.stage_labels(params, "S5")


def test_inserting_experts_after_stage_two_changes_no_output():
    """The S3 model built from S2 params and fresh zero-initialised experts computes exactly the S2 model."""
    bare = dataclasses.replace(CFG, understanding_layers=0, generation_layers=0)
    s2 = jax.tree.map(lambda x: x + 0.1, _params(bare))  # a "trained" S2 model
    s3 = stages.insert_experts(s2, _params(CFG))
    out2 = jax.jit(lm.UniALM(bare).apply)(s2, FRAMES, AUDIO)
    out3 = jax.jit(lm.UniALM(CFG).apply)(s3, FRAMES, AUDIO)
    for name in ("text_logits", "audio_logits"):
        np.testing.assert_array_equal(np.asarray(out2[name]), np.asarray(out3[name]))
    with pytest.raises(ValueError, match="have no place in the S3 model"):
        stages.insert_experts({"params": {"extra": 1}}, _params(CFG))
