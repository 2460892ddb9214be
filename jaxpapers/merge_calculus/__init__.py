"""Merge calculus: learning-rate transfer across neural computation graphs via a graph coefficient C(G).

Public API::

    import jaxpapers.merge_calculus as mc
    g = mc.residual(16)                                   # or mc.chain(4), mc.from_name("dmup:16")
    mc.merge_coefficient(g)                               # C(G), linear time over the DAG
    mc.predict_lr(g, mc.chain(1), eta0=0.76)              # η̂ = η*(G₀)(C(G)/C(G₀))^{-1/2}
    res = mc.lr_sweep(g, mc.digits(), mc.log_grid(0.03, 3, 16), seeds=(0, 1), steps=80, width=64, batch=64)
    res.refined_eta_star

Modules: ``graph`` (GraphSpec, families, depths), ``calculus`` (C, Chen's Σ L³), ``model`` (DagNet),
``sweep`` (vmapped LR sweep, Ĉ), ``fit``, ``data``, ``config``, ``studies``, ``experiments``, ``figures``, ``claims``.
"""

from jaxpapers.merge_calculus import experiments, figures
from jaxpapers.merge_calculus.calculus import chen_coefficient, merge_coefficient, predict_lr, propagate
from jaxpapers.merge_calculus.data import cifar10, digits, synthetic
from jaxpapers.merge_calculus.fit import PowerLawFit, geometric_error, power_law_fit
from jaxpapers.merge_calculus.graph import (
    Edge,
    GraphSpec,
    chain,
    chen_cell,
    effective_depth,
    from_name,
    hybrid,
    nominal_depth,
    parallel,
    residual,
    two_branch,
)
from jaxpapers.merge_calculus.model import DagNet, init_params, lr_multipliers
from jaxpapers.merge_calculus.sweep import SweepResult, empirical_coefficient, log_grid, lr_sweep, sweep_program

__all__ = [
    "DagNet",
    "Edge",
    "GraphSpec",
    "PowerLawFit",
    "SweepResult",
    "chain",
    "chen_cell",
    "chen_coefficient",
    "cifar10",
    "digits",
    "effective_depth",
    "empirical_coefficient",
    "experiments",
    "figures",
    "from_name",
    "geometric_error",
    "hybrid",
    "init_params",
    "log_grid",
    "lr_multipliers",
    "lr_sweep",
    "merge_coefficient",
    "nominal_depth",
    "parallel",
    "power_law_fit",
    "predict_lr",
    "propagate",
    "residual",
    "sweep_program",
    "synthetic",
    "two_branch",
]
