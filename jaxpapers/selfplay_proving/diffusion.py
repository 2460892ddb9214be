"""Diffusion similarity and diversity (spec "Diffusion similarity and diversity"), exact and in float64.

The lazy walk P_L = (I + D⁻¹A)/2 (eigenvalues in [0, 1], so every power is PSD; the non-lazy walk
oscillates on bipartite graphs), π(v) = deg(v)/2|E|, and

    s_t(u, v) = P_L^t(u, v) / π(v)                       (symmetric by reversibility, Σ_v π(v) s_t(u, v) = 1)
    S_t = D_π^{-1/2} N_t D_π^{-1/2},  N_t = D_π^{1/2} P_L^t D_π^{-1/2}   (symmetric PSD, eigenvalues λ_i(P_L)^t)
    Div_t(q) = 1 / (qᵀ S_t q);  for t = 2s:  qᵀ S_t q = Σ_w (q P_L^s)(w)² / π(w) = 1 + χ²(q P_L^s ‖ π).

Dense S_t is computed by t sparse lazy steps applied to the identity (O(t·|E|·n), no n³ product); the
χ² form by s sparse steps applied to q only (an independent path: the tests check the two agree).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from jaxtyping import ArrayLike, Float
from threadpoolctl import threadpool_limits

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving.graphs import Graph, sparse_adjacency

GraphLike = Graph | ArrayLike | sp.spmatrix | sp.sparray  # a Graph, a dense or a SciPy sparse adjacency


def _as_sparse(A: GraphLike) -> sp.csr_matrix:
    if isinstance(A, Graph):
        a = sparse_adjacency(A)
    elif sp.issparse(A):
        a = sp.csr_matrix(A, dtype=np.float64)
    else:
        arr = np.asarray(A, np.float64)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise ConfigError(f"A has shape {arr.shape}; need a square adjacency matrix")
        if not np.allclose(arr, arr.T):
            raise ConfigError("A is not symmetric; diffusion needs an undirected graph")
        a = sp.csr_matrix(arr)
    deg = np.asarray(a.sum(1)).ravel()
    if np.any(deg <= 0):
        raise ConfigError(f"node {int(np.argmin(deg))} has degree 0; diffusion needs every node to have an edge")
    return a


def stationary(A: GraphLike) -> Float[np.ndarray, " n"]:
    """π(v) = deg(v) / 2|E|."""
    deg = np.asarray(_as_sparse(A).sum(1)).ravel()
    return deg / deg.sum()


def lazy_walk(A: GraphLike) -> Float[np.ndarray, "n n"]:
    """The dense lazy walk matrix P_L = (I + D⁻¹A)/2 (rows sum to 1)."""
    a = _as_sparse(A)
    deg = np.asarray(a.sum(1)).ravel()
    return 0.5 * (np.eye(a.shape[0]) + a.toarray() / deg[:, None])


def _lazy_steps(a: sp.csr_matrix, x: np.ndarray, steps: int, *, left: bool) -> np.ndarray:
    """P_L^steps x (``left=False``) or x P_L^steps (``left=True``; x a row vector or rows)."""
    deg = np.asarray(a.sum(1)).ravel()
    for _ in range(steps):
        if left:  # (x P)(w) = Σ_u x(u) A(u, w)/deg(u)
            x = 0.5 * (x + (x / deg) @ a if x.ndim == 1 else x + (a.T @ (x / deg).T).T)
        else:  # (P x)(u) = Σ_w A(u, w) x(w) / deg(u)
            x = 0.5 * (x + (a @ x) / (deg if x.ndim == 1 else deg[:, None]))
    return x


def diffusion_similarity(A: GraphLike, t: int) -> Float[np.ndarray, "n n"]:
    """S_t(u, v) = P_L^t(u, v)/π(v), dense float64 (n ≤ 4096: 128 MB), by t sparse lazy steps on I."""
    check_range("t", t, 0, 64)
    a = _as_sparse(A)
    n = a.shape[0]
    if n > 4096:
        raise ConfigError(f"diffusion_similarity: n={n} > 4096 is too large for a dense S_t; use embeddings")
    with threadpool_limits(1):
        pt = _lazy_steps(a, np.eye(n), t, left=False)
    return pt / stationary(a)[None, :]


def walk_kernel(A: GraphLike, t: int) -> Float[np.ndarray, "n n"]:
    """N_t = D_π^{1/2} S_t D_π^{1/2} (symmetric PSD; its eigenvalues are μ_i = λ_i(P_L)^t)."""
    pi = stationary(A)
    r = np.sqrt(pi)
    n_t = r[:, None] * diffusion_similarity(A, t) * r[None, :]
    return 0.5 * (n_t + n_t.T)


def kernel_spectrum(A: GraphLike, t: int) -> Float[np.ndarray, " n"]:
    """μ_i = λ_i(P_L)^t in decreasing order, from the dense eigenvalues of the symmetric (I + N₁)/2."""
    a = _as_sparse(A)
    deg = np.asarray(a.sum(1)).ravel()
    r = deg**-0.5
    n1 = r[:, None] * a.toarray() * r[None, :]
    with threadpool_limits(1):
        lam = np.linalg.eigvalsh(0.5 * (np.eye(a.shape[0]) + n1))[::-1]
    return np.clip(lam, 0.0, None) ** t


def _distribution(q: ArrayLike, n: int) -> np.ndarray:
    q = np.asarray(q, np.float64)
    if q.shape != (n,):
        raise ConfigError(f"q has shape {q.shape}; need a distribution over the {n} nodes")
    if np.any(q < 0) or not np.isclose(q.sum(), 1.0):
        raise ConfigError(f"q must be a probability vector (non-negative, sum 1); sum is {q.sum():.6g}")
    return q


def similarity_form(q: Float[ArrayLike, " n"], S_t: Float[ArrayLike, "n n"]) -> float:
    """qᵀ S_t q (the expected diffusion similarity of two independent draws from q)."""
    S = np.asarray(S_t, np.float64)
    q = _distribution(q, S.shape[0])
    return float(q @ S @ q)


def diversity(q: Float[ArrayLike, " n"], S_t: Float[ArrayLike, "n n"]) -> float:
    """Div_t(q) = 1/(qᵀ S_t q): 1 at π, 1/s_t(u, u) at a point mass, in (0, 1] for t even."""
    return 1.0 / similarity_form(q, S_t)


def chi2_form(q: Float[ArrayLike, " n"], A: GraphLike, t: int) -> float:
    """qᵀ S_t q computed as 1 + χ²(q P_L^{t/2} ‖ π) = Σ_w (q P_L^{t/2})(w)²/π(w) (t even), by t/2 sparse steps
    applied to q alone (no S_t)."""
    check_range("t", t, 0, 64)
    if t % 2:
        raise ConfigError(f"t={t} must be even for the χ² identity")
    a = _as_sparse(A)
    q = _distribution(q, a.shape[0])
    qs = _lazy_steps(a, q, t // 2, left=True)
    pi = stationary(a)
    return float(np.sum(qs**2 / pi))


def pooled_similarity(conj: ArrayLike, S_t: Float[ArrayLike, "n n"]) -> np.ndarray:
    """q̂ᵀ S_t q̂ of the empirical distribution of each row of conjectures (``conj [..., m]``, −1 = no conjecture),
    from the counts of the distinct nodes of each row (no n-vector per row)."""
    S = np.asarray(S_t, np.float64)
    c = np.asarray(conj)
    rows = c.reshape(-1, c.shape[-1])
    out = np.full(rows.shape[0], np.nan)
    for i, row in enumerate(rows):
        nodes, counts = np.unique(row[row >= 0], return_counts=True)
        if nodes.size:
            w = counts / counts.sum()
            out[i] = w @ S[np.ix_(nodes, nodes)] @ w
    return out.reshape(c.shape[:-1])
