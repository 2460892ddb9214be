"""U7: the core GNN layers against the float64 dense reference, permutation and padding (tiny size)."""

import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.nn.graph import GNN_LAYERS, pad_graphs
from jaxpapers.unigraphlm.config import GNN_LAYER_NAMES, LayerCheckConfig
from jaxpapers.unigraphlm.experiments import layers


def test_layer_names_match_the_core():
    assert sorted(GNN_LAYER_NAMES) == sorted(GNN_LAYERS)


def test_u7_tiny_measure_meets_its_bound():
    cfg = config.load("unigraphlm/layers", "preset=tiny")
    m = layers.measure(cfg, None)
    for k in ("dense", "perm", "pad"):
        assert m.measured[k] <= 1e-5, (k, m.measured)
    assert m.n == 8 and set(m.details) == {f"{n}_{k}" for n in GNN_LAYER_NAMES for k in ("dense", "perm", "pad")}


@pytest.mark.parametrize("name", GNN_LAYER_NAMES)
def test_dense_reference_catches_a_wrong_layer(name):
    """The check can fail: the reference evaluated with other parameters differs by far more than 1e-5."""
    c = LayerCheckConfig(graphs=1, max_nodes=6, max_edges=12)
    x, e = layers.random_graphs(c, 3)[0]
    p1 = layers.random_params(name, c, 0)
    p2 = layers.random_params(name, c, 1)
    g = pad_graphs([(x, e)], 10, 20)
    y = np.asarray(layers._make_layer(name, c.out_features).apply(p1, g.nodes, g))[: len(x)]
    assert np.abs(y - layers.dense_reference(name, p1, x, e)).max() <= 1e-5
    assert np.abs(y - layers.dense_reference(name, p2, x, e)).max() > 1e-2


def test_sage_on_a_hand_computed_path_graph():
    """Path 0 -> 1 -> 2 with identity weights: h'_v = h_v + mean of in-neighbours (closed form)."""
    x = np.array([[1.0], [2.0], [4.0]])
    one = np.ones((1, 1))
    params = {"params": {"self": {"kernel": one, "bias": np.zeros(1)}, "neigh": {"kernel": one}}}
    out = layers.dense_reference("sage", params, x, np.array([[0, 1], [1, 2]]))
    np.testing.assert_allclose(out[:, 0], [1.0, 3.0, 6.0])


def test_random_graphs_have_distinct_edges_without_self_loops():
    for x, e in layers.random_graphs(LayerCheckConfig(graphs=20), 0):
        assert len({tuple(r) for r in e}) == len(e)
        assert not np.any(e[:, 0] == e[:, 1]) if len(e) else True
        assert len(x) >= 3
