"""Φ against a brute-force degree count, the jitted form against the host form, and Prop. 4.1 pieces."""

import itertools

import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.data.events import snapshot_from_edges
from jaxpapers.topoged.descriptor import degree_thresholds, filtration_descriptor, phi
from jaxpapers.topoged.experiments.descriptor import pad_graphs, random_graphs, witness


def brute_phi(nodes, edges, thresholds):
    """Φ by definition: count nodes with deg ≤ ε_i and edges with both ends among them (float64 NumPy, loops)."""
    deg = {v: 0 for v in nodes}
    for u, v in edges:
        deg[u] += 1
        deg[v] += 1
    out = []
    for eps in thresholds:
        level = {v for v in nodes if deg[v] <= eps}
        out += [len(level), sum(1 for u, v in edges if u in level and v in level)]
    return np.array(out, np.int64)


def test_phi_matches_brute_force_on_random_graphs():
    rng = np.random.default_rng(0)
    for g in random_graphs(rng, 30, 40):
        thr = np.sort(rng.integers(0, 8, size=5).astype(float))
        thr[-1] = np.inf
        edges = [tuple(e) for e in g.edges_global().tolist()]
        np.testing.assert_array_equal(phi(g, thr), brute_phi(g.node_ids.tolist(), edges, thr))


def test_jitted_descriptor_equals_host_form_including_ties():
    rng = np.random.default_rng(1)
    graphs = random_graphs(rng, 12, 30)
    pad = pad_graphs(graphs, 32, 160)
    thr = np.array([1.0, 1.0, 2.0, 3.0, np.inf])  # a tie: duplicate columns, dimension kept
    for i, g in enumerate(graphs):
        p = filtration_descriptor(pad["senders"][i], pad["receivers"][i], pad["edge_mask"][i], pad["node_mask"][i],
                                  jnp.asarray(thr, jnp.float32))
        np.testing.assert_array_equal(np.asarray(p), phi(g, thr))
        assert p.shape == (10,)


def test_paper_worked_example_shape_and_terminal_counts():
    # an 8-node graph: terminal counts are exact with ε_n = +∞ whatever the degrees
    g = snapshot_from_edges(np.array([0, 0, 1, 2, 3, 4, 5, 6]), np.array([1, 2, 2, 3, 4, 5, 6, 7]))
    p = phi(g, np.array([1.0, 2.0, 3.0, np.inf]))
    assert (p[-2], p[-1]) == (8, 8)


def test_terminal_threshold_is_infinite_so_test_degrees_are_never_dropped():
    train = [snapshot_from_edges(np.array([0, 1]), np.array([1, 2]))]  # degrees ≤ 2
    thr = degree_thresholds(train, 4)
    assert np.isinf(thr[-1])
    star = snapshot_from_edges(np.zeros(9, np.int64), np.arange(1, 10))  # a degree-9 hub
    p = phi(star, thr)
    assert (p[-2], p[-1]) == (10, 9)
    finite = thr.copy()
    finite[-1] = 2.0  # what a finite ε_n would do
    assert phi(star, finite)[-2] != 10


def test_thresholds_reject_empty_training():
    with pytest.raises(ConfigError, match="train_snaps"):
        degree_thresholds([snapshot_from_edges(np.zeros(0), np.zeros(0))], 10)


def test_per_level_bound_on_all_single_edits_of_a_small_graph():
    rng = np.random.default_rng(3)
    g = random_graphs(rng, 1, 9)[0]
    n = 9
    thr = np.arange(0, 9, dtype=float)
    base = g.edges_global().tolist()
    p0 = phi(snapshot_from_edges(*np.array(base).T, nodes=np.arange(n)), thr)
    for u, v in itertools.combinations(range(n), 2):
        e = [x for x in base if x != [u, v]] if [u, v] in base else base + [[u, v]]
        p1 = phi(snapshot_from_edges(*np.array(e).reshape(-1, 2).T, nodes=np.arange(n)), thr)
        assert np.abs(p1[0::2] - p0[0::2]).sum() <= 2
        assert np.all(np.abs(p1[1::2] - p0[1::2]) <= 1 + 2 * thr)


def test_witness_reaches_two_eps():
    g, g2 = witness(5)
    thr = np.arange(64, dtype=float)
    dy = np.abs(phi(g, thr)[1::2] - phi(g2, thr)[1::2])
    assert dy[5] == 10 and dy.max() == 10


def test_undirected_dedup_and_self_loops():
    s = snapshot_from_edges(np.array([0, 1, 2, 2]), np.array([1, 0, 2, 3]))
    assert s.n_edges == 2 and s.n_nodes == 4  # self-loop 2-2 dropped (2 stays through 2-3); 0-1 and 1-0 merged
