"""The coarse branch (NaN-safe masking), the public ``fsa_attention`` and its packing/validity masks."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import attention, routing
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference


def test_coarse_branch_matches_numpy_and_is_zero_without_history():
    rng = np.random.default_rng(0)
    t = 5
    raw = rng.normal(size=(2, 3, t, t))
    allowed = np.tril(np.ones((t, t), bool), -1)
    allowed[:, 2] = False  # key frame 2 is padding
    logits = np.where(allowed, raw, -np.inf)
    vbar = rng.normal(size=(2, 3, t, 4))
    got = jax.jit(attention.coarse_branch)(jnp.asarray(logits, jnp.float32), jnp.asarray(vbar, jnp.float32))
    want = np.zeros((2, 3, t, 4))
    for i in range(t):
        js = np.flatnonzero(allowed[i])
        if js.size:
            w = np.exp(raw[..., i, js] - raw[..., i, js].max(-1, keepdims=True))
            want[..., i, :] = np.einsum("bns,bnsh->bnh", w / w.sum(-1, keepdims=True), vbar[..., js, :])
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert bool(jnp.all(got[:, :, 0] == 0))  # frame 0 has no history: exactly 0, not NaN


def test_coarse_branch_gradients_are_finite_for_rows_without_history():
    """Pitfall: a softmax over all −inf gives NaN forward and NaN gradients through ``where``."""
    raw = jax.random.normal(jax.random.key(0), (1, 2, 4, 4))
    vbar = jax.random.normal(jax.random.key(1), (1, 2, 4, 8))
    allowed = jnp.tril(jnp.ones((4, 4), bool), -1)

    def loss(raw, vbar):
        return jnp.sum(attention.coarse_branch(jnp.where(allowed, raw, -jnp.inf), vbar) ** 2)

    g_raw, g_v = jax.jit(jax.grad(loss, argnums=(0, 1)))(raw, vbar)
    assert bool(jnp.all(jnp.isfinite(g_raw))) and bool(jnp.all(jnp.isfinite(g_v)))
    assert bool(jnp.all(g_raw[:, :, 0] == 0))  # row 0 has no history
    assert float(jnp.abs(g_raw[:, :, 2, :2]).sum()) > 0  # gradients reach the routing logits (NSA-like)


@functools.partial(jax.jit, static_argnums=range(6))
def qkv(t=6, p=4, b=2, n=2, h=8, seed=0):
    return tuple(jax.random.normal(k, (b, t * p, n, h)) for k in jax.random.split(jax.random.key(seed), 3))


def test_fsa_attention_is_routing_plus_fine_reference():
    q, k, v = qkv()

    @jax.jit
    def both(q, k, v):
        out, sel = attention.fsa_attention(q, k, v, P=4, k_frames=2)
        want_sel, _ = routing.select_frames(routing.routing_logits(q, k, 4), 2)
        return out, sel, fsa_fine_reference(q, k, v, want_sel, 4), want_sel

    out, sel, want, want_sel = both(q, k, v)
    np.testing.assert_array_equal(sel, want_sel)
    np.testing.assert_allclose(out, want, atol=1e-6)


def test_fsa_attention_masks_other_segments_and_padding():
    q, k, v = qkv(seed=1)
    seg = jnp.array([[0, 0, 0, 1, 1, 1], [0, 1, 1, 1, 1, 1]])
    valid = jnp.array([[True] * 6, [True, True, False, True, True, True]])
    _, sel = jax.jit(lambda *a: attention.fsa_attention(*a, P=4, k_frames=5, seg=seg, valid=valid))(q, k, v)
    s = np.asarray(sel)
    for b in range(2):
        for i in range(6):
            chosen = s[b, :, i][s[b, :, i] >= 0]
            assert np.all(np.asarray(seg)[b, chosen] == np.asarray(seg)[b, i])
            assert np.all((chosen == i) | np.asarray(valid)[b, chosen])


def test_unknown_impls_and_kernel_block_limits():
    q, k, v = qkv()
    with pytest.raises(ConfigError, match="block_q=4 is not allowed for P=4 tokens per frame"):
        attention.fsa_attention(q, k, v, P=4, k_frames=1, impl="pallas")
    with pytest.raises(ConfigError, match="impl='cudnn' is not allowed"):
        attention.fsa_attention(q, k, v, P=4, k_frames=1, impl="cudnn")
