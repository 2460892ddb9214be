"""Uniform-price resource allocation: from Kelly to first price (arXiv 2606.06151), exact equilibria in JAX.

Public API (everything runs float64 inside ``with jax.enable_x64(True):``)::

    from jaxpapers.resource_allocation import Valuation, alpha_ne, opt_welfare, social_welfare
    vals = random_instances(jax.random.key(0), 1024, n_max=8)       # [B, N] valuations, w = 0 pads
    x, lam, theta = alpha_ne(vals, alpha=0.25)                       # exact equilibria, one vmapped program
    ratio = social_welfare(vals, x) / opt_welfare(vals)[1]           # ≥ poa_bound(0.25) = 0.8889

Modules: ``valuations`` (families, random instances), ``mechanisms`` (Kelly, α-mechanism, budget-capped),
``equilibrium`` (nested-bisection solver, best-reply cross-check, deviation audit), ``welfare`` (OPT with
the linear-tie rule, VCG, liquid welfare), ``families``/``bounds`` (tight families, closed forms),
``search`` (adversarial search), ``sweeps`` (per-instance measurements), ``experiments``/``claims``.
"""

from jaxpapers.resource_allocation.bounds import (
    alpha_family_efficiency,
    kelly_family_closed_form,
    poa_bound,
    revenue_conjecture,
)
from jaxpapers.resource_allocation.equilibrium import (
    SolverConfig,
    alpha_ne,
    alpha_ne_budget,
    best_reply_ne,
    best_response_dynamics,
    deviation_gains,
    log_weights,
)
from jaxpapers.resource_allocation.families import alpha_tight_family, kelly_tight_family, two_linear
from jaxpapers.resource_allocation.mechanisms import (
    alpha_outcome,
    alpha_outcome_logw,
    budget_capped_outcome,
    kelly_outcome,
)
from jaxpapers.resource_allocation.search import SearchConfig, adversarial_search, run_search
from jaxpapers.resource_allocation.sweeps import efficiency, liquid_efficiency
from jaxpapers.resource_allocation.valuations import InstanceConfig, Valuation, random_budgets, random_instances
from jaxpapers.resource_allocation.welfare import (
    liquid_welfare,
    opt_liquid_welfare,
    opt_welfare,
    social_welfare,
    vcg,
)

__all__ = [
    "InstanceConfig",
    "SearchConfig",
    "SolverConfig",
    "Valuation",
    "adversarial_search",
    "alpha_family_efficiency",
    "alpha_ne",
    "alpha_ne_budget",
    "alpha_outcome",
    "alpha_outcome_logw",
    "alpha_tight_family",
    "best_reply_ne",
    "best_response_dynamics",
    "budget_capped_outcome",
    "deviation_gains",
    "efficiency",
    "kelly_family_closed_form",
    "kelly_outcome",
    "kelly_tight_family",
    "liquid_efficiency",
    "liquid_welfare",
    "log_weights",
    "opt_liquid_welfare",
    "opt_welfare",
    "poa_bound",
    "random_budgets",
    "random_instances",
    "revenue_conjecture",
    "run_search",
    "social_welfare",
    "two_linear",
    "vcg",
]
