"""The merge calculus coefficient C(G) and the baselines (spec "The merge calculus coefficient C(G)").

Pure NumPy/Python, one pass over the edges forward and one backward (O(|E|), no path enumeration).

Forward (topological order), per node: q (second moment), U (coherent one-step change per unit LR).
For an edge e = u→v: lin: q_e = a²c q_u, U_e = a²(r_e q_u + c U_u) with r_e = width_u / n; id:
q_e = a² q_u, U_e = a² U_u. Sum nodes add, concat nodes average with weights width_e / width_v.
Backward: B_F² = n / width_F, B_u² = Σ_out β_e B_v² (β = a²c for lin, a² for id).
C(G) = Σ_{lin e} a² B_v² (r_e q_u + c U_u)² + U_F² (steps 1-3); prediction η̂(G) = η*(G₀)(C(G)/C(G₀))^{-1/2}.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.merge_calculus.graph import GraphSpec, nominal_depth


@dataclasses.dataclass(frozen=True)
class CalculusState:
    """Per-node q, U, B² and widths (in units of n) from the two passes, and C(G)."""

    q: np.ndarray
    U: np.ndarray
    B2: np.ndarray
    width: np.ndarray
    coefficient: float


def _by_node(g: GraphSpec):
    ins = [[] for _ in range(g.n_nodes)]
    outs = [[] for _ in range(g.n_nodes)]
    for e in g.edges:
        ins[e.dst].append(e)
        outs[e.src].append(e)
    return ins, outs


def propagate(g: GraphSpec) -> CalculusState:
    """Runs the forward and backward passes of the calculus; returns every node's scalars and C(G)."""
    ins, outs = _by_node(g)
    n = g.n_nodes
    q, U, B2, w = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    q[0], U[0], w[0] = 1.0, 0.0, 1.0
    for v in range(1, n):
        ws = [1.0 if e.kind == "lin" else w[e.src] for e in ins[v]]
        w[v] = sum(ws) if g.merges[v] == "concat" else ws[0]
        for e, we in zip(ins[v], ws, strict=True):
            u = e.src
            if e.kind == "lin":
                qe, ue = e.a**2 * e.c * q[u], e.a**2 * (w[u] * q[u] + e.c * U[u])
            else:
                qe, ue = e.a**2 * q[u], e.a**2 * U[u]
            rho = we / w[v] if g.merges[v] == "concat" else 1.0
            q[v] += rho * qe
            U[v] += rho * ue
    F = g.out
    B2[F] = 1.0 / w[F]
    for u in range(n - 2, -1, -1):
        B2[u] = sum((e.a**2 * (e.c if e.kind == "lin" else 1.0)) * B2[e.dst] for e in outs[u])
    total = sum(e.a**2 * B2[e.dst] * (w[e.src] * q[e.src] + e.c * U[e.src]) ** 2 for e in g.edges if e.kind == "lin")
    return CalculusState(q, U, B2, w, float(total + U[F] ** 2))


def merge_coefficient(g: GraphSpec) -> float:
    """C(G), the graph-aware complexity coefficient (spec steps 1-3; our reconstruction)."""
    return propagate(g).coefficient


def chen_coefficient(g: GraphSpec, offset: int = 2) -> float:
    """Chen et al.'s Σ_paths L_p³ by dynamic programming over path-length moments (no enumeration).

    L_p = (lin edges on p, the stem excluded) + ``offset`` (2 = stem + readout; 3 reproduces the
    reference code's DAG-cell convention). S_m(v) = Σ_{paths 0→v} ℓ^m (m ≤ 3) with the binomial
    update S_m(v) += Σ_j C(m, j) S_j(u) along a lin edge (ℓ → ℓ + 1) and S_m(v) += S_m(u) along an id edge.
    """
    check_range("offset", offset, 0)
    ins, _ = _by_node(g)
    S = np.zeros((g.n_nodes, 4))
    S[0, 0] = 1.0
    binom = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 2, 1, 0], [1, 3, 3, 1]], dtype=float)
    for v in range(1, g.n_nodes):
        for e in ins[v]:
            shift = e.kind == "lin" and e.src != 0
            S[v] += binom @ S[e.src] if shift else S[e.src]
    # Σ (ℓ + offset)³ = Σ_j C(3, j) offset^{3-j} S_j
    s = S[g.out]
    return float(s[3] + 3 * offset * s[2] + 3 * offset**2 * s[1] + offset**3 * s[0])


def predict_lr(g: GraphSpec, g0: GraphSpec, eta0: float, rule: str = "merge") -> float:
    """Zero-shot η̂(G) = η*(G₀)·(X(G)/X(G₀))^{-1/2}, X = C (``"merge"``), Σ L_p³ (``"chen"``) or D_nom³ (``"depth"``)."""
    from jaxpapers.core.checks import check_choice

    check_choice("rule", rule, RULES)
    check_range("eta0", eta0, 0.0, lo_open=True)
    x = RULE_FNS[rule]
    return float(eta0 * (x(g) / x(g0)) ** -0.5)


def depth_cubed(g: GraphSpec) -> float:
    """D_nom³, the regressor of the depth-only law η* ∝ D^{-3/2}."""
    return float(nominal_depth(g)) ** 3


RULE_FNS = {"merge": merge_coefficient, "chen": chen_coefficient, "depth": depth_cubed}
RULES = tuple(RULE_FNS)
