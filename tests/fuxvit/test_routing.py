"""Frame routing against brute-force NumPy references (summaries, masked logits, selection, inverse)."""

import itertools

import jax
import jax.numpy as jnp
import jaxtyping
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import routing


def np_select(logits, k, seg, valid, force_first, force_prev):
    """Brute-force S_i row by row (Python loops): own frame, forced frames, top-k by value (lower index on ties)."""
    b, n, t, _ = logits.shape
    s_max = 1 + int(force_first) + int(force_prev) + min(k, t - 1)
    sel = np.full((b, n, t, s_max), -1, np.int64)
    for bi, ni, i in itertools.product(range(b), range(n), range(t)):
        row = logits[bi, ni, i]
        chosen = {i}
        forced = set()
        if force_first:
            first = (
                min(j for j in range(t) if seg[bi, j] == seg[bi, i] and valid[bi, j])
                if any(seg[bi, j] == seg[bi, i] and valid[bi, j] for j in range(t))
                else None
            )
            if first is not None and np.isfinite(row[first]):
                forced.add(first)
        if force_prev and i >= 1 and np.isfinite(row[i - 1]):
            forced.add(i - 1)
        chosen |= forced
        cands = [j for j in range(t) if np.isfinite(row[j]) and j not in forced]
        cands.sort(key=lambda j: (-row[j], j))
        chosen |= set(cands[:k])
        vals = sorted(chosen)
        sel[bi, ni, i, : len(vals)] = vals
    return sel


def np_logits(q, k, P, seg, valid):
    b, n_tok, n, h = q.shape
    t = n_tok // P
    qb = q.reshape(b, t, P, n, h).mean(2).transpose(0, 2, 1, 3).astype(np.float64)
    kb = k.reshape(b, t, P, n, h).mean(2).transpose(0, 2, 1, 3).astype(np.float64)
    out = np.einsum("bnih,bnjh->bnij", qb, kb) / np.sqrt(h)
    for bi, i, j in itertools.product(range(b), range(t), range(t)):
        if not (j < i and seg[bi, i] == seg[bi, j] and valid[bi, j]):
            out[bi, :, i, j] = -np.inf
    return out


@pytest.fixture
def qk():
    kq, kk = jax.random.split(jax.random.key(0))
    shape = (2, 6 * 4, 3, 8)  # B, T·P, N, H with T = 6, P = 4
    return jax.random.normal(kq, shape), jax.random.normal(kk, shape)


def test_frame_summaries_are_per_frame_means(qk):
    q, _ = qk
    got = routing.frame_summaries(q, 4)
    want = np.asarray(q).reshape(2, 6, 4, 3, 8).mean(2).transpose(0, 2, 1, 3)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    both = routing.frame_summaries(q, 4, "mean+max")
    np.testing.assert_allclose(both[..., 8:], np.asarray(q).reshape(2, 6, 4, 3, 8).max(2).transpose(0, 2, 1, 3))
    with pytest.raises(ConfigError, match="pool='median' is not allowed"):
        routing.frame_summaries(q, 4, "median")


def test_routing_logits_mask_history_segments_and_validity(qk):
    q, k = qk
    seg = np.array([[0, 0, 0, 1, 1, 1], [0, 1, 1, 1, 2, 2]])
    valid = np.array([[1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 1, 0]], bool)
    got = np.asarray(routing.routing_logits(q, k, 4, jnp.asarray(seg), jnp.asarray(valid)))
    want = np_logits(np.asarray(q), np.asarray(k), 4, seg, valid)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_allclose(got[np.isfinite(got)], want[np.isfinite(want)], rtol=1e-5, atol=1e-6)
    assert np.all(np.isneginf(np.diagonal(got, axis1=-2, axis2=-1)))  # the own frame is added by selection


@pytest.mark.parametrize("k", [0, 1, 2, 5, 9])
@pytest.mark.parametrize("force_first,force_prev", [(False, False), (True, False), (False, True), (True, True)])
def test_select_frames_matches_brute_force(k, force_first, force_prev):
    rng = np.random.default_rng(k)
    b, n, t = 2, 2, 7
    seg = np.array([[0, 0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1, 1]])
    valid = np.array([[1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 1, 1, 1]], bool)
    # Small integer logits create ties; lax.top_k (and the reference) prefer the lower index.
    raw = rng.integers(-2, 3, (b, n, t, t)).astype(np.float32)
    mask = np.zeros((b, t, t), bool)
    for bi, i, j in itertools.product(range(b), range(t), range(t)):
        mask[bi, i, j] = j < i and seg[bi, i] == seg[bi, j] and valid[bi, j]
    logits = np.where(mask[:, None], raw, -np.inf)
    select = jax.jit(lambda x: routing.select_frames(x, k, jnp.asarray(seg), force_first, force_prev, valid=valid))
    sel, num = select(jnp.asarray(logits))
    want = np_select(logits, k, seg, valid, force_first, force_prev)
    np.testing.assert_array_equal(np.asarray(sel), want)
    np.testing.assert_array_equal(np.asarray(num), (want >= 0).sum(-1))
    assert sel.dtype == jnp.int32 and num.dtype == jnp.int32


def test_padding_is_decided_by_value_not_position():
    """lax.top_k returns indices even for −inf entries; those slots must become −1 (pitfall)."""
    t = 4
    logits = np.full((1, 1, t, t), -np.inf, np.float32)
    logits[0, 0, 3, 1] = 0.5  # frame 3 has one allowed history frame (1), not 0 or 2
    sel, num = routing.select_frames(jnp.asarray(logits), 3)
    np.testing.assert_array_equal(np.asarray(sel[0, 0, 3]), [1, 3, -1, -1])
    np.testing.assert_array_equal(np.asarray(num[0, 0]), [1, 1, 1, 2])
    np.testing.assert_array_equal(np.asarray(sel[0, 0, 0]), [0, -1, -1, -1])


def test_rows_are_sorted_ascending_with_padding_last():
    logits = jax.random.normal(jax.random.key(1), (3, 2, 9, 9))
    logits = jnp.where(jnp.tril(jnp.ones((9, 9), bool), -1), logits, -jnp.inf)
    sel, num = jax.jit(lambda x: routing.select_frames(x, 3, force_first=True, force_prev=True))(logits)
    s, num = np.asarray(sel), np.asarray(num)
    for row, cnt in zip(s.reshape(-1, s.shape[-1]), num.ravel(), strict=True):
        assert list(row[:cnt]) == sorted(row[:cnt]) and len(set(row[:cnt])) == cnt
        assert np.all(row[cnt:] == -1)


def test_forced_first_and_previous_frame_coincide_once():
    """Frame 1's previous frame is the segment's first frame: it is selected once, not twice."""
    logits = jnp.where(jnp.tril(jnp.ones((5, 5), bool), -1), 0.0, -jnp.inf)[None, None]
    sel, num = routing.select_frames(logits, 0, force_first=True, force_prev=True)
    np.testing.assert_array_equal(np.asarray(sel[0, 0, 1]), [0, 1, -1])
    np.testing.assert_array_equal(np.asarray(sel[0, 0, 4]), [0, 3, 4])
    np.testing.assert_array_equal(np.asarray(num[0, 0]), [1, 2, 3, 3, 3])


def test_selection_has_no_gradient_but_logits_do():
    logits = jax.random.normal(jax.random.key(2), (1, 1, 5, 5))
    logits = jnp.where(jnp.tril(jnp.ones((5, 5), bool), -1), logits, -jnp.inf)
    g = jax.grad(lambda x: jnp.sum(routing.select_frames(x, 2)[0].astype(jnp.float32)))(logits)
    assert float(jnp.abs(g).max()) == 0.0


def test_select_frames_jit_equals_eager():
    logits = jax.random.normal(jax.random.key(3), (2, 2, 6, 6))
    logits = jnp.where(jnp.tril(jnp.ones((6, 6), bool), -1), logits, -jnp.inf)
    eager = routing.select_frames(logits, 2, force_prev=True)
    jitted = jax.jit(lambda x: routing.select_frames(x, 2, force_prev=True))(logits)
    for a, b in zip(eager, jitted, strict=True):
        np.testing.assert_array_equal(a, b)


def test_inverse_selection_matches_brute_force():
    logits = jax.random.normal(jax.random.key(4), (2, 3, 8, 8))
    logits = jnp.where(jnp.tril(jnp.ones((8, 8), bool), -1), logits, -jnp.inf)
    sel, inv, cnt = jax.device_get(
        jax.jit(
            lambda x: (lambda s: (s, *routing.inverse_selection(s, 8)))(
                routing.select_frames(x, 2, force_first=True)[0]
            )
        )(logits)
    )
    for b, n, j in itertools.product(range(2), range(3), range(8)):
        queries = [i for i in range(8) if j in sel[b, n, i]]
        assert cnt[b, n, j] == len(queries)
        np.testing.assert_array_equal(inv[b, n, j, : len(queries)], queries)
        assert np.all(inv[b, n, j, len(queries) :] == -1)


def test_shared_routing_gives_every_head_the_same_selection(qk):
    from jaxpapers.fuxvit import attention

    q, k = qk
    b, t = 2, 6
    frames = jnp.broadcast_to(jnp.arange(t), (b, t))
    seg, valid = routing.default_seg_valid(b, t, None, None)
    r = attention.route(
        routing.frame_summaries(q, 4),
        routing.frame_summaries(k, 4),
        head_dim=8,
        k_frames=2,
        q_frames=frames,
        seg_q=seg,
        seg_k=seg,
        valid_k=valid,
        share_across_heads=True,
    )
    assert np.all(np.asarray(r.sel) == np.asarray(r.sel[:, :1]))
    summed, _ = routing.select_frames(r.logits.sum(1, keepdims=True), 2)
    np.testing.assert_array_equal(np.asarray(r.sel[:, 0]), np.asarray(summed[:, 0]))


def test_routing_entropy_and_recall():
    t = 6
    # Every query frame selects frame 0 only: collapsed routing, entropy 0.
    sel = jnp.asarray(np.array([[0, i] if i else [0, -1] for i in range(t)])[None, None])
    assert float(routing.routing_entropy(sel, t)) == pytest.approx(0.0, abs=1e-6)
    assert float(routing.routing_recall(sel, jnp.array([0]))) == 1.0
    assert float(routing.routing_recall(sel, jnp.array([3]))) == 0.0
    assert routing.recall_chance(2, 7, 4) == pytest.approx(1 - (5 / 7) ** 4)


def test_bad_inputs_raise_clear_errors(qk):
    q, k = qk
    with pytest.raises(ConfigError, match="not a multiple of P=5"):
        routing.routing_logits(q, k, 5)
    with pytest.raises(ConfigError, match="frame_seg has shape"):
        routing.routing_logits(q, k, 4, seg=jnp.zeros((2, 5), jnp.int32))
    with pytest.raises(ConfigError, match="k_frames=-1 is out of range"):
        routing.select_frames(jnp.zeros((1, 1, 3, 3)), -1)
    # the shape check in the annotation (jaxtyping hook, on in the test run) or the function's own
    with pytest.raises((ConfigError, jaxtyping.TypeCheckError), match="expected square|B N T T"):
        routing.select_frames(jnp.zeros((1, 1, 3, 4)), 1)
