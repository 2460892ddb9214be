"""Shared layers against NumPy references and by-construction properties."""

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import nn as jpnn
from jaxpapers.core.errors import UnknownNameError


def numpy_attention(q, k, v, mask):
    """float64 reference: softmax(q kᵀ/√H) v per batch and head, masked entries excluded."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    logits = np.einsum("bsnh,btnh->bnst", q, k) / np.sqrt(q.shape[-1])
    logits = np.where(mask, logits, -np.inf)
    w = np.exp(logits - logits.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return np.einsum("bnst,btnh->bsnh", w, v)


@pytest.fixture
def qkv():
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    shape = (2, 7, 3, 8)
    return jax.random.normal(k1, shape), jax.random.normal(k2, shape), jax.random.normal(k3, shape)


@pytest.mark.parametrize("impl", ["xla", "dot_product"])
def test_attention_impls_match_numpy(qkv, impl):
    q, k, v = qkv
    fn = jpnn.get_attention(impl)
    full = np.ones((2, 3, 7, 7), bool)
    np.testing.assert_allclose(fn(q, k, v), numpy_attention(q, k, v, full), atol=2e-5)
    causal = np.broadcast_to(np.tril(np.ones((7, 7), bool)), full.shape)
    np.testing.assert_allclose(fn(q, k, v, is_causal=True), numpy_attention(q, k, v, causal), atol=2e-5)
    rng = np.random.default_rng(1)
    mask = rng.random(full.shape) < 0.6
    mask[..., 0] = True  # every row keeps one key
    np.testing.assert_allclose(fn(q, k, v, mask=jnp.asarray(mask)), numpy_attention(q, k, v, mask), atol=2e-5)


def test_fully_masked_rows_give_zero_not_nan(qkv):
    q, k, v = qkv
    mask = jnp.zeros((2, 3, 7, 7), bool).at[:, :, :3].set(True)
    out = jpnn.xla_attention(q, k, v, mask=mask)
    assert np.isfinite(out).all() and np.all(np.asarray(out[:, 3:]) == 0)
    grads = jax.grad(lambda q: jpnn.xla_attention(q, k, v, mask=mask).sum())(q)
    assert np.isfinite(grads).all()


def test_unknown_attention_impl_lists_choices():
    with pytest.raises(UnknownNameError, match="attention impl 'flash' does not exist; choose one of dot_product, xla"):
        jpnn.get_attention("flash")


def test_register_attention_is_used_by_the_module(qkv):
    calls = []

    def spy(q, k, v, *, mask=None, is_causal=False, tag=None):
        calls.append(tag)
        return jpnn.xla_attention(q, k, v, mask=mask, is_causal=is_causal)

    jpnn.register_attention("spy", spy)
    try:
        x = jnp.ones((1, 5, 16))
        mha = jpnn.MultiHeadAttention(num_heads=2, head_dim=8, impl="spy")
        params = mha.init(jax.random.key(0), x, tag="init")
        mha.apply(params, x, tag="apply")
        assert calls == ["init", "apply"]
    finally:
        jpnn.ATTENTION_IMPLS.pop("spy")


def test_rope_preserves_norms_and_depends_on_relative_position():
    rng = np.random.default_rng(0)
    q = jnp.asarray(rng.normal(size=(1, 1, 1, 16)), jnp.float32)
    k = jnp.asarray(rng.normal(size=(1, 1, 1, 16)), jnp.float32)

    def rotated(x, pos):
        return jpnn.apply_rotary(x, jpnn.rope_angles(jnp.array([[pos]]), 16))

    np.testing.assert_allclose(jnp.linalg.norm(rotated(q, 7)), jnp.linalg.norm(q), rtol=1e-6)
    dot = lambda a, b: float(jnp.sum(rotated(q, a) * rotated(k, b)))  # noqa: E731
    assert dot(3, 1) == pytest.approx(dot(12, 10), rel=1e-5)  # only the offset matters
    assert dot(3, 1) != pytest.approx(dot(3, 2), rel=1e-3)
    part = jpnn.apply_rotary(q, jpnn.rope_angles(jnp.array([[5]]), 8))  # rotate 8 of 16 channels
    np.testing.assert_array_equal(part[..., 8:], q[..., 8:])
    with pytest.raises(ValueError, match="must be even"):
        jpnn.rope_angles(jnp.array([[1]]), 7)


@pytest.mark.parametrize("remat", [False, True])
def test_scanned_stack_equals_unrolled_stack(remat):
    kw = dict(depth=2, num_heads=2, head_dim=8, mlp_dim=32, is_causal=True, remat=remat)
    x = jax.random.normal(jax.random.key(1), (2, 6, 16))
    unrolled = jpnn.TransformerStack(**kw)
    scanned = jpnn.TransformerStack(**kw, scan_layers=True)
    p = nn.unbox(unrolled.init(jax.random.key(0), x))["params"]
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), p["layer_0"], p["layer_1"])
    want = unrolled.apply({"params": p}, x)
    got = scanned.apply({"params": {"layers": {"block": stacked}}}, x)
    chex.assert_trees_all_close(got, want, atol=1e-5)
    spec = nn.get_partition_spec(jax.eval_shape(lambda k: scanned.init(k, x), jax.random.key(0)))
    assert spec["params"]["layers"]["block"]["attn"]["query_kernel"][0] == "layers"


def test_causal_block_ignores_the_future():
    x = jax.random.normal(jax.random.key(1), (1, 6, 16))
    block = jpnn.TransformerBlock(num_heads=2, head_dim=8, mlp_dim=32, is_causal=True)
    p = block.init(jax.random.key(0), x)
    y = block.apply(p, x)
    y2 = block.apply(p, x.at[:, 4:].set(9.0))
    np.testing.assert_array_equal(y[:, :4], y2[:, :4])
    assert not np.allclose(y[:, 4:], y2[:, 4:])


def test_mlp_and_patch_embed_shapes_and_errors():
    x = jnp.ones((2, 5, 16))
    mlp = jpnn.MlpBlock(mlp_dim=32)
    chex.assert_shape(mlp.apply(mlp.init(jax.random.key(0), x), x), (2, 5, 16))
    img = jnp.ones((2, 16, 24, 3))
    pe = jpnn.PatchEmbed(patch=8, dim=32)
    out = pe.apply(pe.init(jax.random.key(0), img), img)
    chex.assert_shape(out, (2, 6, 32))
    with pytest.raises(ValueError, match="image size 16x20 is not divisible by patch=8"):
        pe.init(jax.random.key(0), jnp.ones((1, 16, 20, 3)))


def test_token_embed_attend_is_tied():
    emb = jpnn.TokenEmbed(vocab_size=11, dim=8)
    tokens = jnp.array([[1, 2, 3]])
    p = emb.init(jax.random.key(0), tokens)
    x = emb.apply(p, tokens)
    logits = emb.apply(p, x, method=emb.attend)
    table = p["params"]["embedding"].value if hasattr(p["params"]["embedding"], "value") else p["params"]["embedding"]
    np.testing.assert_allclose(logits, np.einsum("bsd,vd->bsv", x, table) / np.sqrt(8), rtol=1e-6)
