"""Profit-optimal LLM training from scaling laws (Hao & Merrill 2026, reconstructed): public API.

    import jax
    from jaxpapers.llm_economics import BESIROGLU, FirmParams, solve_compute_bound

    with jax.enable_x64(True):
        sol = solve_compute_bound(FirmParams(law=BESIROGLU, gamma=2.5, R0=161234.674, rho=0.0, E=5e17))
        # sol.N ≈ 4.0e11 parameters, sol.D ≈ 6.76e12 tokens, sol.spend ≈ $3.25e7

Sweeps: ``params, shape = param_grid(FirmParams(), {"E": E_grid})`` then ``sweep_compute_bound(params)``
(one jitted, vmapped computation), or ``jax.vmap(solve_compute_bound)(params)``.

Layout: ``config.py`` (typed settings, no JAX), ``scaling_laws.py``, ``demand.py``, ``model.py`` (the firm),
``solve.py`` (the solvers), ``closed_form.py``, ``trends.py``; ``experiments/`` (one module per claim group),
``studies.py`` (a sweep E5/E6 share), ``figures.py``, ``claims.py``; ``reference.py`` is the float64
NumPy/SciPy reference that tests and the benchmark compare with.
"""

from jaxpapers.llm_economics import experiments, figures, reference
from jaxpapers.llm_economics.closed_form import (
    compute_bound_exponents,
    gamma_for_spend_exponent,
    hard_cap_exponents,
    hard_cap_spend,
    pareto_closed_form,
)
from jaxpapers.llm_economics.config import CALIBRATED_R0, FirmConfig, SolverOptions
from jaxpapers.llm_economics.demand import loglogistic_share, loguniform_share, pareto_share, revenue
from jaxpapers.llm_economics.model import FirmParams, concat_params, param_grid, profit
from jaxpapers.llm_economics.scaling_laws import (
    BESIROGLU,
    HOFFMANN_ROUNDED,
    HOFFMANN_UNROUNDED,
    LossLaw,
    frontier,
    frontier_constants,
    get_law,
    loss,
    muennighoff_effective,
    n_opt_for_data,
)
from jaxpapers.llm_economics.solve import (
    DataBoundSolution,
    Solution,
    solve_compute_bound,
    solve_data_bound,
    solve_frontier,
    sweep_compute_bound,
    sweep_data_bound,
)
from jaxpapers.llm_economics.trends import fit_trend, load_trend_csv

__all__ = [
    "BESIROGLU",
    "CALIBRATED_R0",
    "HOFFMANN_ROUNDED",
    "HOFFMANN_UNROUNDED",
    "DataBoundSolution",
    "FirmConfig",
    "FirmParams",
    "LossLaw",
    "Solution",
    "SolverOptions",
    "compute_bound_exponents",
    "concat_params",
    "experiments",
    "figures",
    "fit_trend",
    "frontier",
    "frontier_constants",
    "gamma_for_spend_exponent",
    "get_law",
    "hard_cap_exponents",
    "hard_cap_spend",
    "load_trend_csv",
    "loglogistic_share",
    "loguniform_share",
    "loss",
    "muennighoff_effective",
    "n_opt_for_data",
    "param_grid",
    "pareto_closed_form",
    "pareto_share",
    "profit",
    "reference",
    "revenue",
    "solve_compute_bound",
    "solve_data_bound",
    "solve_frontier",
    "sweep_compute_bound",
    "sweep_data_bound",
]
