"""Adversary-aware DP bounds (arXiv 2507.08158): single-target, multi-target expected and high-probability bounds
from (ε, δ), μ-GDP or an accountant's privacy profile, with two real attacks in JAX.

Public API::

    import jaxpapers.dp_bounds as dpb
    with jax.enable_x64(True):
        f = dpb.tradeoff_from_profile(*dpb.dpsgd_profile(q, sigma, T))            # add/remove trade-off curve
        prof = dpb.tradeoff_from_profile(*dpb.dpsgd_profile(q, sigma, T, relation="replace_one"))
        E = dpb.multi_expected_bound(f, kappas)                                     # B2: E[K] ≤ Σ 1 − f(κ_i)
        cap = dpb.high_prob_cap(prof, kappas, beta=0.05)                            # B3: P[K > cap] ≤ β

Modules: ``config`` (typed settings, no JAX), ``tradeoff``, ``bounds``, ``accounting``, ``priors``, ``data_text``,
``lm``, ``dpsgd``, ``attack_lm``, ``data_tabular``, ``marginals``, ``attack_tabular``, ``studies``,
``experiments``, ``figures``, ``claims``.
"""

from jaxpapers.dp_bounds import experiments, figures
from jaxpapers.dp_bounds.accounting import calibrate_sigma, dpsgd_epsilon, dpsgd_profile, rdp_epsilon
from jaxpapers.dp_bounds.attack_lm import lr_scores, successes
from jaxpapers.dp_bounds.attack_tabular import reconstruct
from jaxpapers.dp_bounds.bounds import (
    bayes_posterior_bound,
    group_privacy_cap,
    high_prob_cap,
    markov_cap,
    mi_accuracy_bound,
    mi_tpr_bound,
    multi_expected_bound,
    multi_tail_bound,
    poisson_binomial_pmf,
    poisson_binomial_tail,
    rero_bound,
)
from jaxpapers.dp_bounds.config import AccountingConfig, ClosedFormConfig, LMConfig, RRConfig, TabularConfig
from jaxpapers.dp_bounds.data_tabular import load_csv_table, synthetic_table
from jaxpapers.dp_bounds.data_text import load_pii_jsonl, password_candidates
from jaxpapers.dp_bounds.dpsgd import dp_finetune, noisy_clipped_sum, poisson_batch
from jaxpapers.dp_bounds.lm import CharTransformer, LMSpec
from jaxpapers.dp_bounds.priors import baseline_kappa, bits_kappa, uniform_prior, zipf_prior
from jaxpapers.dp_bounds.tradeoff import (
    Gaussian,
    Profile,
    default_eps_grid,
    eps_delta_tradeoff,
    gaussian_profile,
    gdp_mu_for_eps,
    gdp_profile,
    gdp_tradeoff,
    tradeoff_from_profile,
)

__all__ = [
    "AccountingConfig",
    "CharTransformer",
    "ClosedFormConfig",
    "Gaussian",
    "LMConfig",
    "LMSpec",
    "Profile",
    "RRConfig",
    "TabularConfig",
    "baseline_kappa",
    "bayes_posterior_bound",
    "bits_kappa",
    "calibrate_sigma",
    "default_eps_grid",
    "dp_finetune",
    "dpsgd_epsilon",
    "dpsgd_profile",
    "eps_delta_tradeoff",
    "experiments",
    "figures",
    "gaussian_profile",
    "gdp_mu_for_eps",
    "gdp_profile",
    "gdp_tradeoff",
    "group_privacy_cap",
    "high_prob_cap",
    "load_csv_table",
    "load_pii_jsonl",
    "lr_scores",
    "markov_cap",
    "mi_accuracy_bound",
    "mi_tpr_bound",
    "multi_expected_bound",
    "multi_tail_bound",
    "noisy_clipped_sum",
    "password_candidates",
    "poisson_batch",
    "poisson_binomial_pmf",
    "poisson_binomial_tail",
    "rdp_epsilon",
    "reconstruct",
    "rero_bound",
    "successes",
    "synthetic_table",
    "tradeoff_from_profile",
    "uniform_prior",
    "zipf_prior",
]
