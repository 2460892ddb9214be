"""core.nn.graph: every layer against a dense float64 NumPy reference, permutation equivariance, padding."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn import graph as gnn

F, D = 5, 8


def _random_graph(rng: np.random.Generator, n: int, p: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    adj = np.triu(rng.random((n, n)) < p, 1)
    edges = np.argwhere(adj | adj.T)  # both directions
    return rng.normal(size=(n, F)).astype(np.float32), edges


def _dense_adj(edges: np.ndarray, n: int) -> np.ndarray:
    a = np.zeros((n, n))  # a[v, u] = number of edges u -> v
    for u, v in edges:
        a[v, u] += 1
    return a


def _p(params, *path):
    x = params["params"]
    for k in path:
        x = x[k]
    return np.asarray(x, np.float64)


def _reference(name: str, params, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    n = len(x)
    a = _dense_adj(edges, n)
    deg = a.sum(1)
    if name == "gcn":
        d = 1 / np.sqrt(deg + 1)
        a_hat = d[:, None] * (a + np.eye(n)) * d[None, :]
        return a_hat @ x @ _p(params, "linear", "kernel") + _p(params, "bias")
    if name == "sage":
        mean = (a @ x) / np.maximum(deg, 1)[:, None]
        ws, bs, wn = _p(params, "self", "kernel"), _p(params, "self", "bias"), _p(params, "neigh", "kernel")
        return x @ ws + bs + mean @ wn
    if name == "gin":
        z = (1 + _p(params, "eps")) * x + a @ x
        z = np.maximum(z @ _p(params, "mlp_0", "kernel") + _p(params, "mlp_0", "bias"), 0)
        return z @ _p(params, "mlp_1", "kernel") + _p(params, "mlp_1", "bias")
    if name == "gat":
        heads = _p(params, "att_src").shape[0]
        wh = (x @ _p(params, "linear", "kernel")).reshape(n, heads, -1)
        src = np.einsum("nhd,hd->nh", wh, _p(params, "att_src"))
        dst = np.einsum("nhd,hd->nh", wh, _p(params, "att_dst"))
        out = np.zeros((n, heads, wh.shape[-1]))
        adj = (a + np.eye(n)) > 0
        for v in range(n):
            us = np.flatnonzero(adj[v])
            e = src[us] + dst[v]
            e = np.where(e > 0, e, 0.2 * e)
            w = np.exp(e - e.max(0))
            w /= w.sum(0)
            out[v] = np.einsum("uh,uhd->hd", w, wh[us])
        return out.reshape(n, -1) + _p(params, "bias")
    raise AssertionError(name)


def _layer(name: str):
    cls = gnn.get_gnn_layer(name)
    return cls(features=D, heads=2) if name == "gat" else cls(features=D)


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(0)
    return [_random_graph(rng, n) for n in (1, 6, 9, 12)]  # one isolated node, small and larger graphs


@pytest.mark.parametrize("name", sorted(gnn.GNN_LAYERS))
def test_layer_matches_dense_reference_permutes_and_ignores_padding(name, graphs):
    layer = _layer(name)
    batch = gnn.pad_graphs(graphs, n_pad=40, e_pad=200, g_pad=6)
    params = layer.init(jax.random.key(1), batch.nodes, batch)
    apply = jax.jit(layer.apply)
    out = np.asarray(apply(params, batch.nodes, batch))
    off = 0
    for x, e in graphs:  # dense reference, graph by graph (packing must not mix graphs)
        np.testing.assert_allclose(out[off : off + len(x)], _reference(name, params, x, e), atol=1e-5, rtol=1e-5)
        off += len(x)
    np.testing.assert_array_equal(out[off:], 0.0)  # padded node slots stay zero

    # more padding, and padded edges/nodes holding garbage, change no real output
    bigger = gnn.pad_graphs(graphs, n_pad=64, e_pad=256, g_pad=8)
    garbage = bigger.replace(nodes=jnp.where(bigger.node_mask[:, None], bigger.nodes, 1e3))
    np.testing.assert_allclose(np.asarray(layer.apply(params, garbage.nodes, garbage))[:off], out[:off], atol=1e-5)

    # outputs permute with the nodes
    x, e = graphs[-1]
    perm = np.random.default_rng(2).permutation(len(x))
    inv = np.argsort(perm)
    g1 = gnn.pad_graphs([(x, e)], n_pad=16, e_pad=64)
    g2 = gnn.pad_graphs([(x[perm], inv[e])], n_pad=16, e_pad=64)
    o1 = np.asarray(apply(params, g1.nodes, g1))[: len(x)]
    o2 = np.asarray(apply(params, g2.nodes, g2))[: len(x)]
    np.testing.assert_allclose(o2, o1[perm], atol=1e-5)


def test_segment_softmax_sums_to_one_per_receiver_and_ignores_masked_edges():
    rng = np.random.default_rng(3)
    x, e = _random_graph(rng, 10, 0.5)
    batch = gnn.pad_graphs([(x, e)], n_pad=12, e_pad=len(e) + 7)
    logits = jnp.asarray(rng.normal(size=(batch.senders.shape[0], 3)) * 50, jnp.float32)  # large: needs the max
    w = np.asarray(gnn.segment_softmax(logits, batch))
    assert np.isfinite(w).all()
    np.testing.assert_array_equal(w[len(e) :], 0.0)
    sums = np.zeros((12, 3))
    np.add.at(sums, np.asarray(batch.receivers)[: len(e)], w[: len(e)])
    has_in = np.bincount(e[:, 1], minlength=12) > 0
    np.testing.assert_allclose(sums[has_in], 1.0, atol=1e-5)


def test_degree_and_graph_mean_pool_against_numpy(graphs):
    batch = gnn.pad_graphs(graphs, n_pad=40, e_pad=200, g_pad=6)
    deg = np.asarray(gnn.degree(batch))
    pooled = np.asarray(gnn.graph_mean_pool(batch.nodes, batch))
    off = 0
    for g, (x, e) in enumerate(graphs):
        np.testing.assert_array_equal(deg[off : off + len(x)], np.bincount(e[:, 1], minlength=len(x)) if e.size else 0)
        np.testing.assert_allclose(pooled[g], x.mean(0), atol=1e-6)
        off += len(x)
    np.testing.assert_array_equal(pooled[len(graphs) :], 0.0)


def test_pad_graphs_refuses_what_does_not_fit():
    x = np.zeros((5, F), np.float32)
    e = np.array([[0, 1], [1, 0]])
    with pytest.raises(ConfigError, match="n_pad=4"):
        gnn.pad_graphs([(x, e)], n_pad=4, e_pad=8)
    with pytest.raises(ConfigError, match="e_pad=1"):
        gnn.pad_graphs([(x, e)], n_pad=8, e_pad=1)
    with pytest.raises(ConfigError, match="g_pad=1"):
        gnn.pad_graphs([(x, e), (x, e)], n_pad=16, e_pad=8, g_pad=1)
    with pytest.raises(ConfigError, match="node 7"):
        gnn.pad_graphs([(x, np.array([[0, 7]]))], n_pad=8, e_pad=8)
    with pytest.raises(ConfigError, match="choose one of gat, gcn, gin, sage"):
        gnn.get_gnn_layer("gcnn")
