"""Uniform-price resource allocation: from Kelly to first price (arXiv 2606.06151), exact equilibria in JAX.

Public API (everything runs float64 inside ``with jax.enable_x64(True):``)::

    import jaxpapers.resource_allocation as ra
    vals = ra.random_instances(jax.random.key(0), 1024, n_max=8)     # [B, N] valuations, w = 0 pads
    x, lam, theta = ra.alpha_ne(vals, alpha=0.25)                    # exact equilibria, one vmapped program
    ratio = ra.social_welfare(vals, x) / ra.opt_welfare(vals)[1]     # ≥ poa_bound(0.25) = 0.8889

Modules: ``config`` (typed settings, no JAX), ``valuations`` (families, random instances), ``mechanisms``
(Kelly, α-mechanism, budget-capped), ``equilibrium`` (nested-bisection solver, best-reply cross-check,
deviation audit), ``welfare`` (OPT with the linear-tie rule, VCG, liquid welfare), ``families``/``bounds``
(tight families, closed forms, the first-price limit; both at the top level), ``search`` (adversarial search),
``sweeps`` (per-instance measurements), ``studies`` (sweeps shared by claims), ``experiments`` (one module per claim
group), ``figures``, ``claims``.
"""

from jaxpapers.resource_allocation import experiments, figures
from jaxpapers.resource_allocation.bounds import (
    alpha_family_efficiency,
    first_price_limit,
    kelly_family_closed_form,
    poa_bound,
    revenue_conjecture,
    tight_slope,
    two_linear_price,
)
from jaxpapers.resource_allocation.config import InstanceConfig, SolverConfig
from jaxpapers.resource_allocation.equilibrium import (
    alpha_ne,
    alpha_ne_budget,
    best_reply_ne,
    deviation_gains,
    log_weights,
)
from jaxpapers.resource_allocation.families import alpha_tight_family, kelly_tight_family, two_linear
from jaxpapers.resource_allocation.mechanisms import alpha_outcome, budget_capped_outcome, kelly_outcome
from jaxpapers.resource_allocation.sweeps import efficiency, liquid_efficiency, over_alphas
from jaxpapers.resource_allocation.valuations import Valuation, random_budgets, random_instances, sample_instances
from jaxpapers.resource_allocation.welfare import liquid_welfare, opt_liquid_welfare, opt_welfare, social_welfare, vcg

__all__ = [
    "InstanceConfig",
    "SolverConfig",
    "Valuation",
    "alpha_family_efficiency",
    "alpha_ne",
    "alpha_ne_budget",
    "alpha_outcome",
    "alpha_tight_family",
    "best_reply_ne",
    "budget_capped_outcome",
    "deviation_gains",
    "efficiency",
    "experiments",
    "figures",
    "first_price_limit",
    "kelly_family_closed_form",
    "kelly_outcome",
    "kelly_tight_family",
    "liquid_efficiency",
    "liquid_welfare",
    "log_weights",
    "opt_liquid_welfare",
    "opt_welfare",
    "over_alphas",
    "poa_bound",
    "random_budgets",
    "random_instances",
    "revenue_conjecture",
    "sample_instances",
    "social_welfare",
    "tight_slope",
    "two_linear",
    "two_linear_price",
    "vcg",
]
