"""All 3-way marginals of a binary table and their Gaussian release (spec setting B, "Mechanism").

Letters: n rows, d columns, T tables (column triples), u/v/w the cell of each column (0/1).
A row contributes ``Y[a,u]·Y[b,v]·Y[c,w]`` to cell (u, v, w) of table (a, b, c), with ``Y = [1 − x, x]``; for a
0/1 row that is one cell per table, for a relaxed row in [0, 1] the product of its per-column probabilities.

Sensitivity: add/remove one row changes one cell of every table by 1, so the L2 sensitivity is √T and
``μ_add = √T/σ``; replacing one row's secret changes only the T_s tables that contain a secret column, each by
−1/+1 in two cells, so ``μ_replace = √(2T_s)/σ`` (not √T: using it would understate ε_replace).
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.checks import check_range


def triples(d: int) -> Int[np.ndarray, "T 3"]:
    """All column triples a < b < c of d columns."""
    check_range("d", d, 3)
    return np.array(list(itertools.combinations(range(d), 3)), np.int32)


def secret_triples(d_pub: int, d_sec: int) -> Int[np.ndarray, "Ts 3"]:
    """The triples that contain at least one secret column (columns d_pub.. are secret)."""
    t = triples(d_pub + d_sec)
    return t[(t >= d_pub).any(axis=1)]


def marginals(x: Float[ArrayLike, "n d"], tri: Int[ArrayLike, "T 3"]) -> Float[Array, "T 2 2 2"]:
    """The 3-way marginal count tables of (relaxed) binary rows ``x`` for the column triples ``tri``."""
    x = jnp.asarray(x)
    tri = jnp.asarray(tri)
    y = jnp.stack([1.0 - x, x], axis=-1)  # [n, d, 2]
    ya, yb, yc = (y[:, tri[:, i]] for i in range(3))  # [n, T, 2]
    return jnp.einsum("ntu,ntv,ntw->tuvw", ya, yb, yc)


def release(
    x: Float[ArrayLike, "n d"], tri: Int[ArrayLike, "T 3"], sigma: float, key: jax.Array
) -> Float[Array, "T 2 2 2"]:
    """The Gaussian mechanism: every cell of every table plus N(0, σ²)."""
    m = marginals(x, tri)
    return m + sigma * jax.random.normal(key, m.shape, m.dtype)


def sensitivities(d_pub: int, d_sec: int) -> tuple[float, float]:
    """(add/remove, replace-secret) L2 sensitivities ``√T`` and ``√(2 T_s)``."""
    T = len(triples(d_pub + d_sec))
    Ts = len(secret_triples(d_pub, d_sec))
    return float(np.sqrt(T)), float(np.sqrt(2 * Ts))
