"""The jitted scan against the plain-Python reference at tiny size; metrics; critical rule; G2 never sees K."""

import numpy as np
import pytest

import jaxpapers.timely_generation as tg
from jaxpapers.core.errors import ConfigError
from jaxpapers.timely_generation.reference import reference_play

COLL = tg.hard_collection(4, 5)
SUB = tg.subset_matrix(COLL)


def _ref(coll, target, xs, gen, u, **kw):
    t = (int(coll.kinds[target]), coll.params[target]) if isinstance(target, int) else (target[0], target[1:])
    return reference_play(
        coll.kinds.tolist(), coll.params.tolist(), tg.subset_matrix(coll).tolist(), t, xs, gen, u, **kw
    )


def _same(a, b):
    np.testing.assert_array_equal(a["o"], b["o"])
    np.testing.assert_array_equal(a["halluc"], b["halluc"])
    np.testing.assert_array_equal(a["crit"], b["crit"])
    np.testing.assert_array_equal(a["out_time"], b["out_time"])
    np.testing.assert_array_equal(a["credit_time"], b["credit_time"])


@pytest.mark.parametrize("gen", ["critical", "echo", "oracle"])
def test_scan_matches_reference_on_phase(gen):
    s = tg.a_phase("lin2", P=3, J=4, E=5)
    _same(tg.play(COLL, 0, s.x, gen, u_track=512), _ref(COLL, 0, s.x, gen, 512))


@pytest.mark.parametrize("schedule", [True, False])
def test_hedge_matches_reference(schedule):
    s = tg.a_phase("n1.5", P=2, J=4, E=5)
    T = s.T
    ft = tg.deadline_table("n1.5", 256)
    kt = tg.superlinear_budget(T, COLL.size) if schedule else np.full(T + 1, 4)
    g = tg.g_of_t(ft, T)
    kw = dict(schedule=schedule, k_table=kt, g_table=g, eps=0.3)
    _same(tg.play(COLL, 0, s.x, "hedge", u_track=256, **kw), _ref(COLL, 0, s.x, "hedge", 256, **kw))
    K = tg.hard_index(4, 4, 4)
    xs = tg.a_sparse(4, 4, 300)
    kw["k_table"] = tg.superlinear_budget(300, COLL.size) if schedule else np.full(301, 4)
    kw["g_table"] = tg.g_of_t(ft, 300)
    _same(tg.play(COLL, K, xs, "hedge", u_track=256, **kw), _ref(COLL, K, xs, "hedge", 256, **kw))


def test_vmapped_batch_matches_single_runs_and_novel_only():
    s = tg.a_phase("lin2", P=2, J=4, E=5)
    kt = np.full(s.T + 1, 4)
    eps = np.array([0.1, 0.8])
    batch = tg.play(COLL, 0, s.x, "hedge", u_track=128, eps=eps, schedule=np.zeros(2, bool), k_table=kt)
    for i, e in enumerate(eps):
        one = tg.play(COLL, 0, s.x, "hedge", u_track=128, eps=float(e), k_table=kt)
        np.testing.assert_array_equal(batch["o"][i], one["o"])
    nov = tg.play(COLL, 0, s.x, "critical", u_track=128, novel_only=True)
    _same(nov, _ref(COLL, 0, s.x, "critical", 128, novel_only=True))
    echo = tg.play(COLL, 0, s.x, "echo", u_track=128, novel_only=True)
    assert np.all(echo["credit_time"] == 2**31 - 1)  # echo never outputs a novel string


def test_critical_rule_uses_index_order_not_size():
    """Spec Pitfall: C_t is the largest-index critical language, not the smallest consistent one."""
    coll = tg.ap_collection(2, 4)  # index order (b, a): AP(1,1), AP(2,1), AP(1,2), AP(2,2), ...
    cons = np.ones(coll.size, bool)
    sub = tg.subset_matrix(coll)
    for k in range(1, coll.size + 1):
        c = int(tg.critical_language(cons, sub, k))
        brute = max(i for i in range(k) if all(sub[i, j] for j in range(i)))
        assert c == brute
    # after revealing 4 and 8 the consistent ones are AP(1,1) ⊃ AP(2,1) ⊃ AP(2,2): C_t = AP(2, 2)
    members = tg.languages.membership_table(coll, 8)
    cons = members[:, 3] & members[:, 7]
    c = int(tg.critical_language(cons, sub, coll.size))
    assert coll.params[c].tolist()[:2] == [2, 2]


def test_hedge_never_sees_k():
    """Spec Pitfall: G2's outputs depend on the reveals only; changing the target changes nothing but credit."""
    xs = tg.a_sparse(4, 4, 200)
    kt = np.full(201, 4)
    a = tg.play(COLL, tg.hard_index(4, 4, 4), xs, "hedge", u_track=256, eps=0.3, k_table=kt)
    b = tg.play(COLL, 0, xs, "hedge", u_track=256, eps=0.3, k_table=kt)
    np.testing.assert_array_equal(a["o"], b["o"])
    assert a["halluc"].sum() > 0 and b["halluc"].sum() == 0


def test_metrics_rank_window_and_hallucination():
    ct = np.full(20, 2**31 - 1)
    k_el = np.array([1, 2, 4, 8, 16])  # a sparse K: ranks 1..5, values differ (spec Pitfall)
    ct[[1, 2, 4, 8, 16]] = [1, 2, 3, 9, 5]
    ft = tg.deadline_table("lin2", 10)
    d = np.asarray(tg.timely_density_curve(ct, k_el, ft, T=8))
    # rank 4 (value 8) output at 9 > f(4) = 8: not credited; f(5) = 10 > T: not evaluated
    np.testing.assert_allclose(d[:4], [1, 1, 1, 0.75])
    assert np.isnan(d[4])
    h = np.asarray(tg.hallucination_curve(np.array([True, False, False, True])))
    np.testing.assert_allclose(h, [1, 0.5, 1 / 3, 0.5])  # counts every output, including the early ones
    t = np.arange(1, 6401)
    assert tg.loglog_slope(t**-0.5) == pytest.approx(-0.5)


def test_phase_end_densities_read_the_1_based_scale():
    """d_f(V_p) is element V_p − 1 of the curve (entry j holds scale n = j + 1), batched over leading axes."""
    curve = np.array([[1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])
    ends = np.array([1, 2, 4, 8])  # V_p = 2^(p-1): scales 1, 2, 4, 8
    got = np.asarray(tg.phase_end_densities(curve, ends))
    want = np.array([[curve[b][n - 1] for n in ends] for b in range(2)])  # by hand: d_f(n) at n = V_p
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got[0], [1.0, 0.9, 0.7, 0.3], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tg.phase_end_densities(curve[0], np.array([3]))), [0.8], rtol=1e-6)


def test_play_bad_inputs():
    with pytest.raises(ConfigError, match="gen='greedy'"):
        tg.play(COLL, 0, [1, 2], "greedy", u_track=8)
    with pytest.raises(ConfigError, match="xs shape"):
        tg.play(COLL, 0, np.array([[1, 2]]), "echo", u_track=8)
    with pytest.raises(ConfigError, match="target"):
        tg.play(COLL, 99, [1, 2], "echo", u_track=8)
    with pytest.raises(ConfigError, match=r"target\[0\] \(language kind\)=5"):
        tg.play(COLL, (5, 1, 1, 0), [1, 2], "echo", u_track=8)
    with pytest.raises(ConfigError, match="k_table"):
        tg.play(COLL, 0, [1, 2], "hedge", u_track=8, k_table=[1])


def test_vectorised_reveal_side_matches_step_by_step_loop():
    """critical_languages (one count product over all steps) and first_reveal equal plain per-step loops."""
    from jaxpapers.timely_generation.game import first_reveal

    rng = np.random.default_rng(0)
    for coll in (COLL, tg.ap_collection(3, 4)):
        sub = tg.subset_matrix(coll)
        xs = rng.integers(1, 40, size=60)
        members = tg.languages.membership_table(coll, 40)
        cons, rows, ks, want = np.ones(coll.size, bool), [], [], []
        for t, x in enumerate(xs, start=1):
            cons = cons & members[:, x - 1]
            k = min(t, coll.size)
            crit = [i for i in range(k) if cons[i] and all(sub[i, j] or not cons[j] for j in range(i))]
            rows.append(cons.copy())
            ks.append(k)
            want.append(max(crit, default=-1))
        got = np.asarray(tg.generators.critical_languages(np.array(rows), sub, np.array(ks)))
        np.testing.assert_array_equal(got, want)
    rev = first_reveal(xs, 32)
    for s in range(1, 33):
        hits = [t for t, x in enumerate(xs, start=1) if x == s]
        assert rev[s] == (hits[0] if hits else 2**31 - 1)


def test_poly_collection_game_matches_reference_and_credits_by_rank():
    """𝒞_poly (spec Collections; Pitfall "Rank vs value"): on a sparse quadratic K the scan equals the plain loop
    for G1, G0 and G2; G0 outputs rank r (value 1 + (r−1) + (r−1)², far ahead of r) at t = r, and its timely
    density, indexed by rank, is 1 under f(n) = n."""
    coll = tg.poly_collection(2)
    K = coll.index((1, 1, 1))  # {1, 3, 7, 13, 21, ...}
    kind, p = int(coll.kinds[K]), coll.params[K]
    T = 40
    xs = tg.a_rand(kind, p, T, seed=1, block=8)
    kw = dict(eps=0.3, k_table=np.full(T + 1, 3))
    for gen, extra in (("critical", {}), ("oracle", {}), ("hedge", kw)):
        _same(tg.play(coll, K, xs, gen, u_track=2048, **extra), _ref(coll, K, xs, gen, 2048, **extra))
    log = tg.play(coll, K, tg.a_inc(kind, p, T), "oracle", u_track=2048)
    k_el = tg.elements(kind, p, T)
    assert k_el[-1] > 2 * T  # values run far ahead of ranks
    d = np.asarray(tg.timely_density_curve(log["credit_time"], k_el, tg.deadline_table("lin1", T), T))
    np.testing.assert_array_equal(d, np.ones(T))
    np.testing.assert_array_equal(log["out_time"][k_el], np.arange(1, T + 1))
