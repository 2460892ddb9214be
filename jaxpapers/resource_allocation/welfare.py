"""Social welfare, its optimum, VCG revenue and liquid welfare (spec "Welfare optimum, VCG, linear ties").

``OPT = max_{x ∈ Δ} Σ v_i(x_i)`` is found by water-filling: every agent with a positive share has the
same marginal value μ, ``x_i(μ) = (v_i')^{-1}(μ)`` clipped to [0, 1], and ``Σ x_i(μ) = 1`` fixes μ
(bisection). Liquid welfare ``LW(x) = Σ min(v_i(x_i), B_i)`` is maximised the same way with each
demand capped at ``x̄_i = v_i^{-1}(B_i)`` (beyond it an agent adds nothing).

Linear ties: a linear agent's demand is flat (0 below its slope, anything at it), so at the optimal μ
tied linear agents get the leftover ``1 - Σ x`` in order of decreasing slope, up to their caps. Without
this rule OPT is silently wrong on exactly the worst-case (all-linear) instances.

Axis letters used in shapes: B instances, N agents.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.resource_allocation.batching import batched, check_budgets, flatten, per_agent, unflatten
from jaxpapers.resource_allocation.valuations import Valuation

TIE_TOL = 1e-8  # spec: linear demands are evaluated at μ + 1e-8 (relative to max(1, μ) here)


def social_welfare(vals: Valuation, x: Float[ArrayLike, "... N"]) -> Float[Array, "..."]:
    """``SW(x) = Σ_i v_i(x_i)``."""
    return jnp.sum(vals.value(x), axis=-1)


def liquid_welfare(
    vals: Valuation, x: Float[ArrayLike, "... N"], budgets: Float[ArrayLike, "... N"]
) -> Float[Array, "..."]:
    """``LW(x) = Σ_i min(v_i(x_i), B_i)`` (Dobzinski & Paes Leme 2014)."""
    return jnp.sum(jnp.minimum(vals.value(x), budgets), axis=-1)


def water_fill_one(
    vals: Valuation, caps: Float[ArrayLike, " N"] | None = None, *, iters: int = 100
) -> Float[Array, " N"]:
    """Welfare-maximising allocation of one instance, each share capped at ``caps`` (default 1).

    Bisection on the common marginal value ``μ ∈ [0, max_i v_i'(0)]``; then non-linear agents take their
    demand at the upper end μ, linear agents with slope above μ(1 + 1e-8) take their cap and the leftover
    goes to the tied linear agents, largest slope first (spec "linear-tie rule").
    """
    caps = jnp.ones_like(vals.w) if caps is None else jnp.minimum(caps, 1.0)
    lin = vals.is_linear & vals.active

    def total(mu):
        return jnp.sum(jnp.minimum(vals.demand(mu), caps))

    def body(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        enough = total(mid) >= 1.0  # demand covers the supply: μ can rise
        return jnp.where(enough, mid, lo), jnp.where(enough, hi, mid)

    hi0 = jnp.max(vals.marginal(jnp.zeros_like(vals.w)))
    _, mu = jax.lax.fori_loop(0, iters, body, (jnp.zeros_like(hi0), hi0))
    eps = TIE_TOL * jnp.maximum(1.0, mu)
    full = lin & (vals.w > mu + eps)
    tied = lin & ~full & (vals.w >= mu - eps)
    x = jnp.where(lin, jnp.where(full, caps, 0.0), jnp.minimum(vals.demand(mu), caps))
    leftover = jnp.maximum(1.0 - jnp.sum(x), 0.0)
    order = jnp.argsort(jnp.where(tied, -vals.w, jnp.inf))  # tied agents first, largest slope first
    room = jnp.where(tied, caps - x, 0.0)[order]
    before = jnp.cumsum(room) - room
    extra = jnp.clip(leftover - before, 0.0, room)
    return x + jnp.zeros_like(x).at[order].set(extra)


def opt_welfare_one(vals: Valuation, *, iters: int = 100) -> tuple[Float[Array, " N"], Float[Array, ""]]:
    """``(x*, OPT)`` of one instance."""
    x = water_fill_one(vals, iters=iters)
    return x, social_welfare(vals, x)


def vcg_one(vals: Valuation, *, iters: int = 100) -> tuple[Float[Array, " N"], Float[Array, ""]]:
    """``(x*, VCG revenue)``: ``Σ_i [OPT_{-i} - (OPT - v_i(x*_i))]``, each ``OPT_{-i}`` re-solved with agent i
    masked (``w_i := 0``); the n masked solves are vmapped."""
    x, opt = opt_welfare_one(vals, iters=iters)
    n = vals.w.shape[-1]

    def without(i):
        masked = vals.replace(w=jnp.where(jnp.arange(n) == i, 0.0, vals.w))
        return opt_welfare_one(masked, iters=iters)[1]

    opt_minus = jax.vmap(without)(jnp.arange(n))
    payments = jnp.where(vals.active, opt_minus - (opt - vals.value(x)), 0.0)
    return x, jnp.sum(payments)


def opt_liquid_welfare_one(
    vals: Valuation, budgets: Float[ArrayLike, " N"], *, iters: int = 100
) -> tuple[Float[Array, " N"], Float[Array, ""]]:
    """``(x*, LW-OPT)``: water-filling with caps ``x̄_i = v_i^{-1}(B_i)``."""
    x = water_fill_one(vals, vals.inverse(budgets), iters=iters)
    return x, liquid_welfare(vals, x, budgets)


# ------------------------------------------------------------------------------------------------
# Batched public API: [N] or [..., N] valuations, one jitted vmapped program
# ------------------------------------------------------------------------------------------------


def opt_welfare(vals: Valuation, *, iters: int = 100, chunk_size: int | None = None):
    """``(x*, OPT)`` for one or many instances (water-filling with the linear-tie rule)."""
    lead, flat = flatten(vals, min_active=1)
    return unflatten(lead, batched(opt_welfare_one, chunk_size, iters=iters)(flat))


def vcg(vals: Valuation, *, iters: int = 100, chunk_size: int | None = None):
    """``(x*, VCG revenue)`` for one or many instances."""
    lead, flat = flatten(vals, min_active=1)
    return unflatten(lead, batched(vcg_one, chunk_size, iters=iters)(flat))


def opt_liquid_welfare(vals: Valuation, budgets, *, iters: int = 100, chunk_size: int | None = None):
    """``(x*, LW-OPT)`` for one or many instances with budgets ``B`` (``[N]`` or like ``vals``)."""
    check_budgets(budgets)
    lead, flat = flatten(vals, min_active=1)
    b = per_agent("budgets", budgets, vals.w.shape, flat.w.dtype)
    return unflatten(lead, batched(opt_liquid_welfare_one, chunk_size, iters=iters)(flat, b))
