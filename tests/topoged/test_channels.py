"""The optional descriptor channels: β0 curve against scipy's connected components of each induced sublevel
subgraph, the NetLSD heat trace against a dense matrix exponential and the closed forms of K_n and the empty graph."""

import numpy as np
import pytest
import scipy.linalg
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.data.events import snapshot_from_edges
from jaxpapers.topoged.descriptor import (
    beta0_curve,
    extended_descriptor,
    netlsd_heat_trace,
    node_levels,
    normalized_laplacian,
    phi,
)
from jaxpapers.topoged.experiments.descriptor import random_graphs


def brute_beta0(g, thr):
    lev = node_levels(g.degrees(), thr)
    out = []
    for i in range(len(thr)):
        keep = np.nonzero(lev <= i)[0]
        if len(keep) == 0:
            out.append(0)
            continue
        sub = np.full(g.n_nodes, -1)
        sub[keep] = np.arange(len(keep))
        m = (lev[g.senders] <= i) & (lev[g.receivers] <= i)
        a = coo_matrix((np.ones(m.sum()), (sub[g.senders[m]], sub[g.receivers[m]])), shape=(len(keep),) * 2)
        out.append(connected_components(a, directed=False)[0])
    return np.array(out)


def test_beta0_matches_connected_components_per_level():
    rng = np.random.default_rng(3)
    for g in random_graphs(rng, 25, 40):
        thr = np.sort(rng.integers(0, 6, size=6).astype(float))
        thr[-1] = np.inf
        b = beta0_curve(g, thr)
        np.testing.assert_array_equal(b, brute_beta0(g, thr))
        x, y = phi(g, thr)[0::2], phi(g, thr)[1::2]
        assert np.all(b >= x - y) and np.all(b <= x)


def test_beta0_two_triangles_and_a_path():
    # two triangles (degree 2) joined by nothing, plus a path 6-7-8 (degrees 1, 2, 1)
    u = np.array([0, 1, 0, 3, 4, 3, 6, 7])
    v = np.array([1, 2, 2, 4, 5, 5, 7, 8])
    g = snapshot_from_edges(u, v)
    np.testing.assert_array_equal(beta0_curve(g, np.array([1.0, np.inf])), [2, 3])  # level 1: nodes 6 and 8


def test_heat_trace_matches_expm_and_closed_forms():
    rng = np.random.default_rng(4)
    s = np.array([0.01, 0.3, 2.0, 40.0])
    for g in random_graphs(rng, 5, 25):
        ref = [np.trace(scipy.linalg.expm(-t * normalized_laplacian(g))) for t in s]
        np.testing.assert_allclose(netlsd_heat_trace(g, s), ref, rtol=1e-9, atol=1e-9)
    n = 7
    iu, ju = np.triu_indices(n, 1)
    k = snapshot_from_edges(iu, ju)
    np.testing.assert_allclose(netlsd_heat_trace(k, s), 1 + (n - 1) * np.exp(-s * n / (n - 1)), rtol=1e-12)
    # a perfect matching of 3 edges: eigenvalues 0 and 2, three each
    m = snapshot_from_edges(np.array([0, 2, 4]), np.array([1, 3, 5]))
    np.testing.assert_allclose(netlsd_heat_trace(m, s), 3 + 3 * np.exp(-2 * s), rtol=1e-12)


def test_channels_errors_and_layout():
    g = snapshot_from_edges(np.array([0, 1]), np.array([1, 2]))
    thr = np.array([1.0, np.inf])
    d = extended_descriptor(g, thr, ("netlsd", "phi", "beta0"))
    assert d.shape == (4 + 2 + 16,)
    np.testing.assert_array_equal(d[:4], phi(g, thr))
    np.testing.assert_array_equal(extended_descriptor(g, thr), phi(g, thr))
    with pytest.raises(ConfigError, match="channels contains 'pagerank'"):
        extended_descriptor(g, thr, ("pagerank",))
    with pytest.raises(ConfigError, match="max_nodes=2"):
        netlsd_heat_trace(g, max_nodes=2)
