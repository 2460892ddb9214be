"""Generators (degree, regularity, simplicity, labels), spectral gap vs dense eigh, Cheeger, the edge-list loader."""

import itertools

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving import graphs as G
from jaxpapers.selfplay_proving.data import load_theorem_graph


def _simple(g):
    A = G.dense_adjacency(g)
    return np.all(np.diag(A) == 0) and np.all((A == 0) | (A == 1)) and np.allclose(A, A.T)


def _deg_ok(g):
    return np.array_equal(G.dense_adjacency(g).sum(1), np.asarray(g.deg))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n,d", [(64, 3), (40, 4), (30, 8), (12, 8)])
def test_random_regular_is_simple_and_regular(n, d, seed):
    if (n * d) % 2:
        pytest.skip("n·d odd")
    g = G.random_regular(n, d, seed)
    assert _simple(g) and _deg_ok(g)
    assert np.all(np.asarray(g.deg) == d)


def test_random_regular_rejects_odd_stub_count():
    with pytest.raises(ConfigError, match="must be even"):
        G.random_regular(9, 3, 0)


def test_named_families():
    for g, n, degs in [
        (G.hypercube(4), 16, {4}),
        (G.cycle(7), 7, {2}),
        (G.torus(5), 25, {4}),
        (G.ring_of_cliques(4, 3), 12, {2, 3}),
        (G.barbell(4), 8, {3, 4}),
    ]:
        assert g.n == n and _simple(g) and _deg_ok(g) and G.is_connected(g)
        assert set(np.asarray(g.deg).tolist()) == degs


@pytest.mark.parametrize("r", [0.0, 0.1, 1.0])
def test_watts_strogatz_simple_connected(r):
    g = G.watts_strogatz(60, 4, r, seed=3)
    assert _simple(g) and _deg_ok(g) and G.is_connected(g)
    if r == 0.0:
        assert g.n == 60 and np.all(np.asarray(g.deg) == 4)
    assert int(np.sum(g.deg)) // 2 <= 120


@pytest.mark.parametrize("seed", range(4))
def test_sbm_connected_blocks(seed):
    g = G.sbm(4, 16, 0.3, 0.01, seed)
    assert _simple(g) and _deg_ok(g) and G.is_connected(g) and g.n == 64


def test_decorated_backbone_labels():
    B, V = 10, 3
    g = G.decorated_backbone(B, V, seed=1)
    A = G.dense_adjacency(g)
    assert _simple(g) and g.n == B * (V + 1)
    assert np.all(A[:B, :B].sum(1) == 4)  # the 4-regular backbone
    for b in range(B):
        clique = B + b * V + np.arange(V)
        assert np.all(A[b, clique] == 1)
        assert np.all(A[np.ix_(clique, clique)] + np.eye(V) == 1)
        assert A[clique].sum() == V * V  # variants see only their clique and their backbone node


def test_padding_and_stacking():
    a, b = G.cycle(5), G.torus(3)
    st = G.stack([a, b])
    assert st.nbr.shape == (2, 9, 4) and st.deg[0, 5:].sum() == 0
    assert np.array_equal(G.edges_of(G.pad(a, 9, 4)), G.edges_of(a))


@pytest.mark.parametrize("seed", range(4))
def test_spectral_gap_matches_dense_eigh(seed):
    rng = np.random.default_rng(seed)
    g = G.watts_strogatz(80, 4, 0.2, seed)
    A = G.dense_adjacency(g)
    d = A.sum(1)
    lam = np.sort(np.linalg.eigvalsh(A / np.sqrt(np.outer(d, d))))[::-1]
    for method in ("lanczos", "shift_invert", "dense"):
        assert G.spectral_gap(g, method) == pytest.approx(1 - lam[1], abs=1e-7)
    assert rng is not None


def test_cycle_gap_closed_form():
    n = 100
    assert G.spectral_gap(G.cycle(n), "shift_invert") == pytest.approx(1 - np.cos(2 * np.pi / n), rel=1e-6)


@pytest.mark.parametrize("g", [G.cycle(8), G.barbell(4), G.random_regular(10, 3, 0), G.ring_of_cliques(3, 3)])
def test_cheeger_lower_bounds_brute_force_expansion(g):
    deg = np.asarray(g.deg)
    vol = deg.sum()
    h = np.inf
    for r in range(1, g.n):
        for S in itertools.combinations(range(g.n), r):
            mask = np.zeros(g.n, bool)
            mask[list(S)] = True
            if deg[mask].sum() <= vol / 2:
                h = min(h, G.edge_expansion(g, mask))
    assert G.cheeger_lower(g) <= h + 1e-12


def test_edge_expansion_rejects_bad_mask():
    with pytest.raises(ConfigError, match="S has shape"):
        G.edge_expansion(G.cycle(5), np.ones(4, bool))


def test_load_theorem_graph(tmp_path):
    p = tmp_path / "edges.txt"
    p.write_text("# deps\nNat.add Nat.succ\nNat.succ Nat.zero  # comment\nNat.zero Nat.add\nNat.add Nat.add\n"
                 "Nat.zero Nat.succ\niso1 iso2\n\n")
    g, names = load_theorem_graph(p)
    assert g.n == 3 and sorted(names) == ["Nat.add", "Nat.succ", "Nat.zero"]
    assert np.all(np.asarray(g.deg) == 2) and _simple(g)
    bad = tmp_path / "bad.txt"
    bad.write_text("a b c\n")
    with pytest.raises(ConfigError, match="3 fields"):
        load_theorem_graph(bad)
    with pytest.raises(ConfigError, match="not a file"):
        load_theorem_graph(tmp_path / "missing.txt")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(ConfigError, match="no edges"):
        load_theorem_graph(empty)
