"""The trainers and the study's statistics: batch mixing, distinct retrieval candidates, chance levels, the
paired hierarchical bootstrap, and (slow) the vmapped ``lax.switch`` Stage-B program against a plain loop."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import make_optimizer
from jaxpapers.core.train.optim import OptimConfig
from jaxpapers.unigraphlm import train as T
from jaxpapers.unigraphlm.config import AlignConfig, StudyConfig
from jaxpapers.unigraphlm.curriculum import kappa_score, make_sampler
from jaxpapers.unigraphlm.experiments import pipeline as P


def test_bucket_tables_and_mixed_draws():
    buckets = np.array([3, 0, 3, 1, 1, 3, 0, 3, 3])
    tab = T.bucket_sampler(buckets, 0.5)
    np.testing.assert_array_equal(tab["counts"], [2, 2, 5])
    for b, (s, c) in enumerate(zip(tab["starts"], tab["counts"], strict=True)):
        assert set(buckets[tab["order"][s:s + c]]) == {[0, 1, 3][b]}
    p = np.sqrt([2, 2, 5])
    np.testing.assert_allclose(np.exp(tab["logp"]), p / p.sum(), rtol=1e-6)
    jt = {k: jnp.asarray(v) for k, v in tab.items()}
    draw = jax.jit(jax.vmap(lambda k, prob, t: T.draw_mixed(k, t, 64, prob), in_axes=(0, None, None)))
    idx = np.asarray(draw(jax.random.split(jax.random.key(0), 60), 1.0, jt))
    assert all(len(set(buckets[row])) == 1 for row in idx)  # single-bucket batches
    idx = np.asarray(draw(jax.random.split(jax.random.key(1), 60), 0.0, jt)).ravel()
    freq = np.bincount(np.searchsorted([0, 1, 3], buckets[idx]), minlength=3) / len(idx)
    np.testing.assert_allclose(freq, p / p.sum(), atol=0.03)  # mixed batches ∝ n_b^0.5


def test_distinct_candidates_and_refusal():
    h = np.array([5, 5, 6, 7, 7, 8, 9])
    pick = T.distinct_candidates(h, np.arange(7), 5, np.random.default_rng(0))
    assert len(set(h[pick])) == 5
    with pytest.raises(ConfigError, match="only 5 distinct texts"):
        T.distinct_candidates(h, np.arange(7), 6, np.random.default_rng(0))


def test_chance_levels_use_the_majority_rate_when_unbalanced():
    class Inst:
        bucket = np.array([0, 0, 0, 0, 5, 5, 5, 5])
        extra = {"cands": np.array([[1, 2, 3, 4, 5]] * 4 + [[6, 7, 8, -1, -1]] * 4),
                 "answer": np.array([1, 2, 3, 4, 6, 6, 6, 7])}

    ch = P.chance_levels(Inst, np.arange(8))
    assert ch[0] == pytest.approx(0.25)  # 4 distinct answers: majority 1/4 > 1/5
    assert ch[5] == pytest.approx(0.75)  # 3 options, majority answer 3/4
    assert np.isnan(ch[1])


def test_shuffle_within_is_a_permutation_inside_each_bucket():
    b = np.random.default_rng(0).integers(0, 4, 200)
    perm = P.shuffle_within(b, np.random.default_rng(1))
    assert sorted(perm) == list(range(200))
    np.testing.assert_array_equal(b[perm], b)


def test_hierarchical_bootstrap_against_closed_forms():
    rng = np.random.default_rng(0)
    const = [np.full(30, 0.2), np.full(40, 0.2)]
    bks = [np.zeros(30, int), np.zeros(40, int)]
    reps = P.hierarchical_bootstrap(const, bks, lambda d: np.mean([v.mean() for v, _ in d]), 50, rng)
    np.testing.assert_allclose(reps, 0.2)
    x = rng.integers(0, 2, 2000).astype(float)
    reps = P.hierarchical_bootstrap([x], [np.zeros(2000, int)], lambda d: d[0][0].mean(), 400, rng)
    assert reps.std() == pytest.approx(x.std() / np.sqrt(2000), rel=0.2)  # one unit: the sample-mean SE


def test_stage_b_runs_cover_every_sampler_and_baseline():
    runs = P.stage_b_runs(StudyConfig(projector_seeds=(0, 1)))
    assert {(r.encoder, r.sampler) for r in runs} >= {(0, "curriculum"), (0, "fixed"), (0, "random_difficulty"),
                                                      (0, "anti"), (1, "curriculum"), (2, "curriculum")}
    assert len(runs) == 4 * 2 + 2 and P.run_index(runs, 0, "anti", 1) == 7


def test_align_tune_refuses_bad_settings():
    from jaxpapers.unigraphlm.models.lm import TinyDecoderLM

    lm = TinyDecoderLM(10, 8, layers=1, heads=2, context=6)
    z, tok = jnp.zeros((1, 2, 3, 4)), np.zeros((2, 6), np.int32)
    args = (z, tok, np.zeros(2, np.int32), np.zeros(2, np.int32))
    with pytest.raises(ConfigError, match="refresh_every=3"):
        T.align_tune(AlignConfig(steps=10, refresh_every=3), lm, {}, *args, [T.StageBRun(0, "fixed", 0)], 2,
                     jax.random.key(0))
    with pytest.raises(ConfigError, match="runs must list"):
        T.align_tune(AlignConfig(), lm, {}, *args, [], 2, jax.random.key(0))


@pytest.mark.slow  # compiles a tiny LM and the Stage-B program: ≈ 40 s at load 7 on 2 cores
def test_vmapped_stage_b_equals_a_plain_loop_per_sampler():
    from jaxpapers.unigraphlm.models.lm import TinyDecoderLM, param_hash

    V, L, D, N, G = 20, 10, 8, 24, 4
    rng = np.random.default_rng(0)
    lm = TinyDecoderLM(V, D, layers=1, heads=2, context=L)
    lm_params = lm.init(jax.random.key(0), jnp.zeros((1, L, D)), jnp.ones((1, L), bool))
    tokens = rng.integers(5, V, (N, L)).astype(np.int32)
    tokens[:, 1:3] = 4  # two <graph> placeholders
    pos = rng.integers(4, L - 1, N).astype(np.int32)
    bucket = rng.integers(0, 3, N).astype(np.int32)
    z_all = rng.standard_normal((2, N, 3, G)).astype(np.float32)
    # loss_weight=1: d = pct(ℓ) has no ties, so the order is not decided by float rounding of tied combinations
    cfg = AlignConfig(k_tokens=2, steps=4, batch=4, refresh_every=2, refresh_size=10, loss_weight=1.0)
    runs = [T.StageBRun(1, "fixed", 0), T.StageBRun(0, "curriculum", 1), T.StageBRun(0, "anti", 2),
            T.StageBRun(1, "random_difficulty", 3)]
    key = jax.random.key(7)
    before = param_hash(lm_params)
    phi, losses, served, _ = T.align_tune(cfg, lm, lm_params, z_all, tokens, pos, bucket, runs, 3, key)
    assert param_hash(lm_params) == before

    glm = T.make_glm(lm, lm_params, cfg.k_tokens)
    tx = make_optimizer(OptimConfig(lr=cfg.lr, schedule="warmup_cosine", warmup_frac=0.03), cfg.steps)
    kw = dict(c0=cfg.c0, tc_frac=cfg.tc_frac, beta=cfg.beta, norm=cfg.norm, loss_weight=cfg.loss_weight)
    for r, run in enumerate(runs):
        z = jnp.asarray(z_all[run.encoder])
        sampler = make_sampler(run.sampler, N, cfg.batch, cfg.steps, **kw)
        k_init, k_phi, k_run = jax.random.split(jax.random.fold_in(key, run.seed), 3)
        p = glm.projector.init(k_phi, z[:1])

        def scores(p, idx, z=z):
            _, nll = T.per_sample_nll(glm, p, jnp.asarray(tokens[idx]), z[idx], jnp.asarray(pos[idx]))
            return nll, kappa_score(glm.graph_tokens(p, z[idx]), T.embedding_table(lm_params))

        state = sampler.init(*scores(p, np.arange(N)), jnp.asarray(bucket), k_init)
        opt = tx.init(p)
        count, ref_losses = np.zeros(3, int), []
        for b in range(cfg.steps // cfg.refresh_every):
            kb = jax.random.fold_in(k_init, b + 1)
            sub = jax.random.permutation(kb, N)[:cfg.refresh_size]
            if b:
                state = sampler.refresh(state, sub, *scores(p, np.asarray(sub)), jax.random.fold_in(kb, 1))
            for t in range(b * cfg.refresh_every, (b + 1) * cfg.refresh_every):
                idx, w, state = sampler(state, t, jax.random.fold_in(k_run, t))
                idx = np.asarray(idx)
                count += np.bincount(bucket[idx], minlength=3)

                def loss(q, idx=idx, w=w, z=z):
                    return T.per_sample_nll(glm, q, jnp.asarray(tokens[idx]), z[idx], jnp.asarray(pos[idx]), w)[0]

                val, g = jax.value_and_grad(loss)(p)
                u, opt = tx.update(g, opt, p)
                p = optax.apply_updates(p, u)
                ref_losses.append(float(val))
        np.testing.assert_array_equal(np.asarray(served[r]), count, err_msg=str(run))
        np.testing.assert_allclose(np.asarray(losses[r]), ref_losses, rtol=1e-4, atol=1e-5, err_msg=str(run))
        for a, b_ in zip(jax.tree.leaves(jax.tree.map(lambda x, r=r: x[r], phi)), jax.tree.leaves(p), strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b_), rtol=1e-4, atol=1e-5)
