"""Uniform-price mechanisms: Kelly, the α-proportional family and its budget-capped version.

Spec "The uniform-price framework": agent i reports θ_i ≥ 0; the proxy-welfare maximiser of
``Σ θ_i x_i^{1-α}/(1-α)`` over the simplex gives, with weights ``w_i = θ_i^{1/α}`` and ``W = Σ w_j``,

    x_i = w_i / W,    λ = W^α (the uniform per-unit price),    p_i = λ·x_i = w_i W^{α-1}.

α = 1 is Kelly's proportional mechanism (``p_i = θ_i``); α → 0 is the first-price auction. For small α
``θ^{1/α}`` under/overflows, so everything is computed from log-weights ``ℓ_i = log(θ_i)/α``
(``x = softmax(ℓ)``, ``log λ = α·logsumexp(ℓ)``), never by raising bids to 1/α.

Axis letters used in shapes: N agents.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float


def kelly_outcome(b: Float[ArrayLike, " N"]) -> tuple[Float[Array, " N"], Float[Array, ""], Float[Array, " N"]]:
    """Kelly's proportional mechanism: ``x_i = b_i/Σb``, price ``λ = Σb``, payment ``p_i = b_i``."""
    total = jnp.sum(b, axis=-1, keepdims=True)
    return b / total, total[..., 0], b


def alpha_outcome_logw(
    log_w: Float[ArrayLike, " N"], alpha: float | Float[ArrayLike, ""]
) -> tuple[Float[Array, " N"], Float[Array, ""], Float[Array, " N"]]:
    """α-mechanism outcome from log-weights ``ℓ_i = log(θ_i)/α`` (``-inf`` for a zero bid).

    Returns ``(x, λ, p)`` with ``x = softmax(ℓ)``, ``λ = exp(α·logsumexp(ℓ))`` and ``p = λ·x``
    (payment is the uniform price times the allocation, not the bid, unless α = 1).
    """
    log_total = jax.nn.logsumexp(log_w, axis=-1)
    x = jnp.exp(log_w - log_total[..., None])
    lam = jnp.exp(alpha * log_total)
    return x, lam, lam[..., None] * x


def alpha_outcome(
    theta: Float[ArrayLike, " N"], alpha: float | Float[ArrayLike, ""]
) -> tuple[Float[Array, " N"], Float[Array, ""], Float[Array, " N"]]:
    """α-mechanism outcome ``(x, λ, p)`` from bids θ (spec: allocation ∝ θ^{1/α}, computed in log-weights)."""
    return alpha_outcome_logw(jnp.log(theta) / alpha, alpha)


def budget_capped_log_weights(
    theta: Float[ArrayLike, " N"],
    alpha: float | Float[ArrayLike, ""],
    budgets: Float[ArrayLike, " N"],
    *,
    iters: int = 200,
) -> Float[Array, " N"]:
    """Log-weights of the budget-capped α-mechanism (our construction, spec "Budget feasibility").

    With total weight W agent i may keep at most the weight whose payment is B_i, ``w_i ≤ B_i W^{1-α}``.
    The capped outcome is ``w_i = min(w⁰_i, B_i W*^{1-α})`` with W* the largest W such that
    ``W ≤ g(W) = Σ_i min(w⁰_i, B_i W^{1-α})`` (g is concave with g(0) = 0, so ``g(W) - W`` changes
    sign once). W* is found by ``iters`` bisection steps on log W over
    ``[max_i min(ℓ⁰_i, log(B_i)/α), logsumexp(ℓ⁰)]``, keeping the lower end, where ``g(W) ≥ W``: the
    realised total is then ≥ W and every payment is ≤ B_i exactly, not only in the limit.
    """
    log_w0 = jnp.log(theta) / alpha
    log_b = jnp.log(budgets)

    def capped(t):
        return jnp.minimum(log_w0, log_b + (1.0 - alpha) * t)

    lo = jnp.max(jnp.minimum(log_w0, log_b / alpha), axis=-1)
    hi = jax.nn.logsumexp(log_w0, axis=-1)
    hi = jnp.maximum(hi, lo)

    def body(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        ok = jax.nn.logsumexp(capped(mid), axis=-1) >= mid  # g(W) >= W: W is at or below W*
        return jnp.where(ok, mid, lo), jnp.where(ok, hi, mid)

    lo, _ = jax.lax.fori_loop(0, iters, body, (lo, hi))
    return capped(lo)


def budget_capped_outcome(
    theta: Float[ArrayLike, " N"],
    alpha: float | Float[ArrayLike, ""],
    budgets: Float[ArrayLike, " N"],
    *,
    iters: int = 200,
) -> tuple[Float[Array, " N"], Float[Array, ""], Float[Array, " N"]]:
    """``(x, λ, p)`` of the budget-capped α-mechanism for arbitrary bids θ and public budgets B.

    Guarantees ``p_i ≤ B_i`` (up to rounding) and ``Σ x = 1`` for every bid vector; see
    :func:`budget_capped_log_weights`. For α = 1 it reduces to ``w_i = min(θ_i, B_i)``.
    """
    return alpha_outcome_logw(budget_capped_log_weights(theta, alpha, budgets, iters=iters), alpha)


def capping_iteration_log_weights(
    theta: Float[ArrayLike, " N"],
    alpha: float | Float[ArrayLike, ""],
    budgets: Float[ArrayLike, " N"],
    *,
    max_rounds: int | Array = 20_000,
    tol: float = 1e-14,
    cap_iters: int = 100,
) -> tuple[Float[Array, " N"], Array]:
    """Cross-check of :func:`budget_capped_log_weights` (spec step 3): the simultaneous capping iteration.

    Each round, every agent's cap is the largest weight whose payment ``w (w + W_{-i})^{α-1}`` is at most
    ``B_i`` given the others' current weights (bisection on log w), and ``w_i ← min(w⁰_i, cap_i)``.
    Starting from w⁰ the weights decrease monotonically to the greatest fixed point; slow for small α,
    so it runs until the largest change of a log-weight is below ``tol`` (or ``max_rounds``).
    Returns the log-weights and the number of rounds used.
    """
    log_w0 = jnp.log(theta) / alpha
    log_b = jnp.log(budgets)
    n = log_w0.shape[-1]
    others = ~jnp.eye(n, dtype=bool)

    def caps(log_w):
        log_rest = jax.nn.logsumexp(jnp.where(others, log_w[None, :], -jnp.inf), axis=-1)  # log W_{-i}
        # payment p(w) <= w^α gives cap >= B^{1/α}; p(w) >= 2^{α-1} w^α once w >= W_{-i} bounds it above.
        lo = log_b / alpha
        hi = jnp.maximum(log_rest, (log_b + (1.0 - alpha) * jnp.log(2.0)) / alpha) + 1.0

        def body(_, bracket):
            lo, hi = bracket
            mid = 0.5 * (lo + hi)
            ok = mid + (alpha - 1.0) * jnp.logaddexp(mid, log_rest) <= log_b  # log p(w) <= log B
            return jnp.where(ok, mid, lo), jnp.where(ok, hi, mid)

        lo, _ = jax.lax.fori_loop(0, cap_iters, body, (lo, hi))
        return lo

    def cond(state):
        _, change, rounds = state
        return (change > tol) & (rounds < max_rounds)

    def body(state):
        log_w, _, rounds = state
        new = jnp.minimum(log_w0, caps(log_w))
        finite = jnp.isfinite(new)
        change = jnp.max(jnp.where(finite, jnp.abs(new - log_w), 0.0))
        return new, change, rounds + 1

    init = (log_w0, jnp.asarray(jnp.inf, log_w0.dtype), jnp.asarray(0))
    log_w, _, rounds = jax.lax.while_loop(cond, body, init)
    return log_w, rounds
