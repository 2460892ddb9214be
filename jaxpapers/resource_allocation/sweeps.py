"""Per-instance measurements used by the claims, and the α × instances sweep (one vmapped program).

``efficiency_one`` (SW(NE)/OPT) and friends act on one instance; :func:`over_alphas` lays a batch of
instances out against a grid of α so that a whole sweep is a single ``core.sim`` call.

Axis letters used in shapes: A α values, B instances, N agents.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from jaxpapers.resource_allocation.batching import batched, check_alpha, flatten, per_agent, per_instance
from jaxpapers.resource_allocation.config import SolverConfig
from jaxpapers.resource_allocation.equilibrium import DEFAULT_SOLVER, alpha_ne_one
from jaxpapers.resource_allocation.valuations import Valuation
from jaxpapers.resource_allocation.welfare import (
    liquid_welfare,
    opt_liquid_welfare_one,
    opt_welfare_one,
    social_welfare,
)


def efficiency_one(vals: Valuation, alpha, *, outer_iters: int = 80, inner_iters: int = 60) -> Float[Array, ""]:
    """``SW(NE)/OPT`` of one instance under the α-mechanism (in (0, 1])."""
    x, _, _ = alpha_ne_one(vals, alpha, outer_iters=outer_iters, inner_iters=inner_iters)
    return social_welfare(vals, x) / opt_welfare_one(vals)[1]


def liquid_efficiency_one(
    vals: Valuation, alpha, budgets, *, outer_iters: int = 80, inner_iters: int = 60
) -> tuple[Float[Array, ""], Float[Array, " N"], Float[Array, ""]]:
    """``(LW(NE_B)/LW-OPT, x, λ)`` of one instance: budget-constrained equilibrium against the liquid optimum."""
    x, lam, _ = alpha_ne_one(vals, alpha, budgets, outer_iters=outer_iters, inner_iters=inner_iters)
    return liquid_welfare(vals, x, budgets) / opt_liquid_welfare_one(vals, budgets)[1], x, lam


def efficiency(vals: Valuation, alpha, *, solver: SolverConfig = DEFAULT_SOLVER) -> Float[Array, "..."]:
    """``SW(NE)/OPT`` for one or many instances (α scalar or one per instance)."""
    check_alpha(alpha)
    lead, flat = flatten(vals)
    fn = batched(efficiency_one, solver.chunk_size, **solver.iters)
    return fn(flat, per_instance("alpha", alpha, lead, flat.w.dtype)).reshape(lead)


def liquid_efficiency(vals: Valuation, alpha, budgets, *, solver: SolverConfig = DEFAULT_SOLVER):
    """``(LW(NE_B)/LW-OPT, x, λ)`` for one or many instances with budgets."""
    check_alpha(alpha)
    lead, flat = flatten(vals)
    fn = batched(liquid_efficiency_one, solver.chunk_size, **solver.iters)
    out = fn(
        flat,
        per_instance("alpha", alpha, lead, flat.w.dtype),
        per_agent("budgets", budgets, vals.w.shape, flat.w.dtype),
    )
    return jax.tree.map(lambda a: a.reshape(lead + a.shape[1:]), out)


def over_alphas(vals: Valuation, alphas, *extra) -> tuple[Valuation, jax.Array, list]:
    """Lays ``vals [B, N]`` (and per-instance extras) out against ``alphas [A]``: ``[A, B, N]`` and ``[A, B]``.

    Feed the result to a batched function; one compiled program covers the whole sweep.
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    a, b = len(alphas), vals.w.shape[0]
    tiled = jax.tree.map(lambda x: jnp.broadcast_to(x, (a,) + x.shape), vals)
    grid = jnp.broadcast_to(jnp.asarray(alphas, vals.w.dtype)[:, None], (a, b))
    rest = [jnp.broadcast_to(e, (a,) + e.shape) for e in extra]
    return tiled, grid, rest
