"""Theorem graphs: seeded generators returning padded neighbour lists, spectral gap and Cheeger bound.

A :class:`Graph` is ``nbr int32[n, d_max]`` (row v lists v's neighbours in its first ``deg[v]`` slots; the
rest repeat v and are never read) and ``deg int32[n]``. Rows past the real graph (``deg = 0``) pad graphs to
a shared shape, so one compiled program runs a family of graphs. Everything here is NumPy/SciPy (seeded
``numpy.random.default_rng``); the walks in :mod:`.selfplay` read only ``nbr`` and ``deg``.

Spectral quantities (spec "Graphs"): the walk P = D⁻¹A, its symmetric form N₁ = D^{-1/2} A D^{-1/2};
the gap γ = 1 − λ₂(N₁) and the Cheeger bound h(G) ≥ γ/2 with h(G) = min_{vol S ≤ vol V/2} e(S, V∖S)/vol(S).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from jaxtyping import ArrayLike, Bool, Float, Int
from threadpoolctl import threadpool_limits

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError


class Graph(NamedTuple):
    """Padded neighbour lists ``nbr [n, d_max]`` and degrees ``deg [n]`` (int32)."""

    nbr: Int[ArrayLike, "n d"]
    deg: Int[ArrayLike, " n"]

    @property
    def n(self) -> int:
        """Rows of the neighbour table (real nodes plus padding)."""
        return int(np.shape(self.deg)[0])

    @property
    def num_nodes(self) -> int:
        """Real nodes (degree > 0)."""
        return int(np.count_nonzero(np.asarray(self.deg)))


def from_edges(n: int, edges: Int[ArrayLike, "e 2"], d_max: int | None = None) -> Graph:
    """The simple undirected graph on ``n`` nodes with these edges (loops dropped, duplicates merged)."""
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    if e.size and (e.min() < 0 or e.max() >= n):
        raise ConfigError(f"edges name nodes outside 0..{n - 1} (min {e.min()}, max {e.max()})")
    e = e[e[:, 0] != e[:, 1]]
    both = np.concatenate([e, e[:, ::-1]])
    both = np.unique(both[:, 0] * n + both[:, 1])
    src, dst = both // n, both % n
    deg = np.bincount(src, minlength=n).astype(np.int32)
    width = int(deg.max(initial=1)) if d_max is None else int(d_max)
    if width < deg.max(initial=0):
        raise ConfigError(f"d_max={d_max} is below the largest degree {int(deg.max())}")
    start = np.concatenate([[0], np.cumsum(deg)[:-1]])
    slot = np.arange(src.size) - start[src]
    nbr = np.repeat(np.arange(n, dtype=np.int32)[:, None], max(width, 1), axis=1)
    nbr[src, slot] = dst
    return Graph(nbr, deg)


def edges_of(g: Graph) -> np.ndarray:
    """The undirected edges ``[|E|, 2]`` with u < v."""
    nbr, deg = np.asarray(g.nbr), np.asarray(g.deg)
    valid = np.arange(nbr.shape[1])[None, :] < deg[:, None]
    u = np.repeat(np.arange(nbr.shape[0]), deg)
    v = nbr[valid]
    keep = u < v
    return np.stack([u[keep], v[keep]], 1)


def pad(g: Graph, n: int, d_max: int) -> Graph:
    """``g`` padded to ``n`` rows and ``d_max`` columns (padding rows have degree 0)."""
    nbr, deg = np.asarray(g.nbr), np.asarray(g.deg)
    if n < nbr.shape[0] or d_max < nbr.shape[1]:
        raise ConfigError(f"cannot pad a graph of shape {nbr.shape} to ({n}, {d_max})")
    out = np.repeat(np.arange(n, dtype=np.int32)[:, None], d_max, axis=1)
    out[: nbr.shape[0], : nbr.shape[1]] = nbr
    return Graph(out, np.concatenate([deg, np.zeros(n - deg.size, np.int32)]).astype(np.int32))


def stack(graphs: list[Graph]) -> Graph:
    """Graphs padded to one shape and stacked on a leading axis (for vmapping over graphs)."""
    n = max(g.n for g in graphs)
    d = max(np.shape(g.nbr)[1] for g in graphs)
    padded = [pad(g, n, d) for g in graphs]
    return Graph(np.stack([p.nbr for p in padded]), np.stack([p.deg for p in padded]))


def sparse_adjacency(g: Graph) -> sp.csr_matrix:
    """The adjacency matrix as SciPy CSR (float64)."""
    nbr, deg = np.asarray(g.nbr), np.asarray(g.deg)
    valid = np.arange(nbr.shape[1])[None, :] < deg[:, None]
    rows = np.repeat(np.arange(nbr.shape[0]), deg)
    return sp.csr_matrix((np.ones(rows.size), (rows, nbr[valid])), shape=(nbr.shape[0],) * 2)


def dense_adjacency(g: Graph) -> Float[np.ndarray, "n n"]:
    """The dense adjacency matrix (float64); for n ≤ 4096."""
    if g.n > 4096:
        raise ConfigError(f"dense_adjacency: n={g.n} > 4096 (use sparse_adjacency)")
    return sparse_adjacency(g).toarray()


def is_connected(g: Graph) -> bool:
    """Whether the real nodes (degree > 0) form one connected component."""
    from scipy.sparse.csgraph import connected_components

    deg = np.asarray(g.deg)
    real = np.flatnonzero(deg > 0)
    if real.size == 0:
        return False
    _, labels = connected_components(sparse_adjacency(g), directed=False)
    return bool(np.unique(labels[real]).size == 1)


def largest_component(g: Graph) -> tuple[Graph, np.ndarray]:
    """The largest connected component relabelled to 0..n'−1 and the original index of each kept node."""
    from scipy.sparse.csgraph import connected_components

    _, labels = connected_components(sparse_adjacency(g), directed=False)
    keep = np.flatnonzero(labels == np.bincount(labels).argmax())
    new = np.full(g.n, -1)
    new[keep] = np.arange(keep.size)
    e = edges_of(g)
    e = e[(new[e[:, 0]] >= 0) & (new[e[:, 1]] >= 0)]
    return from_edges(keep.size, new[e]), keep


# ------------------------------------------------------------------------------------------------
# Generators
# ------------------------------------------------------------------------------------------------


def _bad_pairs(e: np.ndarray, n: int) -> np.ndarray:
    """Indices of loops and of every repeat of an edge after its first occurrence."""
    key = np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1])
    _, first = np.unique(key, return_index=True)
    dup = np.ones(len(e), bool)
    dup[first] = False
    return np.flatnonzero(dup | (e[:, 0] == e[:, 1]))


def random_regular(n: int, d: int, seed: int, *, max_passes: int = 1000) -> Graph:
    """A random simple d-regular graph: the configuration model (pair the d·n stubs at random), then every
    loop or multi-edge repaired by a random double-edge swap with another edge until the graph is simple.

    Swaps keep every degree, so the result is d-regular. Whole-pairing rejection is never used: a pairing is
    simple with probability ≈ exp(−(d²−1)/4), 1.4·10⁻⁷ for d = 8.
    """
    check_range("n", n, 2)
    check_range("d", d, 1, n - 1)
    if (n * d) % 2:
        raise ConfigError(f"n·d = {n}·{d} must be even for a d-regular graph")
    rng = np.random.default_rng(seed)
    stubs = np.repeat(np.arange(n), d)
    rng.shuffle(stubs)
    e = stubs.reshape(-1, 2).copy()
    for _ in range(max_passes):
        bad = _bad_pairs(e, n)
        if bad.size == 0:
            return from_edges(n, e, d_max=d)
        for i in bad:
            j = int(rng.integers(len(e) - 1))
            j += j >= i  # another edge: swapping an edge with itself would move a stub and break the degrees
            (a, b), (c, x) = e[i], e[j]
            if rng.random() < 0.5:
                e[i], e[j] = (a, c), (b, x)
            else:
                e[i], e[j] = (a, x), (c, b)
    raise RuntimeError(f"random_regular(n={n}, d={d}, seed={seed}): not simple after {max_passes} swap passes")


def hypercube(k: int) -> Graph:
    """The hypercube Q_k: 2^k nodes, v ~ v xor 2^i."""
    check_range("k", k, 1, 24)
    v = np.arange(1 << k, dtype=np.int32)
    nbr = (v[:, None] ^ (1 << np.arange(k, dtype=np.int32))[None, :]).astype(np.int32)
    return Graph(nbr, np.full(1 << k, k, np.int32))


def cycle(n: int) -> Graph:
    """The cycle C_n."""
    check_range("n", n, 3)
    v = np.arange(n)
    return from_edges(n, np.stack([v, (v + 1) % n], 1))


def torus(s: int) -> Graph:
    """The s × s torus (node i·s + j ~ its four grid neighbours, wrapping around)."""
    check_range("s", s, 3)
    i, j = np.divmod(np.arange(s * s), s)
    right = i * s + (j + 1) % s
    down = ((i + 1) % s) * s + j
    v = np.arange(s * s)
    return from_edges(s * s, np.concatenate([np.stack([v, right], 1), np.stack([v, down], 1)]))


def _clique_edges(nodes: np.ndarray) -> np.ndarray:
    a, b = np.triu_indices(len(nodes), 1)
    return np.stack([nodes[a], nodes[b]], 1)


def ring_of_cliques(c: int, q: int) -> Graph:
    """``c`` cliques of ``q`` nodes in a ring: the last node of clique i is joined to the first of clique i+1."""
    check_range("c", c, 3)
    check_range("q", q, 2)
    e = [_clique_edges(np.arange(i * q, (i + 1) * q)) for i in range(c)]
    e.append(np.stack([np.arange(c) * q + q - 1, ((np.arange(c) + 1) % c) * q], 1))
    return from_edges(c * q, np.concatenate(e))


def barbell(q: int) -> Graph:
    """Two q-cliques joined by one edge (between node q−1 and node q)."""
    check_range("q", q, 2)
    e = [_clique_edges(np.arange(q)), _clique_edges(np.arange(q, 2 * q)), np.array([[q - 1, q]])]
    return from_edges(2 * q, np.concatenate(e))


def watts_strogatz(n: int, k: int, r: float, seed: int, *, max_passes: int = 100) -> Graph:
    """Watts–Strogatz: the ring lattice (each node joined to its k/2 nearest on each side) with each edge
    (u, u + j) rewired with probability ``r`` to (u, w), w uniform; rewirings that would make a loop or a
    multi-edge are redrawn. The largest connected component is kept (relabelled)."""
    check_range("n", n, 4)
    check_range("k", k, 2, n - 2)
    check_range("r", r, 0.0, 1.0)
    if k % 2:
        raise ConfigError(f"k={k} must be even")
    rng = np.random.default_rng(seed)
    u = np.repeat(np.arange(n), k // 2)
    v = (u + np.tile(np.arange(1, k // 2 + 1), n)) % n
    rewired = rng.random(u.size) < r
    v = v.copy()
    v[rewired] = rng.integers(0, n, int(rewired.sum()))
    order = np.argsort(rewired, kind="stable")  # kept lattice edges first: a clash always redraws a rewired one
    u, v, rewired = u[order], v[order], rewired[order]
    for _ in range(max_passes):
        bad = _bad_pairs(np.stack([u, v], 1), n)
        if bad.size == 0:
            break
        v[bad] = rng.integers(0, n, bad.size)
    else:
        raise RuntimeError(f"watts_strogatz(n={n}, k={k}, r={r}, seed={seed}): rewiring did not settle")
    g, _ = largest_component(from_edges(n, np.stack([u, v], 1)))
    return g


def sbm(blocks: int, size: int, p_in: float, p_out: float, seed: int) -> Graph:
    """Stochastic block model: ``blocks`` blocks of ``size`` nodes (node v in block v // size), edges
    independent with probability ``p_in`` inside a block and ``p_out`` across. An isolated node is joined to
    the next node of its block. Raises if the graph is not connected (the spec's 200/200 were)."""
    check_range("blocks", blocks, 1)
    check_range("size", size, 2)
    check_range("p_in", p_in, 0.0, 1.0)
    check_range("p_out", p_out, 0.0, 1.0)
    n = blocks * size
    rng = np.random.default_rng(seed)
    lab = np.arange(n) // size
    a, b = np.triu_indices(n, 1)
    prob = np.where(lab[a] == lab[b], p_in, p_out)
    hit = rng.random(a.size) < prob
    e = np.stack([a[hit], b[hit]], 1)
    deg = np.bincount(e.ravel(), minlength=n)
    iso = np.flatnonzero(deg == 0)
    extra = np.stack([iso, lab[iso] * size + (iso % size + 1) % size], 1)
    g = from_edges(n, np.concatenate([e, extra]))
    if not is_connected(g):
        raise RuntimeError(
            f"sbm(blocks={blocks}, size={size}, p_in={p_in}, p_out={p_out}, seed={seed}) is not connected; "
            "choose another graph seed"
        )
    return g


def decorated_backbone(backbone: int, variants: int, seed: int, degree: int = 4) -> Graph:
    """A random ``degree``-regular backbone of B fundamental theorems (nodes 0..B−1), each carrying a clique
    of V variants (nodes B + bV … B + bV + V − 1), all adjacent to their backbone node and to each other."""
    check_range("variants", variants, 1)
    bb = random_regular(backbone, degree, seed)
    e = [edges_of(bb)]
    for b in range(backbone):
        clique = backbone + b * variants + np.arange(variants)
        e.append(_clique_edges(np.concatenate([[b], clique])))
    return from_edges(backbone * (variants + 1), np.concatenate(e))


# ------------------------------------------------------------------------------------------------
# Spectral gap, Cheeger
# ------------------------------------------------------------------------------------------------


def _normalized(g: Graph) -> sp.csr_matrix:
    a = sparse_adjacency(g)
    deg = np.asarray(g.deg, np.float64)
    real = deg > 0
    inv = np.zeros_like(deg)
    inv[real] = deg[real] ** -0.5
    sub = np.flatnonzero(real)
    return (sp.diags(inv) @ a @ sp.diags(inv)).tocsr()[sub][:, sub]


GAP_METHODS: tuple[str, ...] = ("auto", "lanczos", "shift_invert", "dense")


def spectral_gap(g: Graph, method: str = "auto") -> float:
    """γ = 1 − λ₂ of N₁ = D^{-1/2} A D^{-1/2} (the walk's second-largest eigenvalue), BLAS on one thread.

    ``lanczos``: ``scipy.sparse.linalg.eigsh(k=2, which="LA")``, milliseconds on expanders but slow when
    λ₂, λ₃, … crowd near 1 (ring lattices: γ ≈ 5·10⁻⁵); ``shift_invert``: the two eigenvalues nearest
    σ = 1 + 10⁻³ (above the spectrum, so they are λ₁ = 1 and λ₂) through a sparse LU, fast on lattices and
    small graphs, slow on large expanders (fill-in); ``dense``: ``eigvalsh``. ``auto``: dense below 64
    nodes, shift-invert up to 2048, Lanczos above.
    """
    from jaxpapers.core.checks import check_choice

    check_choice("method", method, GAP_METHODS)
    n1 = _normalized(g)
    size = n1.shape[0]
    if method == "auto":
        method = "dense" if size < 64 else "shift_invert" if size <= 2048 else "lanczos"
    with threadpool_limits(1):
        if method == "dense":
            lam = np.linalg.eigvalsh(n1.toarray())[::-1]
        else:
            from scipy.sparse.linalg import eigsh

            v0 = np.random.default_rng(0).standard_normal(size)
            if method == "lanczos":
                lam = eigsh(n1, k=2, which="LA", v0=v0, return_eigenvectors=False, tol=1e-10)
            else:
                lam = eigsh(n1.tocsc(), k=2, sigma=1.0 + 1e-3, which="LM", v0=v0, return_eigenvectors=False)
            lam = np.sort(lam)[::-1]
    return float(1.0 - lam[1])


def cheeger_lower(g: Graph) -> float:
    """The Cheeger lower bound on the edge expansion: h(G) ≥ γ/2."""
    return spectral_gap(g) / 2.0


def edge_expansion(g: Graph, S: Bool[ArrayLike, " n"]) -> float:
    """e(S, V∖S)/vol(S) for the node set ``S`` (a boolean mask): the chance that one walk step from a
    ∝ π-random node of S leaves S (uniform on S when the graph is regular)."""
    S = np.asarray(S, bool)
    if S.shape != (g.n,):
        raise ConfigError(f"S has shape {S.shape}; need a boolean mask of shape ({g.n},)")
    nbr, deg = np.asarray(g.nbr), np.asarray(g.deg)
    vol = int(deg[S].sum())
    if vol == 0:
        raise ConfigError("S has volume 0 (no edges); edge expansion is undefined")
    valid = np.arange(nbr.shape[1])[None, :] < deg[:, None]
    crossing = valid & S[:, None] & ~S[nbr]
    return float(crossing.sum() / vol)
