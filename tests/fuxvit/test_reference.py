"""The pure-JAX FSA reference against float64 NumPy brute force, its chunked loop, and its pitfalls."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.attention import frame_local_attention
from jaxpapers.fuxvit.kernels.fsa.reference import (
    dense_block_causal,
    dense_full,
    fsa_fine_reference,
)

B, N, H = 2, 2, 8


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def qkv(t, p, seed=0):
    ks = jax.random.split(jax.random.key(seed), 3)
    return tuple(jax.random.normal(k, (B, t * p, N, H)) for k in ks)


def np_fine(q, k, v, sel, p):
    """Float64 brute force: for each query frame, one softmax over the union of its selected frames."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    out = np.zeros_like(q)
    t = q.shape[1] // p
    for b in range(q.shape[0]):
        for n in range(q.shape[2]):
            for i in range(t):
                frames = [j for j in np.asarray(sel[b, n, i]) if j >= 0]
                keys = np.concatenate([np.arange(j * p, (j + 1) * p) for j in frames])
                qi = q[b, i * p : (i + 1) * p, n]
                logits = qi @ k[b, keys, n].T / np.sqrt(q.shape[-1])
                w = np.exp(logits - logits.max(-1, keepdims=True))
                w /= w.sum(-1, keepdims=True)
                out[b, i * p : (i + 1) * p, n] = w @ v[b, keys, n]
    return out


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def random_sel(t, k, seed=0):
    logits = jax.random.normal(jax.random.key(seed), (B, N, t, t))
    logits = jnp.where(jnp.tril(jnp.ones((t, t), bool), -1), logits, -jnp.inf)
    return routing.select_frames(logits, k)[0]


@pytest.mark.parametrize("k", [0, 1, 3])
def test_fine_reference_matches_float64_brute_force(k):
    t, p = 5, 4
    q, kk, v = qkv(t, p)
    sel = random_sel(t, k)
    got = jax.jit(lambda *a: fsa_fine_reference(*a, sel, p))(q, kk, v)
    np.testing.assert_allclose(got, np_fine(q, kk, v, sel, p), atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, None])
def test_chunked_lax_map_equals_one_chunk(chunk):
    """lax.map over query-frame chunks (3 does not divide T = 5) equals the loop-free version."""
    t, p = 5, 4
    q, k, v = qkv(t, p, seed=1)
    sel = random_sel(t, 2, seed=1)
    full = jax.jit(lambda *a: fsa_fine_reference(*a, sel, p))(q, k, v)
    got, lse = jax.jit(lambda *a: fsa_fine_reference(*a, sel, p, chunk=chunk, return_lse=True))(q, k, v)
    np.testing.assert_allclose(got, full, atol=1e-6, rtol=1e-6)
    assert lse.shape == (B, N, t * p) and bool(jnp.all(jnp.isfinite(lse)))


def test_full_history_equals_dense_frame_causal_forward_and_gradients():
    t, p = 4, 4
    q, k, v = qkv(t, p, seed=2)
    cot = jax.random.normal(jax.random.key(9), q.shape)

    @jax.jit
    def both(q, k, v, cot):
        sel = routing.select_frames(routing.routing_logits(q, k, p), t - 1)[0]
        o1, vjp1 = jax.vjp(lambda *a: fsa_fine_reference(*a, sel, p, chunk=2), q, k, v)
        o2, vjp2 = jax.vjp(lambda *a: dense_block_causal(*a, p), q, k, v)
        return o1, o2, vjp1(cot), vjp2(cot)

    o1, o2, g1s, g2s = both(q, k, v, cot)
    np.testing.assert_allclose(o1, o2, atol=1e-5)
    for g1, g2 in zip(g1s, g2s, strict=True):
        np.testing.assert_allclose(g1, g2, atol=1e-4, rtol=1e-4)


def test_with_fewer_frames_selected_the_oracle_differs():
    """The comparison above can fail: with k = 1 the fine branch is not dense frame-causal."""
    t, p = 4, 4
    q, k, v = qkv(t, p, seed=3)
    sel = random_sel(t, 1, seed=3)
    diff = jax.jit(lambda *a: jnp.max(jnp.abs(fsa_fine_reference(*a, sel, p) - dense_block_causal(*a, p))))(q, k, v)
    assert float(diff) > 1e-3


def test_padding_slots_never_read_frame_zero():
    """−1 slots are clamped for the gather and masked: frame 0's K/V cannot leak into rows not selecting it."""
    t, p = 4, 4
    q, k, v = qkv(t, p, seed=4)
    sel = jnp.asarray(np.broadcast_to(np.array([[0, -1, -1], [1, -1, -1], [1, 2, -1], [3, -1, -1]]), (B, N, t, 3)))
    fine = jax.jit(lambda *a: fsa_fine_reference(*a, sel, p))
    base = fine(q, k, v)
    moved = fine(q, k.at[:, :p].set(100.0), v.at[:, :p].set(-100.0))
    np.testing.assert_array_equal(moved[:, p:], base[:, p:])
    assert float(jnp.max(jnp.abs(moved[:, :p] - base[:, :p]))) > 1.0


def test_empty_rows_give_zero_not_nan_with_finite_gradients():
    """Rows whose union is empty cannot occur (own frame), but the softmax is guarded anyway."""
    t, p = 3, 4
    q, k, v = qkv(t, p, seed=5)
    sel = jnp.asarray(np.broadcast_to(np.array([[0, -1], [-1, -1], [1, 2]]), (B, N, t, 2)))
    out = jax.jit(lambda *a: fsa_fine_reference(*a, sel, p))(q, k, v)
    assert bool(jnp.all(out[:, p : 2 * p] == 0))
    grads = jax.jit(jax.grad(lambda *a: jnp.sum(fsa_fine_reference(*a, sel, p) ** 2), argnums=(0, 1, 2)))(q, k, v)
    assert all(bool(jnp.all(jnp.isfinite(g))) for g in grads)


def test_own_frame_attention_is_bidirectional():
    """Causality is at frame level: the first token of a frame sees the last token of its own frame."""
    t, p = 3, 4
    q, k, v = qkv(t, p, seed=6)
    sel = random_sel(t, 1)
    fine = jax.jit(lambda *a: fsa_fine_reference(*a, sel, p))
    base = fine(q, k, v)
    last_of_frame_1 = 2 * p - 1
    moved = fine(q, k, v.at[:, last_of_frame_1].add(5.0))
    assert float(jnp.max(jnp.abs(moved[:, p] - base[:, p]))) > 1e-3  # token 0 of frame 1 changed


def test_reference_builds_no_token_by_token_buffer():
    """Pitfall: the reference gathers whole frames; no intermediate (forward or backward) has N² entries."""
    t, p, k = 32, 4, 2
    n_tok = t * p
    q, kk, v = (jax.ShapeDtypeStruct((1, n_tok, 1, 4), jnp.float32) for _ in range(3))
    sel = jax.ShapeDtypeStruct((1, 1, t, 1 + k), jnp.int32)

    def loss(q, kk, v, sel):
        return jnp.sum(fsa_fine_reference(q, kk, v, sel, p))

    jaxpr = jax.make_jaxpr(jax.grad(loss, argnums=(0, 1, 2)))(q, kk, v, sel)
    sizes = [int(np.prod(var.aval.shape)) for eqn in jaxpr.jaxpr.eqns for var in eqn.outvars]
    assert max(sizes) < n_tok * n_tok // 4, max(sizes)  # the largest is T·(1+k)·P² logits, far below N²
    dense = jax.make_jaxpr(lambda q, kk, v: dense_block_causal(q, kk, v, p))(q, kk, v)
    assert max(int(np.prod(v.aval.shape)) for e in dense.jaxpr.eqns for v in e.outvars) >= n_tok * n_tok  # can fail


def test_dense_oracles_match_numpy():
    t, p = 3, 2
    q, k, v = (np.asarray(x, np.float64) for x in qkv(t, p, seed=7))
    frame = np.arange(t * p) // p
    allowed = frame[:, None] >= frame[None, :]
    logits = np.einsum("bsnh,btnh->bnst", q, k) / np.sqrt(H)
    for mask, fn in ((allowed, dense_block_causal), (np.ones_like(allowed), dense_full)):
        lg = np.where(mask, logits, -np.inf)
        w = np.exp(lg - lg.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        want = np.einsum("bnst,btnh->bsnh", w, v)
        got = jax.jit(lambda *a, fn=fn: fn(*a, p))(*(jnp.asarray(x, jnp.float32) for x in (q, k, v)))
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_frame_local_attention_equals_fine_branch_with_own_frame_only():
    t, p = 4, 4
    q, k, v = qkv(t, p, seed=8)
    own = jnp.broadcast_to(jnp.arange(t)[:, None], (B, N, t, 1))
    local, fine = jax.jit(lambda *a: (frame_local_attention(*a, p), fsa_fine_reference(*a, own, p)))(q, k, v)
    np.testing.assert_allclose(local, fine, atol=1e-6)


def test_bad_shapes_raise():
    q, k, v = qkv(3, 4)
    with pytest.raises(ConfigError, match="sel has shape"):
        fsa_fine_reference(q, k, v, jnp.zeros((B, N, 2, 1), jnp.int32), 4)
    with pytest.raises(ConfigError, match="not a multiple of P=5"):
        fsa_fine_reference(q, k, v, jnp.zeros((B, N, 3, 1), jnp.int32), 5)
    with pytest.raises(ConfigError, match="chunk=0"):
        fsa_fine_reference(q, k, v, jnp.zeros((B, N, 3, 1), jnp.int32), 4, chunk=0)
