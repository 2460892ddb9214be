"""The decoder: the NumPy trunk/heads mirror the Flax modules, caps, budgets under decoding, cold start."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.topoged.decoder import Decoder, assign_caps, forward_numpy, head_logits_numpy


def test_numpy_mirror_equals_flax_decoder():
    rng = np.random.default_rng(0)
    n, f, levels = 10, 5 + 3, 3
    x = rng.normal(size=(n, f)).astype(np.float32)
    edges = np.array([[0, 1], [1, 2], [2, 3], [4, 5], [0, 6]])
    is_new = np.arange(n) >= 7
    bins = rng.integers(0, levels, n)
    pairs = rng.integers(0, n, (4, 6, 2))
    d = np.concatenate([edges, edges[:, ::-1]])
    e_pad = 16  # padded edge slots are masked out
    snd, rcv, em = np.zeros((4, e_pad), np.int32), np.zeros((4, e_pad), np.int32), np.zeros((4, e_pad), bool)
    snd[:, : len(d)], rcv[:, : len(d)], em[:, : len(d)] = d[:, 0], d[:, 1], True
    args = (jnp.asarray(x), jnp.asarray(snd), jnp.asarray(rcv), jnp.ones(n, bool), jnp.asarray(em),
            jnp.asarray(is_new), jnp.asarray(bins), jnp.asarray(pairs))
    model = Decoder(hidden=8, dropout=0.0, n_levels=levels)
    params = jax.jit(model.init)(jax.random.key(0), *args)["params"]  # one compile instead of eager op dispatch
    out = jax.jit(model.apply)({"params": params}, *args)
    h = forward_numpy(params, x, edges, is_new, bins, levels)
    for z in range(4):
        np.testing.assert_allclose(head_logits_numpy(params, z, h, pairs[z]), np.asarray(out[z]), rtol=1e-4,
                                   atol=1e-5)


def test_caps_fill_bins_exactly():
    rng = np.random.default_rng(0)
    thr = np.array([1.0, 3.0, np.inf])
    x_hat = np.array([3, 6, 10])
    caps, bins = assign_caps(np.array([1.0, 1.0, 2.0, 5.0, 9.0, 3.0]), 4, x_hat, thr, rng)
    np.testing.assert_array_equal(np.bincount(bins, minlength=3), np.diff(np.r_[0, x_hat]))
    assert np.all(caps == thr[bins])
