"""Baselines through the threshold-and-cap path in one ID space, both ID protocols, structure stats and wins."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.topoged import baselines as bl
from jaxpapers.topoged.config import PaChurnConfig
from jaxpapers.topoged.data.events import snapshot_from_edges, to_snapshots
from jaxpapers.topoged.data.synthetic import pa_churn
from jaxpapers.topoged.edge_types import classify
from jaxpapers.topoged.metrics import forecast_scores, structure, structure_errors, wins


def _series():
    return to_snapshots(pa_churn(PaChurnConfig(n_snapshots=8, n_init=30, arrivals=10.0), 0), "1D")


def test_copy_last_through_the_baseline_path_gives_f1_of_consecutive_node_sets():
    snaps = _series()
    is_new, _ = classify(snaps)
    thr = np.array([1.0, 2.0, np.inf])
    for t in range(2, len(snaps)):
        pred = bl.copy_last(snaps, t)
        sc = forecast_scores(pred, snaps[t], is_new[t], thr, "strict")
        a, b = set(snaps[t - 1].node_ids.tolist()), set(snaps[t].node_ids.tolist())
        assert np.isclose(sc["node_f1"], 2 * len(a & b) / (len(a) + len(b)))
        ea = set(map(tuple, snaps[t - 1].edges_global().tolist()))
        eb = set(map(tuple, snaps[t].edges_global().tolist()))
        assert np.isclose(sc["edge_f1"], 2 * len(ea & eb) / (len(ea) + len(eb)))


def test_threshold_and_cap_keeps_top_pairs():
    ids = np.array([3, 5, 9, 11])
    s = np.zeros((4, 4))
    s[0, 1] = s[1, 0] = 0.9
    s[2, 3] = s[3, 2] = 0.8
    s[0, 2] = s[2, 0] = 0.7
    g = bl.threshold_and_cap(s, ids, 0.75, cap=1)
    assert g.edges_global().tolist() == [[3, 5]]
    assert bl.threshold_and_cap(s, ids, 0.5, cap=10).n_edges == 3


def test_reference_protocol_credits_every_counted_new_node_and_strict_none():
    truth = snapshot_from_edges(np.array([0, 0, 1, 7]), np.array([1, 7, 8, 9]))  # 7, 8, 9 new
    truth_new = np.isin(truth.node_ids, [7, 8, 9])
    thr = np.array([1.0, np.inf])
    for n_new in range(0, 6):
        pred = snapshot_from_edges(np.array([0] * n_new), -1 - np.arange(n_new), nodes=np.array([0, 1]))
        ref = forecast_scores(pred, truth, truth_new, thr, "reference", {i: 0 for i in range(n_new)})
        strict = forecast_scores(pred, truth, truth_new, thr, "strict")
        assert ref["new_tp"] == min(n_new, 3)
        assert strict["new_tp"] == 0
        assert ref["node_f1"] >= strict["node_f1"]


def test_auc_matches_pairwise_count():
    rng = np.random.default_rng(0)
    pos, neg = rng.integers(0, 5, 30).astype(float), rng.integers(0, 5, 40).astype(float)
    brute = np.mean([1.0 if p > q else 0.5 if p == q else 0.0 for p, q in itertools.product(pos, neg)])
    assert np.isclose(bl.auc(pos, neg), brute)


def test_sampled_tau_is_a_maximiser():
    pos, neg = [np.array([0.9, 0.8, 0.3])], [np.array([0.1, 0.2, 0.85])]
    grid = (0.05, 0.25, 0.5, 0.86)
    tau = bl.sampled_f1_tau(pos, neg, grid)

    def f1(t):
        tp, fp = (pos[0] >= t).sum(), (neg[0] >= t).sum()
        return 2 * tp / (2 * tp + fp + 3 - tp)

    assert f1(tau) == max(f1(t) for t in grid)


def test_gcngru_scan_equals_a_plain_loop():
    n, t, e = 12, 4, 10
    rng = np.random.default_rng(0)
    s = jnp.asarray(rng.integers(0, n, (t, e)), jnp.int32)
    r = jnp.asarray(rng.integers(0, n, (t, e)), jnp.int32)
    m = jnp.asarray(rng.random((t, e)) < 0.7)
    model = bl.GCNGRU(n, 4)
    params = jax.jit(model.init)(jax.random.key(0), s, r, m)["params"]
    hs = jax.jit(model.apply)({"params": params}, s, r, m)
    step = jax.jit(bl._GCNGRUStep(n, 4).apply)
    h = jnp.zeros((n, 4))
    for i in range(t):  # the plain Python loop over snapshots
        h, _ = step({"params": params["step"]}, h, (s[i], r[i], m[i]))
        np.testing.assert_allclose(np.asarray(hs[i]), np.asarray(h), rtol=1e-5, atol=1e-6)


def test_structure_stats_and_nan_assortativity_on_regular_graphs():
    tri = snapshot_from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]))
    st = structure(tri)
    assert st["triangles"] == 1 and np.isclose(st["clustering"], 1.0) and np.isnan(st["assortativity"])
    err = structure_errors(tri, tri)
    assert np.isnan(err[0]) and np.allclose(err[1:], 0)


def test_wins_split_ties_and_skip_nan():
    a = np.array([[np.nan, 1, 1, 1, 1, 0, 0, 0, 0.0]])
    b = np.array([[np.nan, 2, 1, 0, 1, 0, 0, 0, 0.0]])
    w, skipped = wins({"a": a, "b": b})
    assert skipped == 2 and w["a"] == 1 + 0.5 + 0.5 + 4 * 0.5 and w["b"] == 1 + 0.5 + 0.5 + 4 * 0.5


def test_evolvegcn_scan_equals_a_float64_numpy_loop():
    n, t, e, d = 10, 4, 12, 3
    rng = np.random.default_rng(1)
    s = rng.integers(0, n, (t, e)).astype(np.int32)
    r = rng.integers(0, n, (t, e)).astype(np.int32)
    m = rng.random((t, e)) < 0.7
    model = bl.EvolveGCNO(n, d)
    params = jax.jit(model.init)(jax.random.key(1), s, r, m)["params"]
    params = jax.tree.map(lambda a: a + 0.1 * jax.random.normal(jax.random.key(2), a.shape), params)  # nonzero biases
    hs = np.asarray(jax.jit(model.apply)({"params": params}, s, r, m))
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), params)
    g, emb = p["step"]["evolve"], p["step"]["embedding"]
    sig = lambda a: 1 / (1 + np.exp(-a))  # noqa: E731
    w = p["w0"]
    for i in range(t):  # the equations of EvolveGCN-O, one snapshot at a time, dense adjacency
        z = sig(g["wz"] @ w + g["uz"] @ w + g["bz"])
        rr = sig(g["wr"] @ w + g["ur"] @ w + g["br"])
        w = (1 - z) * w + z * np.tanh(g["wh"] @ w + g["uh"] @ (rr * w) + g["bh"])
        a = np.eye(n)
        for u, v in zip(s[i][m[i]], r[i][m[i]], strict=True):
            a[v, u] += 1.0  # message u -> v (directed list; self-loops count like any edge)
        dinv = 1 / np.sqrt(a.sum(1))
        h = np.maximum((dinv[:, None] * a * dinv[None, :]) @ emb @ w, 0)
        np.testing.assert_allclose(hs[i], h, rtol=2e-4, atol=1e-5)
