"""The scan loop against a plain NumPy loop fed the same draws, the scorers against each other, vmapping, and
the pitfalls (q̂ is this round's conjectures; a uniform start on S_k)."""

import jax
import numpy as np
import pytest
from jaxtyping import TypeCheckError

from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving import diffusion as D
from jaxpapers.selfplay_proving import graphs as G
from jaxpapers.selfplay_proving import selfplay as SP
from jaxpapers.selfplay_proving.config import PlayConfig


def _pick(deg, x):
    return np.clip(np.floor(x * deg).astype(np.int64), 0, max(deg - 1, 0))


def reference_play(g, key, rounds, cfg, seed_node, S=None):
    """A theorist's loop: round by round, conjecture by conjecture (S: dense table for the diverse walk)."""
    nbr, deg = np.asarray(g.nbr), np.asarray(g.deg)
    n, d = nbr.shape
    m_max = cfg.max_budget or int(np.ceil(cfg.beta * n))
    mask = np.zeros(n, bool)
    mask[seed_node] = True
    mask[nbr[seed_node, : deg[seed_node]]] = True
    sizes, conj = [int(mask.sum())], []
    for k in range(rounds):
        noise = jax.tree.map(np.asarray, SP.round_noise(jax.random.fold_in(key, k), m_max, d, cfg.walk_len))
        order = np.concatenate([np.flatnonzero(mask), np.flatnonzero(~mask)])
        size = int(mask.sum())
        m = min(int(np.ceil(np.float32(cfg.beta) * np.float32(size))), m_max)
        acc = np.zeros(n, np.float32)
        vs, new = [], set()
        for j in range(m):
            u = order[_pick(size, noise.start[j])]
            if S is None:
                v = u
                for i in range(cfg.walk_len):
                    v = nbr[v, _pick(deg[v], noise.steps[i, j])]
            else:
                cand = nbr[u, : deg[u]]
                sc = acc[cand]
                std = sc.std()
                if std <= SP.STD_ZERO * (1 + np.abs(sc).max()):
                    logits = np.zeros(len(cand))
                else:
                    logits = -(sc - sc.min()) / (np.float32(cfg.tau) * std)
                v = cand[np.argmax(logits + noise.gumbel[j, : deg[u]])]
                acc = acc + S[v]
            vs.append(v)
            near = cfg.walk_len == 1 or mask[nbr[v, : deg[v]]].any()
            if not mask[v] and near and noise.prove[j] < cfg.p:
                new.add(int(v))
        mask[list(new)] = True
        sizes.append(int(mask.sum()))
        conj.append(vs)
    return np.array(sizes), conj


@pytest.mark.parametrize("walk_len", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_plain_scan_matches_loop(walk_len):
    g = G.random_regular(40, 3, 0)
    cfg = PlayConfig(walk_len=walk_len)
    keys = jax.random.split(jax.random.key(1), 3)
    res = SP.play(g, keys, rounds=6, cfg=cfg, seed_node=2)
    for i in range(3):
        sizes, conj = reference_play(g, keys[i], 6, cfg, 2)
        np.testing.assert_array_equal(np.asarray(res.sizes[i]), sizes)
        for k, vs in enumerate(conj):
            row = np.asarray(res.conj[i, k])
            np.testing.assert_array_equal(row[: len(vs)], vs)
            assert np.all(row[len(vs) :] == -1)
        assert int(res.truncated[i]) == 0
        pr = np.asarray(res.proved_round[i])
        assert [(pr >= 0) & (pr <= k) for k in range(7)][-1].sum() == sizes[-1]


def test_diverse_dense_scan_matches_loop():
    g = G.sbm(3, 10, 0.5, 0.05, 0)
    S = D.diffusion_similarity(g, 4).astype(np.float32)
    cfg = PlayConfig()
    keys = jax.random.split(jax.random.key(2), 2)
    res = SP.play(g, keys, rounds=4, cfg=cfg, conjecturer="diverse", scorer=SP.dense_scores(S))
    for i in range(2):
        sizes, conj = reference_play(g, keys[i], 4, cfg, 0, S=S)
        np.testing.assert_array_equal(np.asarray(res.sizes[i]), sizes)
        for k, vs in enumerate(conj):
            np.testing.assert_array_equal(np.asarray(res.conj[i, k, : len(vs)]), vs)


@pytest.mark.slow
def test_embedding_and_walk_scorers_agree_with_dense():
    """An exact factor F Fᵀ = S_t (F = D_π^{-1/2} N_{t/2}) and the sparse-walk columns give the dense choices."""
    g = G.watts_strogatz(30, 4, 0.3, 0)
    S = D.diffusion_similarity(g, 4)
    pi = D.stationary(g)
    F = D.walk_kernel(g, 2) / np.sqrt(pi)[:, None]
    np.testing.assert_allclose(F @ F.T, S, atol=1e-9)
    keys = jax.random.split(jax.random.key(3), 2)
    base = SP.play(g, keys, rounds=3, conjecturer="diverse", scorer=SP.dense_scores(S))
    for scorer in (SP.embedding_scores(F), SP.walk_scores(g, 4)):
        other = SP.play(g, keys, rounds=3, conjecturer="diverse", scorer=scorer)
        agree = np.mean(np.asarray(other.conj) == np.asarray(base.conj))
        assert agree > 0.97  # float32 rounding can flip a near-tie


@pytest.mark.slow
def test_per_seed_graphs_equal_single_runs():
    gs = [G.random_regular(32, 3, s) for s in range(3)]
    keys = jax.random.split(jax.random.key(4), 3)
    st = G.stack([G.pad(g, 32, 4) for g in gs])
    batch = SP.play(st, keys, rounds=5, per_seed_graphs=True, log=False)
    for i, g in enumerate(gs):
        one = SP.play(g, keys[i : i + 1], rounds=5, log=False)
        np.testing.assert_array_equal(np.asarray(batch.sizes[i]), np.asarray(one.sizes[0]))


@pytest.mark.slow
def test_padding_rows_are_never_reached():
    g = G.cycle(12)
    keys = jax.random.split(jax.random.key(5), 2)
    a = SP.play(g, keys, rounds=8, log=False)
    b = SP.play(G.pad(g, 40, 5), keys, rounds=8, cfg=PlayConfig(max_budget=12), log=False)
    np.testing.assert_array_equal(np.asarray(a.sizes), np.asarray(b.sizes))
    assert np.all(np.asarray(b.proved_round)[:, 12:] == -1)


def test_budget_truncation_is_reported():
    g = G.random_regular(64, 4, 0)
    res = SP.play(g, jax.random.split(jax.random.key(0), 1), rounds=6, cfg=PlayConfig(max_budget=8), log=False)
    assert int(res.truncated[0]) > 0 and np.all(np.asarray(res.budget) <= 8)


def test_choice_logits_uniform_when_flat():
    import jax.numpy as jnp

    lg = SP.choice_logits(jnp.array([2.0, 2.0, 2.0, 9.0]), jnp.array([True, True, True, False]), 0.05)
    np.testing.assert_array_equal(np.asarray(lg[:3]), 0.0)
    assert np.isneginf(np.asarray(lg[3]))
    lg = SP.choice_logits(jnp.array([1.0, 3.0]), jnp.array([True, True]), 0.5)
    np.testing.assert_allclose(np.asarray(lg), [0.0, -4.0], rtol=1e-6)


def test_bad_inputs():
    g = G.cycle(6)
    keys = jax.random.split(jax.random.key(0), 2)
    with pytest.raises(ConfigError, match="conjecturer"):
        SP.play(g, keys, rounds=2, conjecturer="greedy")
    with pytest.raises(ConfigError, match="needs a scorer"):
        SP.play(g, keys, rounds=2, conjecturer="diverse")
    with pytest.raises(ConfigError, match="rows for a graph"):
        SP.play(g, keys, rounds=2, conjecturer="diverse", scorer=SP.dense_scores(np.eye(5)))
    with pytest.raises(ConfigError, match="seed_node"):
        SP.play(g, keys, rounds=2, seed_node=6)
    with pytest.raises((ConfigError, TypeCheckError)):
        SP.play(g, np.zeros(2), rounds=2)
    with pytest.raises(ConfigError, match="play.p"):
        PlayConfig(p=0.0)


@pytest.mark.parametrize("start", [pytest.param("uniform", marks=pytest.mark.slow), "pi"])
def test_start_distribution(start):
    """Pitfall (Cheeger on non-regular graphs): ``start="pi"`` starts ∝ π on S_k, so one step lands on v with
    probability e(S, v)/vol(S); ``uniform`` gives (1/|S|)·Σ_{u∈S} A(u, v)/deg(u)."""
    g = G.barbell(4)
    A = G.dense_adjacency(g)
    deg = A.sum(1)
    S = np.array([0, 1, 2, 3, 4])  # seed node 3 (the bridge end) and its neighbours
    expected = A[S].sum(0) / deg[S].sum() if start == "pi" else (A[S] / deg[S, None]).mean(0)
    keys = jax.random.split(jax.random.key(7), 4000)
    res = SP.play(g, keys, rounds=1, cfg=PlayConfig(start=start), seed_node=3)
    conj = np.asarray(res.conj)[:, 0, :5].ravel()
    np.testing.assert_allclose(np.bincount(conj, minlength=g.n) / conj.size, expected, atol=0.01)
