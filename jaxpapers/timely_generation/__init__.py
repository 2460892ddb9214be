"""Timely language generation in the limit (arXiv 2605.11302): deadlines, impossibility, sparse hallucination.

Public API::

    import jaxpapers.timely_generation as tg
    coll = tg.hard_collection(J=8, E=12)                     # L_0 = U and L_{j,m} = {1..m} ∪ 2^j ℕ
    sched = tg.a_phase("n1.5", P=4)                           # the diagonal phase adversary (K = U)
    log = tg.play(coll, 0, sched.x, "critical", u_track=8192)  # KM critical-language generator, one lax.scan
    ft = tg.deadline_table("n1.5", 8192)
    d = tg.timely_density_curve(log["credit_time"], range(1, 8193), ft, sched.T)

Modules: ``config`` (typed settings, no JAX), ``languages`` (collections, membership, subset matrices),
``deadlines``, ``adversaries``, ``generators``, ``game`` (the scan), ``metrics``, ``api``, ``studies``,
``experiments``, ``figures``, ``claims``.
"""

from jaxpapers.timely_generation import experiments, figures
from jaxpapers.timely_generation.adversaries import PhaseSchedule, a_inc, a_phase, a_rand, a_sparse, elements
from jaxpapers.timely_generation.api import run_experiment
from jaxpapers.timely_generation.config import PhaseConfig, SanityConfig
from jaxpapers.timely_generation.deadlines import SUPERLINEAR, deadline_table, deadline_value, g_of_t, n_of_t
from jaxpapers.timely_generation.game import play
from jaxpapers.timely_generation.generators import GENERATORS, critical_language, superlinear_budget
from jaxpapers.timely_generation.languages import (
    Collection,
    ap_collection,
    hard_collection,
    hard_index,
    load_collection,
    member,
    poly_collection,
    rank_table,
    subset_matrix,
    subset_matrix_bitset,
    successor,
)
from jaxpapers.timely_generation.metrics import (
    hallucination_curve,
    loglog_slope,
    phase_end_densities,
    timely_density_curve,
    untimed_density_curve,
)

__all__ = [
    "GENERATORS",
    "SUPERLINEAR",
    "Collection",
    "PhaseConfig",
    "PhaseSchedule",
    "SanityConfig",
    "a_inc",
    "a_phase",
    "a_rand",
    "a_sparse",
    "ap_collection",
    "critical_language",
    "deadline_table",
    "deadline_value",
    "elements",
    "experiments",
    "figures",
    "g_of_t",
    "hallucination_curve",
    "hard_collection",
    "hard_index",
    "load_collection",
    "loglog_slope",
    "member",
    "n_of_t",
    "phase_end_densities",
    "play",
    "poly_collection",
    "rank_table",
    "run_experiment",
    "subset_matrix",
    "subset_matrix_bitset",
    "successor",
    "superlinear_budget",
    "timely_density_curve",
    "untimed_density_curve",
]
