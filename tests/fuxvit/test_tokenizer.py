"""Tubelet patchify/unpatchify and 3-D RoPE against NumPy loops and the relative-position property."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.tokenizer import grid_positions, images_to_clips, patchify, rope3d, unpatchify


def test_patchify_matches_a_loop_and_unpatchify_inverts_it():
    rng = np.random.default_rng(0)
    video = rng.normal(size=(2, 4, 8, 12, 3)).astype(np.float32)  # tubelet 2, patch 4: T = 2, 2×3 patches
    tokens = np.asarray(patchify(jnp.asarray(video), 2, 4))
    assert tokens.shape == (2, 2, 6, 2 * 4 * 4 * 3)
    for t in range(2):
        for row in range(2):
            for col in range(3):
                want = video[:, 2 * t : 2 * t + 2, 4 * row : 4 * row + 4, 4 * col : 4 * col + 4].reshape(2, -1)
                np.testing.assert_array_equal(tokens[:, t, row * 3 + col], want)
    np.testing.assert_array_equal(unpatchify(jnp.asarray(tokens), 2, 4, 8, 12), video)
    images = rng.normal(size=(3, 8, 8, 3))
    assert images_to_clips(images, 2).shape == (3, 2, 8, 8, 3) and isinstance(images_to_clips(images, 2), np.ndarray)


def test_rope3d_rotates_each_axis_on_its_own_channels():
    """Channels [0, d_t) rotate with t, [d_t, d_t + d_h) with the row, the rest with the column (d = 16: 4/6/6)."""
    q = jnp.ones((1, 1, 1, 1, 16))
    t, y, x = (jnp.full((1, 1, 1), v) for v in (3, 0, 0))
    rq, _ = rope3d(q, q, t, y, x)
    moved = np.flatnonzero(np.abs(np.asarray(rq - q)).reshape(-1) > 1e-6)
    assert set(moved) <= set(range(4)) and len(moved) > 0
    rq, _ = rope3d(q, q, jnp.zeros((1, 1, 1), int), jnp.full((1, 1, 1), 2), jnp.zeros((1, 1, 1), int))
    moved = np.flatnonzero(np.abs(np.asarray(rq - q)).reshape(-1) > 1e-6)
    assert set(moved) <= set(range(4, 10)) and len(moved) > 0


def test_rope3d_scores_depend_only_on_relative_positions():
    kq, kk = jax.random.split(jax.random.key(0))
    q = jax.random.normal(kq, (1, 2, 4, 2, 16))
    k = jax.random.normal(kk, (1, 2, 4, 2, 16))
    t, y, x = (jnp.asarray(a)[None] for a in grid_positions(2, 2, 2))

    def scores(shift):
        rq, rk = rope3d(q, k, t + shift[0], y + shift[1], x + shift[2])
        return jnp.einsum("btpnh,bsqnh->bnptqs", rq, rk)

    np.testing.assert_allclose(scores((0, 0, 0)), scores((5, 3, 7)), atol=1e-4)
    assert float(jnp.max(jnp.abs(scores((0, 0, 0)) - jnp.einsum("btpnh,bsqnh->bnptqs", q, k)))) > 1e-2


def test_bad_shapes_raise():
    with pytest.raises(ConfigError, match="not a multiple of tubelet=2"):
        patchify(jnp.zeros((1, 3, 8, 8, 3)), 2, 4)
    with pytest.raises(ConfigError, match="not divisible by patch=3"):
        patchify(jnp.zeros((1, 2, 8, 8, 3)), 2, 3)
    with pytest.raises(ConfigError, match="tokens have P=5"):
        unpatchify(jnp.zeros((1, 1, 5, 96)), 2, 4, 8, 8)
