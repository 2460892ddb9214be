"""The frozen LM, the projector, closed-set scoring and the losses against NumPy loops (tiny sizes)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.unigraphlm.data.vocab import GRAPH
from jaxpapers.unigraphlm.losses import anchor_loss, answer_nll, clip_loss
from jaxpapers.unigraphlm.models.glm import UniGraphLM
from jaxpapers.unigraphlm.models.lm import TinyDecoderLM, param_hash
from jaxpapers.unigraphlm.models.projector import GraphTokenProjector

V, D, L, B, K, G = 30, 16, 12, 3, 2, 8


@pytest.fixture(scope="module")
def glm():
    lm = TinyDecoderLM(V, D, layers=1, heads=2, context=L)
    params = lm.init(jax.random.key(0), jnp.zeros((1, L, D)), jnp.ones((1, L), bool))
    e = np.asarray(params["params"]["embed"]["embedding"])
    proj = GraphTokenProjector(K, D, float(np.median(np.linalg.norm(e, axis=1))))
    phi = proj.init(jax.random.key(1), jnp.zeros((1, 3, G)))
    return UniGraphLM(lm, params, proj), phi


def _batch(seed=0):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(5, V, (B, L)).astype(np.int32)
    tokens[:, 2:2 + K] = GRAPH
    tokens[:, 9:] = 0  # padding
    z = rng.standard_normal((B, 3, G)).astype(np.float32)
    pos = np.array([6, 7, 8], np.int32)
    cands = np.array([[5, 6, 7], [8, 9, -1], [10, 11, 12]], np.int32)
    return jnp.asarray(tokens), jnp.asarray(z), jnp.asarray(pos), jnp.asarray(cands)


def test_graph_tokens_replace_the_placeholders_at_the_word_norm(glm):
    m, phi = glm
    tokens, z, _, _ = _batch()
    emb = np.asarray(m.embed_inputs(phi, tokens, z))
    g = np.asarray(m.graph_tokens(phi, z))
    np.testing.assert_allclose(emb[:, 2:2 + K], g, rtol=1e-6)
    words = np.asarray(m.lm.apply(m.lm_params, tokens, method=TinyDecoderLM.embed))
    np.testing.assert_allclose(emb[:, K + 2:], words[:, K + 2:])
    np.testing.assert_allclose(np.linalg.norm(g, axis=-1), m.projector.target_norm, rtol=1e-5)


def test_closed_set_scoring_matches_a_numpy_loop(glm):
    m, phi = glm
    tokens, z, pos, cands = _batch()
    got = np.asarray(m.score_candidates(phi, tokens, z, pos, cands))
    logits = np.asarray(m.logits(phi, tokens, z), np.float64)
    for i in range(B):
        row = logits[i, int(pos[i])]
        lse = np.log(np.exp(row - row.max()).sum()) + row.max()
        for j, c in enumerate(np.asarray(cands[i])):
            if c < 0:
                assert got[i, j] == -np.inf
            else:
                assert got[i, j] == pytest.approx(row[c] - lse, abs=1e-4)


def test_padding_and_later_tokens_do_not_change_the_answer_score(glm):
    """Causal and pad masks: what follows the answer position (or is padding) leaves its scores unchanged."""
    m, phi = glm
    tokens, z, pos, cands = _batch()
    changed = tokens.at[:, 9:].set(7)
    a = m.score_candidates(phi, tokens, z, pos, cands)
    b = m.score_candidates(phi, changed, z, pos, cands)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-5)


def test_the_lm_stays_frozen_while_the_projector_learns(glm):
    m, phi = glm
    tokens, z, pos, _ = _batch()
    targets = jnp.array([5, 6, 7])
    before = param_hash(m.lm_params)

    def loss(p):
        return -jnp.take_along_axis(m.answer_logprob(p, tokens, z, pos), targets[:, None], 1).mean()

    opt = optax.adam(1e-2)

    @jax.jit
    def step(p, state):
        val, g = jax.value_and_grad(loss)(p)
        u, state = opt.update(g, state, p)
        return optax.apply_updates(p, u), state, val

    p, state, l0 = step(phi, opt.init(phi))
    for _ in range(3):
        p, state, last = step(p, state)
    assert float(last) < float(l0)
    assert param_hash(m.lm_params) == before
    assert param_hash(p) != param_hash(phi)
    bumped = jax.tree.map(lambda x: x, m.lm_params)
    bumped["params"]["pos"] = bumped["params"]["pos"].at[0, 0].add(1e-6)
    assert param_hash(bumped) != before


def test_answer_nll_matches_a_numpy_loop():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((B, 5, 7)).astype(np.float32)
    targets = rng.integers(0, 7, (B, 5))
    mask = rng.random((B, 5)) < 0.5
    mask[:, 0] = True
    w = np.array([1.0, 2.0, 3.0], np.float32)
    loss, per = answer_nll(jnp.asarray(logits), jnp.asarray(targets), jnp.asarray(mask), jnp.asarray(w))
    ref = []
    for i in range(B):
        lp = [logits[i, j, targets[i, j]] - np.log(np.exp(logits[i, j].astype(np.float64)).sum())
              for j in range(5) if mask[i, j]]
        ref.append(-np.mean(lp))
    np.testing.assert_allclose(np.asarray(per), ref, rtol=1e-5)
    assert float(loss) == pytest.approx(float(np.sum(w / w.mean() * ref) / B), rel=1e-5)


def test_clip_and_anchor_losses_match_numpy():
    rng = np.random.default_rng(1)
    eg, et = (x / np.linalg.norm(x, axis=1, keepdims=True) for x in rng.standard_normal((2, 4, 6)))
    same = np.eye(4, dtype=bool)
    same[0, 1] = same[1, 0] = True  # a duplicated text: multi-positive targets
    got = float(clip_loss(jnp.asarray(eg, jnp.float32), jnp.asarray(et, jnp.float32), jnp.log(0.1), jnp.asarray(same)))
    s = eg @ et.T / 0.1
    y = same / same.sum(1, keepdims=True)

    def ce(m, t):
        return -(t * (m - np.log(np.exp(m).sum(1, keepdims=True)))).sum(1).mean()

    assert got == pytest.approx(0.5 * (ce(s, y) + ce(s.T, y.T)), rel=1e-4)
    assert float(clip_loss(jnp.asarray(eg), jnp.asarray(eg), jnp.log(1e-4))) == pytest.approx(
        float(clip_loss(jnp.asarray(eg), jnp.asarray(eg), jnp.log(0.01))), rel=1e-6)  # T clamped at 0.01
    a, b = rng.standard_normal((2, 5, 3))
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert float(anchor_loss(jnp.asarray(a), jnp.asarray(b))) == pytest.approx(np.mean(1 - cos), rel=1e-5)
