"""Tube masking, the MAE model and the losses against NumPy."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.fuxvit.config import FuxViTConfig, MAEConfig
from jaxpapers.fuxvit.losses import classification_loss, mae_loss
from jaxpapers.fuxvit.mae import FuxViTMAE, masked_positions, normalised_targets, tube_mask
from jaxpapers.fuxvit.tokenizer import patchify


def test_tube_mask_is_per_sample_sorted_and_of_static_size():
    """Pitfall: every row keeps the same number of visible positions (a static [T, P_vis] layout)."""
    vis = np.asarray(jax.jit(lambda k: tube_mask(k, 64, 16, 0.75))(jax.random.key(0)))
    assert vis.shape == (64, 4) and vis.dtype == np.int32
    assert np.all(np.diff(vis, axis=1) > 0) and vis.min() >= 0 and vis.max() < 16
    assert len({tuple(r) for r in vis}) > 32  # per-sample masks differ
    counts = np.bincount(vis.ravel(), minlength=16)
    assert counts.min() > 4  # every position gets visible sometimes
    mask = np.asarray(masked_positions(jnp.asarray(vis), 16))
    assert np.all(mask.sum(1) == 12)


def test_mae_loss_matches_numpy_on_masked_tubelets_of_valid_frames():
    rng = np.random.default_rng(0)
    pixels = rng.uniform(size=(2, 4, 8, 8, 3)).astype(np.float32)  # tubelet 2, patch 4: T = 2, P = 4
    pred = rng.normal(size=(2, 2, 4, 96)).astype(np.float32)
    visible = np.array([[0, 3], [1, 2]], np.int32)
    valid = np.array([[True, True], [True, False]])
    got = mae_loss(jnp.asarray(pred), jnp.asarray(pixels), jnp.asarray(visible), jnp.asarray(valid), tubelet=2, patch=4)
    tubes = np.asarray(patchify(jnp.asarray(pixels), 2, 4), np.float64)
    target = (tubes - tubes.mean(-1, keepdims=True)) / np.sqrt(tubes.var(-1, keepdims=True) + 1e-6)
    err, n = 0.0, 0
    for b in range(2):
        for t in range(2):
            for p in range(4):
                if valid[b, t] and p not in visible[b]:
                    err += ((pred[b, t, p] - target[b, t, p]) ** 2).mean()
                    n += 1
    assert float(got) == pytest.approx(err / n, rel=1e-5)
    np.testing.assert_allclose(normalised_targets(jnp.asarray(pixels), 2, 4), target, atol=1e-4)


def test_classification_loss_matches_numpy():
    logits = np.array([[2.0, 0.0, -1.0], [0.0, 1.0, 0.0]], np.float32)
    labels = np.array([0, 2])
    loss, acc = classification_loss(jnp.asarray(logits), jnp.asarray(labels))
    lse = np.log(np.exp(logits).sum(1))
    assert float(loss) == pytest.approx(np.mean(lse - logits[[0, 1], labels]), rel=1e-6)
    assert float(acc) == 0.5


def test_mae_model_reconstructs_every_tubelet_and_only_masked_ones_are_scored():
    enc = FuxViTConfig.tiny(dim=32, num_heads=2, mlp_dim=64, depth=1)
    mae = MAEConfig(decoder_dim=16, decoder_depth=1, decoder_heads=2, mask_ratio=0.75)
    model = FuxViTMAE(enc, mae)
    pixels = jax.random.uniform(jax.random.key(0), (2, 6, 16, 16, 3))  # T = 3, P = 4
    seg = jnp.array([[0, 1, 2], [0, 0, 0]])
    visible = jnp.array([[1], [3]], jnp.int32)

    @jax.jit
    def run(pixels):
        params = nn.unbox(model.init(jax.random.key(1), pixels, visible, None, seg))

        def loss(p):
            out = model.apply(p, pixels, visible, None, seg)
            return mae_loss(out["pred"], pixels, visible, None, tubelet=2, patch=8), out

        grads, out = jax.grad(loss, has_aux=True)(params)
        return out, grads

    out, grads = run(pixels)
    assert out["pred"].shape == (2, 3, 4, 2 * 8 * 8 * 3)
    assert out["sel"].shape[:4] == (1, 2, 2, 3)
    assert all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    assert float(jnp.abs(grads["params"]["mask_token"]).sum()) > 0
