"""Worst-case instance families (spec "Kelly" and "α-proportional family"; n counts the agents added to agent 1).

* :func:`kelly_tight_family` — one agent of slope 1 and n of slope 1/2: Kelly's efficiency is
  ``(3n+2)/(4n+2)`` → 3/4 (Johari & Tsitsiklis 2004; closed form ours).
* :func:`alpha_tight_family` — one agent of slope 1 and n of slope ``a* = 1/(1+√α)``: the α-mechanism's
  efficiency decreases to ``(1+2√α)/(1+√α)²`` as n → ∞ (our derivation).
* :func:`two_linear` — two linear agents (equal slopes: the revenue conjecture is tight).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation.bounds import tight_slope
from jaxpapers.resource_allocation.valuations import Valuation


def _check_n(n: int, n_max: int | None) -> int:
    if int(n) != n:
        raise ConfigError(f"n={n!r} is not an integer; allowed integers >= 1")
    check_range("n", int(n), 1)
    if n_max is not None and n + 1 > n_max:
        raise ConfigError(f"n_max={n_max} cannot hold n={n} added agents plus agent 1; allowed n_max >= {n + 1}")
    return int(n)


def kelly_tight_family(n: int, n_max: int | None = None) -> Valuation:
    """Agent 1 with slope 1 and ``n`` agents with slope 1/2 (padded to ``n_max`` agents)."""
    n = _check_n(n, n_max)
    vals = Valuation.linear(np.r_[1.0, np.full(n, 0.5)])
    return vals if n_max is None else vals.pad(n_max)


def alpha_tight_family(alpha: float, n: int, n_max: int | None = None) -> Valuation:
    """Agent 1 with slope 1 and ``n`` agents with slope ``1/(1+√α)`` (padded to ``n_max`` agents)."""
    n = _check_n(n, n_max)
    vals = Valuation.linear(np.r_[1.0, np.full(n, float(tight_slope(alpha)))])
    return vals if n_max is None else vals.pad(n_max)


def two_linear(v1: float, v2: float) -> Valuation:
    """Two linear agents with slopes ``v1`` and ``v2`` (both > 0)."""
    check_range("v1", v1, 0.0, lo_open=True)
    check_range("v2", v2, 0.0, lo_open=True)
    return Valuation.linear(jnp.asarray([v1, v2]))


def stack(parts: list[Valuation]) -> Valuation:
    """Stacks single instances with the same number of agents into a batch ``[B, N]``."""
    return Valuation(*(jnp.stack([getattr(p, f) for p in parts]) for f in ("w", "r", "s", "kind")))


def family_batch(alphas, ns, n_max: int | None = None) -> tuple[Valuation, np.ndarray, np.ndarray]:
    """All ``alpha_tight_family(α, n)`` for α in ``alphas`` and n in ``ns``, padded to one shape.

    Returns ``(vals [A·K, N], alpha [A·K], n [A·K])`` in row-major (α, n) order; α = 1 gives Kelly's family.
    """
    alphas = np.asarray(alphas, dtype=np.float64).ravel()
    ns = np.asarray(ns).ravel()
    n_max = int(ns.max()) + 1 if n_max is None else n_max
    parts = [alpha_tight_family(float(a), int(n), n_max) for a in alphas for n in ns]
    return stack(parts), np.repeat(alphas, len(ns)), np.tile(ns, len(alphas))
