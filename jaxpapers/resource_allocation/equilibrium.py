"""Exact Nash equilibria of the α-mechanism and two independent cross-checks (spec "Exact equilibrium solver").

Equilibrium characterisation (our derivation, spec "The uniform-price framework"): at the
price-anticipating equilibrium with price λ every active agent satisfies

    v_i'(x_i)(1 - x_i) = λ (1 - (1-α) x_i),        inactive agents have v_i'(0) ≤ λ,   Σ x_i = 1.

``v'(x)(1-x)/(1-(1-α)x)`` is decreasing in x, so for a trial λ each agent's share is a 1-D root
(inner bisection, run on log(x + s) ∈ [log s, log(1 + s)], see :func:`foc_shares`) and the total
share ``S(λ)`` is non-increasing (outer bisection on
``λ ∈ [0, max_i v_i'(0)]``). Both loops have fixed counts (``lax.fori_loop``), so the solver is one
jittable, vmappable function: float64 needs 80 × 60 steps (bisection is exhausted by then).

The cross-checks never use that condition:

* :func:`best_reply_ne` — the equilibrium from best replies alone: each agent maximises its utility,
  written through the mechanism (:func:`mechanisms.alpha_outcome_logw`), over its own log-weight by
  bisection on the ``jax.grad`` slope, and the total weight where the best-reply shares sum to 1 is
  found by bisection (the game is aggregative). Plain Gauss–Seidel best-response dynamics
  (:func:`best_response_dynamics`) are kept too, but they cycle when one agent dominates (see there).
* :func:`deviation_gains` — evaluates every agent's utility on a grid of 2001 alternative weights (and 0)
  with the others fixed; at an equilibrium no deviation gains more than rounding.

Functions ending in ``_one`` act on a single instance (``[N]`` arrays) and are what gets vmapped;
the public wrappers take ``[N]`` or ``[B, N]`` inputs and run one jitted, vmapped (chunked) computation.

Axis letters used in shapes: B instances, N agents, G deviation-grid points.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.resource_allocation.batching import (
    batched,
    check_alpha,
    check_budgets,
    flatten,
    per_agent,
    per_instance,
    unflatten,
)
from jaxpapers.resource_allocation.config import SolverConfig
from jaxpapers.resource_allocation.mechanisms import alpha_outcome_logw
from jaxpapers.resource_allocation.valuations import Valuation

DEFAULT_SOLVER = SolverConfig()

# ------------------------------------------------------------------------------------------------
# The nested-bisection solver
# ------------------------------------------------------------------------------------------------


def _bracket_ends(vals: Valuation):
    """``(x+s)^{-ρ}`` at x = 0 and x = 1 and ``v'(0)``: loop invariants of the inner bisection."""
    p_lo = jnp.exp(-vals.rho * jnp.log(vals.s))
    p_hi = jnp.exp(-vals.rho * jnp.log1p(vals.s))
    return p_lo, p_hi, vals.w * p_lo


def foc_shares(
    vals: Valuation, lam: Float[ArrayLike, ""], alpha: Float[ArrayLike, ""], inner_iters: int = 60, ends=None
) -> Float[Array, " N"]:
    """Each agent's share ``x_i(λ)``: the root of ``v_i'(x)(1-x) = λ(1-(1-α)x)`` on [0, 1], or 0 if ``v_i'(0) ≤ λ``.

    ``v'(x)(1-x)/(1-(1-α)x)`` decreases in x, so the sign of the difference brackets the root. The
    bisection runs on ``z = log(x + s)`` over ``[log s, log(1 + s)]``, carried as geometric means: the
    midpoint ``y = x + s = sqrt(y_lo·y_hi)`` and, since every family has ``v'(x) = w·y^{-ρ}``
    (:attr:`Valuation.rho`), ``y^{-ρ} = sqrt(p_lo·p_hi)`` exactly (in exact arithmetic). A step costs two
    square roots and no ``exp``/``log`` (XLA's float64 transcendentals dominate otherwise; ~1.4× faster
    than bisecting z with ``exp``, 2× faster than bisecting x; results agree to ~1e-15).
    ``ends`` may pass the loop invariants of :func:`_bracket_ends`.
    """
    s, w = vals.s, vals.w
    p_lo, p_hi, v0 = _bracket_ends(vals) if ends is None else ends
    c = lam * (1.0 - alpha)
    rhs0 = lam + c * s  # λ(1 - (1-α)x) = rhs0 - c·y

    def body(_, state):
        y_lo, y_hi, p_lo, p_hi = state
        y, p = jnp.sqrt(y_lo * y_hi), jnp.sqrt(p_lo * p_hi)
        above = w * p * (1.0 + s - y) > rhs0 - c * y  # the root lies to the right of the midpoint
        return (
            jnp.where(above, y, y_lo),
            jnp.where(above, y_hi, y),
            jnp.where(above, p, p_lo),
            jnp.where(above, p_hi, p),
        )

    y_lo, y_hi, _, _ = jax.lax.fori_loop(0, inner_iters, body, (s, 1.0 + s, p_lo, p_hi))
    x = jnp.clip(jnp.sqrt(y_lo * y_hi) - s, 0.0, 1.0)
    return jnp.where(v0 > lam, x, 0.0)


def _shares(vals, lam, alpha, budgets, inner_iters, ends=None):
    x = foc_shares(vals, lam, alpha, inner_iters, ends)
    if budgets is not None:  # budget-constrained best response: never pay more than B_i = λ·x_i
        x = jnp.minimum(x, budgets / lam)
    return x


def alpha_ne_one(
    vals: Valuation,
    alpha: Float[ArrayLike, ""],
    budgets: Float[ArrayLike, " N"] | None = None,
    *,
    outer_iters: int = 80,
    inner_iters: int = 60,
) -> tuple[Float[Array, " N"], Float[Array, ""], Float[Array, " N"]]:
    """Equilibrium ``(x, λ, θ)`` of one instance (``[N]`` arrays); see the module docstring.

    With ``budgets`` each agent's share at price λ is ``min(x_i^FOC(λ), B_i/λ)`` (our derivation: the
    utility is concave in the share and the payment λ·x_i is increasing, so the budget binds at B_i/λ).
    The shares are normalised to sum to 1 (they do to ~1e-16 already). Bids are ``θ_i = λ·x_i^α``
    (= w_i^α with W = λ^{1/α}, w_i = x_i W, with no under/overflow).
    """
    alpha = jnp.asarray(alpha, vals.w.dtype)
    ends = _bracket_ends(vals)
    hi = jnp.max(ends[2])  # max_i v_i'(0): above it nobody is active

    def body(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        too_low = jnp.sum(_shares(vals, mid, alpha, budgets, inner_iters, ends)) > 1.0  # demand exceeds supply
        return jnp.where(too_low, mid, lo), jnp.where(too_low, hi, mid)

    lo, hi = jax.lax.fori_loop(0, outer_iters, body, (jnp.zeros_like(hi), hi))
    lam = 0.5 * (lo + hi)
    x = _shares(vals, lam, alpha, budgets, inner_iters, ends)
    x = x / jnp.sum(x)
    return x, lam, lam * x**alpha


def log_weights(x: Float[ArrayLike, "... N"], lam: Float[ArrayLike, "..."], alpha) -> Float[Array, "... N"]:
    """Equilibrium log-weights ``log w_i = log x_i + log(λ)/α`` (``-inf`` for inactive agents)."""
    alpha = jnp.asarray(alpha)
    return jnp.log(x) + (jnp.log(lam) / alpha)[..., None]


# ------------------------------------------------------------------------------------------------
# Cross-check 1: best replies (autodiff of the utility, no hand-derived condition)
# ------------------------------------------------------------------------------------------------


def _bisect(pred, lo, hi, iters):
    """Largest point of [lo, hi] (to bisection precision) where the monotone predicate still holds."""

    def body(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        ok = pred(mid)
        return jnp.where(ok, mid, lo), jnp.where(ok, hi, mid)

    return jax.lax.fori_loop(0, iters, body, (lo, hi))[0]


def _utility(v_i: Valuation, alpha, t, log_rest):
    """An agent's utility ``v_i(x_i) - p_i`` with log-weight t against others of total weight ``e^{log_rest}``,
    computed through the mechanism (the outcome depends on the others only through their total)."""
    x, _, pay = alpha_outcome_logw(jnp.stack([t, log_rest]), alpha)
    return v_i.value(x[0]) - pay[0]


def _payment(alpha, t, log_rest):
    return alpha_outcome_logw(jnp.stack([t, log_rest]), alpha)[2][0]


_utility_slope = jax.grad(_utility, argnums=2)  # du/dt, the derivative in the agent's own log-weight


def reply_share(
    v_i: Valuation, alpha, log_total, budget=None, *, iters: int = 60, span: float = 40.0
) -> Float[Array, ""]:
    """Share x an agent takes when it best-replies and the total weight comes out as ``W = e^{log_total}``.

    At share x the agent's log-weight is ``log W + log x`` and the others' total ``W(1-x)``; x is a best
    reply iff the utility's slope in the own log-weight is 0 there. The slope's sign is decreasing in x
    (the utility is concave in the share), so x is found by bisection on the log-odds ``log(x/(1-x)) ∈
    [-span, span]``; x = 0 if the utility already falls at log-odds ``-span``. With a budget the share
    is also capped where the payment reaches it (payment is increasing in x).
    """

    def at(z):  # own log-weight and the others' log total at log-odds z
        return log_total - jax.nn.softplus(-z), log_total - jax.nn.softplus(z)

    def rising(z):
        return _utility_slope(v_i, alpha, *at(z)) > 0

    z = _bisect(rising, -span, span, iters)
    if budget is not None:
        z = jnp.minimum(z, _bisect(lambda z: _payment(alpha, *at(z)) <= budget, -span, span, iters))
    return jnp.where(rising(-span), jax.nn.sigmoid(z), 0.0)


def best_reply_ne_one(
    vals: Valuation,
    alpha: Float[ArrayLike, ""],
    budgets: Float[ArrayLike, " N"] | None = None,
    *,
    outer_iters: int = 80,
    inner_iters: int = 60,
) -> tuple[Float[Array, " N"], Float[Array, ""]]:
    """Equilibrium ``(x, λ)`` from best replies alone (cross-check of :func:`alpha_ne_one`).

    The game is aggregative (an agent's payoff depends on its own weight and the total W), so a Nash
    equilibrium is a total W whose best-reply shares (:func:`reply_share`, computed with ``jax.grad`` of the
    utility written through the mechanism) sum to 1 (Cornes & Hartley's share functions). The shares
    decrease in W: bisection on ``log W`` over ``[log λ_max - 60, log λ_max]/α`` with ``λ_max = max_i v_i'(0)``.
    Nothing here uses the hand-derived equilibrium condition.
    """
    alpha = jnp.asarray(alpha, vals.w.dtype)

    def shares(log_total):
        per_agent = lambda v_i, b_i: reply_share(v_i, alpha, log_total, b_i, iters=inner_iters)  # noqa: E731
        if budgets is None:
            return jax.vmap(lambda v_i: per_agent(v_i, None))(vals)
        return jax.vmap(per_agent)(vals, budgets)

    hi = jnp.log(jnp.max(vals.marginal(jnp.zeros_like(vals.w)))) / alpha
    log_total = _bisect(lambda g: jnp.sum(shares(g)) > 1.0, hi - 60.0 / alpha, hi, outer_iters)
    x = shares(log_total)
    return x / jnp.sum(x), jnp.exp(alpha * log_total)


def best_response_dynamics_one(
    vals: Valuation,
    alpha: Float[ArrayLike, ""],
    *,
    max_sweeps: int = 200,
    tol: float = 1e-13,
    iters: int = 80,
    span: float = 40.0,
) -> tuple[Float[Array, " N"], Float[Array, ""], Array]:
    """Gauss–Seidel best-response dynamics in the log-weights, ``(x, λ, sweeps)`` (spec's cross-check).

    Each agent in turn plays its exact best reply to the others' current weights (bisection on the
    autodiff slope, 0 when inactive). Starts from equal weights at price ``min_i v_i'(0)/2`` (everybody
    active) and stops when no share moves by more than ``tol`` or after ``max_sweeps``.

    Not used as the equilibrium cross-check: the dynamics are locally unstable when one agent dominates.
    For two linear Kelly agents the best reply is ``w = sqrt(v W') - W'``, with slope
    ``(2x-1)/(2(1-x))`` at the equilibrium share x, so a Gauss–Seidel round multiplies deviations by
    ``-(2x-1)²/(4x(1-x))``: it diverges (cycles) once a share exceeds ``(2+√2)/4 ≈ 0.854``.
    """
    alpha = jnp.asarray(alpha, vals.w.dtype)
    n = vals.w.shape[-1]
    v0 = vals.marginal(jnp.zeros_like(vals.w))
    log_lam0 = jnp.log(0.5 * jnp.min(jnp.where(vals.active, v0, jnp.inf)))
    log_w0 = jnp.where(vals.active, log_lam0 / alpha - jnp.log(jnp.sum(vals.active)), -jnp.inf)
    agent = lambda i: jax.tree.map(lambda a: a[i], vals)  # noqa: E731

    def reply(i, log_w):
        log_rest = jax.nn.logsumexp(jnp.where(jnp.arange(n) == i, -jnp.inf, log_w))
        lo = log_rest - span
        t = _bisect(lambda t: _utility_slope(agent(i), alpha, t, log_rest) > 0, lo, log_rest + span, iters)
        t = jnp.where(_utility_slope(agent(i), alpha, lo, log_rest) > 0, t, -jnp.inf)
        # Nobody else bids: the supremum is at w -> 0+ (any w > 0 wins everything), so shrink the weight.
        t = jnp.where(jnp.isfinite(log_rest), t, log_w[i] - span)
        return log_w.at[i].set(jnp.where(vals.w[i] > 0, t, -jnp.inf))

    def cond(state):
        _, change, k = state
        return (change > tol) & (k < max_sweeps)

    def body(state):
        log_w, _, k = state
        new = jax.lax.fori_loop(0, n, reply, log_w)
        return new, jnp.max(jnp.abs(jax.nn.softmax(new) - jax.nn.softmax(log_w))), k + 1

    log_w, _, sweeps = jax.lax.while_loop(cond, body, (log_w0, jnp.asarray(jnp.inf, vals.w.dtype), 0))
    x, lam, _ = alpha_outcome_logw(log_w, alpha)
    return x, lam, sweeps


# ------------------------------------------------------------------------------------------------
# Cross-check 2: deviation audit
# ------------------------------------------------------------------------------------------------


def deviation_gains_one(
    vals: Valuation,
    alpha: Float[ArrayLike, ""],
    log_w: Float[ArrayLike, " N"],
    budgets: Float[ArrayLike, " N"] | None = None,
    *,
    grid_size: int = 2001,
    decades: float = 3.0,
) -> Float[Array, " N"]:
    """Each agent's largest utility gain from a unilateral deviation (spec "Deviation audit").

    Alternatives: ``grid_size`` log-spaced weights in ``10^{±decades} × max(w_i, W_{-i})`` plus 0 (anchoring
    on W_{-i} keeps the grid useful for inactive agents, whose weight is 0); with budgets only weights
    whose payment is within ``B_i(1 + 1e-12)`` count. Utilities are computed through the mechanism.
    """
    alpha = jnp.asarray(alpha, vals.w.dtype)
    n = log_w.shape[-1]
    offsets = jnp.linspace(-decades, decades, grid_size, dtype=vals.w.dtype) * jnp.log(10.0)

    def gain(i):
        others = jnp.where(jnp.arange(n) == i, -jnp.inf, log_w)
        anchor = jnp.maximum(log_w[i], jax.nn.logsumexp(others))
        grid = jnp.concatenate([anchor + offsets, jnp.array([-jnp.inf], vals.w.dtype)])

        def outcome(t):
            x, _, pay = alpha_outcome_logw(log_w.at[i].set(t), alpha)
            return vals.value(x)[i] - pay[i], pay[i]

        u_now, _ = outcome(log_w[i])
        u_alt, pay_alt = jax.vmap(outcome)(grid)
        if budgets is not None:
            u_alt = jnp.where(pay_alt <= budgets[i] * (1.0 + 1e-12), u_alt, -jnp.inf)
        return jnp.where(vals.w[i] > 0, jnp.max(u_alt) - u_now, 0.0)

    return jax.vmap(gain)(jnp.arange(n))


# ------------------------------------------------------------------------------------------------
# Public, batched API
# ------------------------------------------------------------------------------------------------


def alpha_ne(
    vals: Valuation, alpha, *, solver: SolverConfig = DEFAULT_SOLVER
) -> tuple[Float[Array, "... N"], Float[Array, "..."], Float[Array, "... N"]]:
    """Equilibrium ``(x, λ, θ)`` of the α-mechanism for one (``[N]``) or many (``[..., N]``) instances.

    ``alpha`` is a scalar or one value per instance. One jitted, vmapped computation.
    Example: ``x, lam, theta = alpha_ne(vals, alpha=0.25)``.
    """
    check_alpha(alpha)
    lead, flat = flatten(vals)
    fn = batched(alpha_ne_one, solver.chunk_size, **solver.iters)
    return unflatten(lead, fn(flat, per_instance("alpha", alpha, lead, flat.w.dtype)))


def alpha_ne_budget(
    vals: Valuation, alpha, budgets, *, solver: SolverConfig = DEFAULT_SOLVER
) -> tuple[Float[Array, "... N"], Float[Array, "..."], Float[Array, "... N"]]:
    """Budget-constrained equilibrium ``(x, λ, θ)``: every payment ``λ·x_i`` is at most ``B_i``."""
    check_alpha(alpha)
    check_budgets(budgets)
    lead, flat = flatten(vals)
    fn = batched(_alpha_ne_budget_one, solver.chunk_size, **solver.iters)
    b = per_agent("budgets", budgets, vals.w.shape, flat.w.dtype)
    return unflatten(lead, fn(flat, per_instance("alpha", alpha, lead, flat.w.dtype), b))


def _alpha_ne_budget_one(vals, alpha, budgets, **kw):
    return alpha_ne_one(vals, alpha, budgets, **kw)


def best_reply_ne(
    vals: Valuation, alpha, budgets=None, *, solver: SolverConfig = DEFAULT_SOLVER
) -> tuple[Float[Array, "... N"], Float[Array, "..."]]:
    """Equilibrium ``(x, λ)`` from best replies alone (cross-check of :func:`alpha_ne`), batched like it."""
    check_alpha(alpha)
    lead, flat = flatten(vals)
    args = [flat, per_instance("alpha", alpha, lead, flat.w.dtype)]
    if budgets is not None:
        check_budgets(budgets)
        args.append(per_agent("budgets", budgets, vals.w.shape, flat.w.dtype))
    fn = batched(best_reply_ne_one, solver.chunk_size, **solver.iters)
    return unflatten(lead, fn(*args))


def best_response_dynamics(
    vals: Valuation, alpha, *, max_sweeps: int = 200, tol: float = 1e-13, chunk_size: int | None = None
) -> tuple[Float[Array, "... N"], Float[Array, "..."], Array]:
    """Gauss–Seidel best-response dynamics ``(x, λ, sweeps)``, batched (see :func:`best_response_dynamics_one`)."""
    check_alpha(alpha)
    lead, flat = flatten(vals)
    fn = batched(best_response_dynamics_one, chunk_size, max_sweeps=max_sweeps, tol=tol)
    return unflatten(lead, fn(flat, per_instance("alpha", alpha, lead, flat.w.dtype)))


def deviation_gains(
    vals: Valuation, alpha, log_w, budgets=None, *, grid_size: int = 2001, chunk_size: int | None = None
) -> Float[Array, "... N"]:
    """Largest unilateral deviation gain of every agent at log-weights ``log_w`` (batched like :func:`alpha_ne`)."""
    check_alpha(alpha)
    lead, flat = flatten(vals)
    args = [
        flat,
        per_instance("alpha", alpha, lead, flat.w.dtype),
        per_agent("log_w", log_w, vals.w.shape, flat.w.dtype),
    ]
    if budgets is not None:
        check_budgets(budgets)
        args.append(per_agent("budgets", budgets, vals.w.shape, flat.w.dtype))
    fn = batched(_deviation_gains_row, chunk_size, grid_size=grid_size)
    return unflatten(lead, fn(*args))


def _deviation_gains_row(vals, alpha, log_w, budgets=None, **kw):
    return deviation_gains_one(vals, alpha, log_w, budgets, **kw)
