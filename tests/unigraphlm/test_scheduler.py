"""U4 and the curriculum samplers as pure functions of (state, step, key) (spec, Curriculum alignment tuning)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError
from jaxpapers.unigraphlm.curriculum import (
    CurriculumSampler,
    FixedSampler,
    RandomDifficultySampler,
    competence,
    difficulty,
    eligible_count,
    make_sampler,
    percentile_rank,
)
from jaxpapers.unigraphlm.experiments import scheduler


def _pool(n=60, seed=0):
    rng = np.random.default_rng(seed)
    nll = rng.lognormal(0, 0.5, n).astype(np.float32)
    nll[:10] = nll[10]  # ties
    return nll, rng.uniform(0, 1, n).astype(np.float32), rng.integers(0, 3, n).astype(np.int32)


def test_u4_tiny_measure_holds():
    m = scheduler.measure(config.load("unigraphlm/scheduler", "preset=tiny"), None)
    v = m.measured
    assert v["c_at_0"] == pytest.approx(0.25, abs=1e-6) and v["c_at_Tc"] == pytest.approx(1.0, abs=1e-6)
    assert v["pacing_violations"] == v["size_violations"] == v["draws_outside_eligible"] == 0
    assert v["weight_mean_error"] < 1e-5
    assert v["nll_gap_rest_minus_eligible0"] > 0
    assert v["spearman_d_nll_after_refresh"] >= 0.6


def test_competence_and_eligible_count_closed_form():
    t = np.arange(0, 101)
    ref = np.minimum(1.0, np.sqrt(0.25**2 + (1 - 0.25**2) * t / 70.0))
    np.testing.assert_allclose(np.asarray(competence(t, 0.25, 70.0)), ref, atol=1e-6)
    sizes = np.asarray(eligible_count(t, 37, 0.25, 70.0))
    assert list(sizes) == [min(37, math.ceil(round(r * 37, 4))) for r in ref]
    assert sizes[0] == math.ceil(0.25 * 37) and np.all(np.diff(sizes) >= 0) and sizes[70] == 37


@pytest.mark.parametrize("by_bucket", [False, True])
def test_percentile_rank_matches_a_numpy_loop(by_bucket):
    nll, _, buckets = _pool()
    key = jax.random.key(3)
    got = np.asarray(percentile_rank(jnp.asarray(nll), key, jnp.asarray(buckets) if by_bucket else None))
    jitter = np.asarray(jax.random.uniform(key, (len(nll),)))
    groups = [np.flatnonzero(buckets == b) for b in np.unique(buckets)] if by_bucket else [np.arange(len(nll))]
    ref = np.zeros(len(nll))
    for idx in groups:
        order = sorted(idx, key=lambda i: (nll[i], jitter[i]))
        for r, i in enumerate(order):
            ref[i] = r / max(len(idx) - 1, 1)
    np.testing.assert_allclose(got, ref, atol=1e-6)
    assert len(np.unique(got)) == len(got) or by_bucket  # ties broken


def test_samplers_are_pure_functions():
    nll, kappa, buckets = _pool()
    key = jax.random.key(0)
    for name in ("curriculum", "fixed", "random_difficulty", "anti"):
        s = make_sampler(name, 60, 8, 50)
        state = s.init(nll, kappa, buckets, key)
        a = s(state, 7, jax.random.key(5))
        b = jax.jit(lambda st, t, k, s=s: s(st, t, k))(state, 7, jax.random.key(5))
        np.testing.assert_array_equal(np.asarray(a[0]), np.asarray(b[0]))
        np.testing.assert_allclose(np.asarray(a[1]), np.asarray(b[1]), rtol=1e-6)
        for x, y in zip(jax.tree.leaves(a[2]), jax.tree.leaves(state), strict=True):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
        c = s(state, 7, jax.random.key(6))
        assert not np.array_equal(np.asarray(a[0]), np.asarray(c[0]))


def test_scan_of_the_sampler_equals_a_plain_loop():
    nll, kappa, buckets = _pool()
    s = CurriculumSampler(60, 8, 30)
    state = s.init(nll, kappa, buckets, jax.random.key(0))
    idx, w, count = scheduler.run_sampler(s, state, jax.random.key(1))
    for t in range(30):
        i, wt, _ = s(state, t, jax.random.fold_in(jax.random.key(1), t))
        np.testing.assert_array_equal(np.asarray(idx[t]), np.asarray(i))
        np.testing.assert_allclose(np.asarray(w[t]), np.asarray(wt), rtol=1e-6)
        assert int(count[t]) == int(eligible_count(t, 60, 0.25, s.t_c))


def test_fixed_sampler_is_uniform_with_unit_weights():
    s = FixedSampler(50, 4000, 10)
    state = s.init(*_pool(50), jax.random.key(0))
    idx, w, _ = s(state, 0, jax.random.key(1))
    assert np.all(np.asarray(w) == 1.0)
    counts = np.bincount(np.asarray(idx), minlength=50)
    assert counts.min() > 40 and counts.max() < 125  # 80 expected per sample


def test_easy_first_anti_hard_first_random_difficulty_ignores_nll():
    nll, kappa, buckets = _pool(400, 1)
    key = jax.random.key(0)
    easy, anti = make_sampler("curriculum", 400, 8, 50), make_sampler("anti", 400, 8, 50)
    rnd = RandomDifficultySampler(400, 8, 50)
    se = easy.init(nll, kappa, buckets, key)
    d = np.asarray(se.difficulty)
    n0 = int(eligible_count(0, 400, 0.25, easy.t_c))
    e_order, _ = easy.eligible(se, 0)
    a_order, _ = anti.eligible(anti.init(nll, kappa, buckets, key), 0)
    assert d[np.asarray(e_order[:n0])].max() <= np.sort(d)[n0 - 1] + 1e-7
    assert d[np.asarray(a_order[:n0])].min() >= np.sort(d)[-n0] - 1e-7
    sr = rnd.init(nll, kappa, buckets, key)
    assert abs(scheduler.spearman(np.asarray(sr.difficulty), nll)) < 0.15
    assert rnd.refresh(sr, jnp.arange(10), jnp.zeros(10), jnp.zeros(10), key) is sr


def test_refresh_recomputes_percentiles_over_the_whole_pool():
    nll, kappa, buckets = _pool(100, 2)
    s = CurriculumSampler(100, 8, 50, loss_weight=1.0)
    st = s.init(nll, kappa, buckets, jax.random.key(0))
    new = s.refresh(st, jnp.arange(5), jnp.full(5, -1.0), jnp.asarray(kappa[:5]), jax.random.key(1))
    d = np.asarray(new.difficulty)
    assert np.all(d[:5] < 0.05) and np.asarray(new.nll)[5:].tolist() == nll[5:].tolist()
    np.testing.assert_allclose(np.sort(d), np.arange(100) / 99, atol=1e-6)  # a permutation of all ranks


def test_weights_are_one_before_tc_and_mean_one_after():
    s = CurriculumSampler(60, 16, 100)
    st = s.init(*_pool(), jax.random.key(0))
    _, w_early, _ = s(st, 10, jax.random.key(1))
    _, w_late, _ = s(st, 90, jax.random.key(1))
    assert np.all(np.asarray(w_early) == 1.0)
    assert float(np.mean(np.asarray(w_late))) == pytest.approx(1.0, abs=1e-6) and np.std(np.asarray(w_late)) > 0


def test_bad_sampler_arguments_raise_clear_errors():
    with pytest.raises((ConfigError, KeyError), match="sampler"):
        make_sampler("greedy", 10, 2, 5)
    with pytest.raises((ConfigError, ValueError), match="norm"):
        difficulty(jnp.zeros(3), jnp.zeros(3), jnp.zeros(3, jnp.int32), "local", jax.random.key(0))
    with pytest.raises((ConfigError, ValueError), match="order"):
        CurriculumSampler(10, 2, 5, order="middle")
