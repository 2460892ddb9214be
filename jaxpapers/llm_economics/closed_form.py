"""Closed forms of the Pareto, no-inference firm (our derivation; spec "Closed forms"), used to check the solver.

Revenue depends on (N, D) only through ℓ, so the optimum lies on the compute-optimal frontier, where
ℓ = K·C^{-λ} and profit is Π(C) = R0·K^{-γ}·C^{γλ} − C/E. For γλ < 1:

    C* = (γλ·R0·K^{-γ}·E)^{1/(1−γλ)},   N* = G·(C*/6)^a,   D* = G^{-1}·(C*/6)^b,
    exponents in E: e_N = a/(1−γλ), e_D = b/(1−γλ), e_C = 1/(1−γλ), e_$ = γλ/(1−γλ) (spend = C*/E),
    training spend / revenue at the optimum = γλ.

Data-bound with the hard cap binding: N* = N_opt(D), spend = 6·N_opt(D)·D/E ∝ D^{1+β/α}/E.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp
from jaxtyping import ArrayLike, Float

from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.model import FirmParams

Values = Float[ArrayLike, "..."]


class Exponents(NamedTuple):
    """Log-log slopes of N*, D*, C* and training spend C*/E against E."""

    e_N: Values
    e_D: Values
    e_C: Values
    e_spend: Values


class ParetoClosedForm(NamedTuple):
    """The compute-bound optimum of the Pareto, ρ = 0 firm (NaN where γλ ≥ 1: no interior optimum)."""

    C: Values
    N: Values
    D: Values
    spend: Values
    revenue: Values
    profit: Values
    spend_over_revenue: Values
    exponents: Exponents


def compute_bound_exponents(law: sl.LossLaw, gamma: Values) -> Exponents:
    """(e_N, e_D, e_C, e_$) = (a, b, 1, γλ)/(1 − γλ); NaN where γλ ≥ 1."""
    fc = sl.frontier_constants(law)
    gl = jnp.asarray(gamma) * fc.lam
    inv = jnp.where(gl < 1.0, 1.0 / (1.0 - gl), jnp.nan)
    return Exponents(e_N=fc.a * inv, e_D=fc.b * inv, e_C=inv, e_spend=gl * inv)


def pareto_closed_form(params: FirmParams) -> ParetoClosedForm:
    """C*, N*, D*, spend, revenue, profit, spend/revenue (= γλ) and the E-exponents, in closed form.

    Valid for ``demand='pareto'`` with ρ = 0 while the optimum is unsaturated (ℓ* > ℓ0); ``params.rho`` and
    ``params.demand`` are not read.
    """
    fc = sl.frontier_constants(params.law)
    gl = params.gamma * fc.lam
    ok = gl < 1.0
    log_c = (jnp.log(gl) + jnp.log(params.R0) - params.gamma * jnp.log(fc.K) + jnp.log(params.E)) / jnp.where(
        ok, 1.0 - gl, jnp.nan
    )
    log_c6 = log_c - math.log(6.0)
    log_n = jnp.log(fc.G) + fc.a * log_c6
    log_d = -jnp.log(fc.G) + fc.b * log_c6
    c = jnp.exp(log_c)
    spend = jnp.exp(log_c - jnp.log(params.E))
    revenue = params.R0 * jnp.exp(-params.gamma * (jnp.log(fc.K) - fc.lam * log_c))
    return ParetoClosedForm(
        C=c,
        N=jnp.exp(log_n),
        D=jnp.exp(log_d),
        spend=spend,
        revenue=revenue,
        profit=revenue - spend,
        spend_over_revenue=jnp.where(ok, gl, jnp.nan),
        exponents=compute_bound_exponents(params.law, params.gamma),
    )


def hard_cap_spend(D: Values, E: Values, law: sl.LossLaw = sl.BESIROGLU) -> Values:
    """Training spend 6·N_opt(D)·D/E when the hard data cap binds (N* = N_opt(D))."""
    log_d = jnp.log(D)
    return jnp.exp(math.log(6.0) + sl.log_n_opt_for_data(law, log_d) + log_d - jnp.log(E))


def tpp_spend(D: Values, E: Values, tokens_per_param: Values = 20.0) -> Values:
    """Spend 6·(D/r)·D/E = (6/r)·D²/E under a fixed tokens-per-parameter ratio r (0.3·D²/E for r = 20)."""
    log_d = jnp.log(D)
    return jnp.exp(math.log(6.0) - jnp.log(tokens_per_param) + 2 * log_d - jnp.log(E))


def hard_cap_exponents(law: sl.LossLaw = sl.BESIROGLU) -> tuple[Values, float]:
    """Slopes of the binding hard-cap spend in (D, E): (1 + β/α, −1); (2.05175, −1) for Besiroglu."""
    return 1.0 + jnp.asarray(law.beta) / law.alpha, -1.0


def gamma_for_spend_exponent(e_spend: Values, law: sl.LossLaw = sl.BESIROGLU) -> Values:
    """The γ whose spend exponent γλ/(1 − γλ) equals ``e_spend``: γ = e/((1 + e)·λ) (claim E9)."""
    e = jnp.asarray(e_spend)
    return e / ((1.0 + e) * sl.frontier_constants(law).lam)
