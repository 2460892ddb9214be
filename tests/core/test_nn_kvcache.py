"""Key/value caches of ``MultiHeadAttention`` / ``DecoderBlock`` (``decode=True``) against the full forward."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.nn import DecoderBlock, MultiHeadAttention, apply_rotary, rope_angles, stack_layers

B, L, D, N, G, H = 2, 7, 16, 4, 2, 4


def _rope(positions):
    angles = rope_angles(positions, H)
    return lambda q, k: (apply_rotary(q, angles), apply_rotary(k, angles))


def _incremental(module, params, x, chunks, call):
    """Prefill/decode ``x`` [B, L, D] in ``chunks`` (lengths summing to L) through the cache; returns [B, L, D]."""
    cache = jax.eval_shape(lambda: module.init(jax.random.key(0), x, **call(0, x.shape[1])))["cache"]
    cache = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), cache)
    outs, start = [], 0
    for n in chunks:
        y, mutated = module.apply(
            {"params": params, "cache": cache}, x[:, start : start + n], **call(start, n), mutable=["cache"]
        )
        cache, start = mutated["cache"], start + n
        outs.append(y)
    return jnp.concatenate(outs, axis=1), cache


@pytest.mark.parametrize("qk_norm", [False, True])
def test_cached_attention_equals_the_causal_forward(qk_norm):
    x = jax.random.normal(jax.random.key(1), (B, L, D))
    pos = jnp.broadcast_to(jnp.arange(L), (B, L))
    full = MultiHeadAttention(N, H, num_kv_heads=G, qk_norm=qk_norm)
    params = full.init(jax.random.key(2), x, is_causal=True, qk_fn=_rope(pos))["params"]
    ref = full.apply({"params": params}, x, is_causal=True, qk_fn=_rope(pos))
    cached = MultiHeadAttention(N, H, num_kv_heads=G, qk_norm=qk_norm, decode=True)
    out, cache = _incremental(
        cached, params, x, [3, 1, 2, 1], call=lambda s, n: dict(qk_fn=_rope(pos[:, s : s + n]))
    )
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=1e-5)
    assert int(cache["cache_index"]) == L
    assert cache["cached_key"].shape == (B, L, G, H)  # the G key heads are cached, not their repeats


def test_decode_flag_changes_neither_params_nor_the_uncached_output():
    x = jax.random.normal(jax.random.key(1), (B, L, D))
    plain, flagged = MultiHeadAttention(N, H, num_kv_heads=G), MultiHeadAttention(N, H, num_kv_heads=G, decode=True)
    p1 = plain.init(jax.random.key(2), x, is_causal=True)
    p2 = flagged.init(jax.random.key(2), x, is_causal=True)
    assert jax.tree.structure(p1["params"]) == jax.tree.structure(p2["params"])
    assert all(bool((a == b).all()) for a, b in zip(jax.tree.leaves(p1), jax.tree.leaves(p2["params"]), strict=True))
    y1 = plain.apply(p1, x, is_causal=True)
    y2, _ = flagged.apply({"params": p2["params"]}, x, is_causal=True, mutable=["cache"])  # init-sized call
    np.testing.assert_array_equal(y1, y2)


def test_a_key_mask_over_the_cache_slots_restricts_attention():
    x = jax.random.normal(jax.random.key(3), (1, L, D))
    keys = jnp.asarray([True, False, True, True, False, True, True])
    mask = jnp.tril(jnp.ones((L, L), bool)) & (keys[None, :] | jnp.eye(L, dtype=bool))
    full = MultiHeadAttention(N, H)
    params = full.init(jax.random.key(4), x)["params"]
    ref = full.apply({"params": params}, x, mask=jnp.broadcast_to(mask, (1, N, L, L)))
    cached = MultiHeadAttention(N, H, decode=True)

    def call(s, n):  # the slots' mask for queries s..s+n-1 (causality comes from the cache index)
        return dict(mask=(keys[None, :] | (jnp.arange(L)[None, :] == s + jnp.arange(n)[:, None]))[None, None])

    out, _ = _incremental(cached, params, x, [2, 1, 1, 1, 1, 1], call=call)
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("scan_layers", [False, True])
def test_cached_decoder_stack_equals_the_full_stack(scan_layers):
    class Stack(nn.Module):
        decode: bool = False

        @nn.compact
        def __call__(self, x, positions):
            kw = dict(num_heads=N, head_dim=H, mlp_dim=24, num_kv_heads=G, decode=self.decode)
            angles = rope_angles(positions, H)
            return stack_layers(DecoderBlock, kw, x, None, angles, depth=2, scan_layers=scan_layers)[0]

    x = jax.random.normal(jax.random.key(5), (B, L, D))
    pos = jnp.broadcast_to(jnp.arange(L), (B, L))
    params = Stack().init(jax.random.key(6), x, pos)["params"]
    ref = Stack().apply({"params": params}, x, pos)
    out, cache = _incremental(Stack(decode=True), params, x, [4, 1, 1, 1],
                              call=lambda s, n: dict(positions=pos[:, s : s + n]))  # fmt: skip
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=1e-5)
    if scan_layers:  # one cache per layer, stacked on the scanned axis
        assert jax.tree.leaves(cache)[0].shape[0] == 2

