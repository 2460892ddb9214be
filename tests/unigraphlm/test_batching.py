"""Subgraph features and padding: RWSE against dense matrix powers, padding counts and never truncates."""

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unigraphlm.config import DataConfig
from jaxpapers.unigraphlm.data.batching import ego_nodes, induced_edges, node_features, pack_sample, rwse


def _random_edges(rng, n, p=0.3):
    a = np.triu(rng.random((n, n)) < p, 1)
    u, v = np.nonzero(a)
    return np.concatenate([np.stack([u, v], 1), np.stack([v, u], 1)])


@pytest.mark.parametrize("seed", range(5))
def test_rwse_equals_the_diagonal_of_dense_matrix_powers(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    e = _random_edges(rng, n)
    a = np.zeros((n, n))
    for u, v in e:
        a[u, v] = 1.0
    deg = a.sum(1)
    p = np.where(deg[:, None] > 0, a / np.maximum(deg, 1)[:, None], 0.0)
    ref = np.stack([np.diag(np.linalg.matrix_power(p, k)) for k in range(1, 9)], 1)
    np.testing.assert_allclose(rwse(n, e, 8), ref, atol=1e-12)


def test_rwse_of_a_cycle_sees_its_length():
    """On a 6-cycle the first return is at k = 2 (prob 1/2) and the walk can return at k = 6 around the ring."""
    n = 6
    e = np.array([(i, (i + 1) % n) for i in range(n)] + [((i + 1) % n, i) for i in range(n)])
    r = rwse(n, e, 8)
    assert r[0, 0] == 0 and r[0, 1] == pytest.approx(0.5)
    assert np.allclose(r[:, 2], 0.0) and np.allclose(r, r[0])  # odd steps never return on an even ring
    assert r[0, 5] == pytest.approx(20 / 64 + 2 / 64)  # C(6,3)/2^6 back-and-forth walks + 2 laps


def test_node_features_layout():
    x = np.ones((3, 2), np.float32)
    e = np.array([[0, 1], [1, 0], [1, 2], [2, 1]])
    f = node_features(x, e, 4)
    assert f.shape == (3, 2 + 4 + 1)
    np.testing.assert_allclose(f[:, -1], np.log1p([1, 2, 1]))


def test_pack_sample_pads_marks_ring_and_refuses_to_truncate():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    e = np.array([[0, 1], [1, 0], [1, 2], [2, 1], [2, 3], [3, 2]])
    noi = np.array([True, False, False, False])
    s = pack_sample(x, e, np.array([1, 0, 0, 0]), noi, 6, 8)
    assert s["nodes"].shape == (6, 3) and s["node_mask"].tolist() == [True] * 4 + [False] * 2
    assert s["edge_mask"].sum() == 6 and s["ring"].tolist() == [False, True, False, False, False, False]
    np.testing.assert_array_equal(s["nodes"][:4], x)
    assert np.all(s["nodes"][4:] == 0)
    with pytest.raises(ConfigError, match="n_max=3"):
        pack_sample(x, e, np.zeros(4), noi, 3, 8)
    with pytest.raises(ConfigError, match="e_max=5"):
        pack_sample(x, e, np.zeros(4), noi, 6, 5)


def test_quick_padding_holds_the_worst_case_samples():
    cfg = DataConfig()
    assert 1 + 5 + 5 * 3 <= cfg.n_max and 2 * (1 + 4 + 4 * 2) <= cfg.n_max
    with pytest.raises(ConfigError, match="n_max=20"):
        DataConfig(n_max=20)


def test_ego_nodes_respects_fanout_and_induced_edges_drop_the_queried_link():
    rng = np.random.default_rng(0)
    adj = [np.array([1, 2, 3, 4, 5, 6]), *[np.array([0, 7]) for _ in range(6)], np.arange(1, 7)]
    nodes = ego_nodes(adj, [0], (3, 1), rng)
    assert nodes[0] == 0 and len(nodes) <= 1 + 3 + 3 and len(set(nodes)) == len(nodes)
    e = induced_edges(adj, [0, 1, 7], drop=(0, 1))
    pairs = {tuple(r) for r in e}
    assert (0, 1) not in pairs and (1, 0) not in pairs and (1, 2) in pairs  # local ids: 1 -> 7 is (1, 2)
