"""Priors over secrets and their baselines κ (spec "Attack description").

The baseline κ of a success predicate is the best success probability from the prior alone:

* exact match: ``max_z π(z)``; top-k list: the sum of the k largest masses;
* edit distance ≤ r: the largest prior mass of a radius-r ball centred on a support point;
* attribute vector of independent bits with P[bit_j = 1] = p_j, success = at least t bits right:
  ``P[PoissonBinomial(max(p_j, 1 − p_j)) ≥ t]`` (guessing each bit's mode is optimal).
"""

from __future__ import annotations

import numpy as np
from jaxtyping import ArrayLike, Float

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

PREDICATES = ("exact", "topk", "edit", "bits")


def zipf_prior(k: int, s: float = 1.0, rng: np.random.Generator | None = None) -> np.ndarray:
    """Zipf(s) probabilities over k items, assigned to a random permutation of them when ``rng`` is given."""
    check_range("k", k, 1)
    check_range("s", s, 0.0)
    w = 1.0 / np.arange(1, k + 1, dtype=np.float64) ** s
    p = w / w.sum()
    if rng is not None:
        p = p[rng.permutation(k)]
    return p


def uniform_prior(k: int) -> np.ndarray:
    """Uniform probabilities over k items."""
    check_range("k", k, 1)
    return np.full(k, 1.0 / k)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (dynamic programming)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def bits_kappa(p: Float[ArrayLike, "*rows d"], t: int) -> Float[np.ndarray, "*rows"]:
    """κ of "at least t of d independent bits right": ``P[PB(max(p_j, 1 − p_j)) ≥ t]`` per row.

    NumPy float64 on the host (d is small; the Poisson-binomial recursion is vectorised over rows)."""
    p = np.asarray(p, np.float64)
    d = p.shape[-1]
    check_range("t", t, 0, d)
    check_range("p", p, 0.0, 1.0)
    best = np.maximum(p, 1.0 - p).reshape(-1, d)
    pmf = np.zeros((best.shape[0], d + 1))
    pmf[:, 0] = 1.0
    for j in range(d):
        pj = best[:, j : j + 1]
        pmf = pmf * (1.0 - pj) + np.concatenate([np.zeros((len(pmf), 1)), pmf[:, :-1]], axis=1) * pj
    return np.clip(pmf[:, t:].sum(axis=1), 0.0, 1.0).reshape(p.shape[:-1])


def baseline_kappa(
    prior: Float[ArrayLike, " K"],
    predicate: str = "exact",
    *,
    k: int = 10,
    radius: int = 1,
    support: list[str] | None = None,
    t: int | None = None,
) -> float:
    """κ of one target's prior under ``predicate`` ∈ {exact, topk, edit, bits}.

    ``prior`` is a pmf over ``support`` (exact/topk/edit), or the per-bit probabilities p_j (bits, with ``t``)."""
    check_choice("predicate", predicate, PREDICATES)
    p = np.asarray(prior, np.float64)
    if predicate == "bits":
        if t is None:
            raise ConfigError("t=None is not allowed with predicate='bits'; pass the number of bits that must be right")
        check_range("prior", p, 0.0, 1.0)
        return float(bits_kappa(p, t))
    if p.ndim != 1 or p.size == 0:
        raise ConfigError(f"prior has shape {p.shape}; expected a non-empty pmf (K,)")
    check_range("prior", p, 0.0, 1.0)
    if abs(p.sum() - 1.0) > 1e-6:
        raise ConfigError(f"prior sums to {p.sum():.6g}; expected a pmf summing to 1")
    if predicate == "exact":
        return float(p.max())
    if predicate == "topk":
        check_range("k", k, 1)
        return float(np.sort(p)[::-1][:k].sum())
    if support is None or len(support) != p.size:
        raise ConfigError("support must list the K secrets of the prior for predicate='edit'")
    check_range("radius", radius, 0)
    d = np.array([[edit_distance(a, b) for b in support] for a in support])
    return float(((d <= radius) * p[None, :]).sum(1).max())
