"""E2 + E3: compute-bound profit-optimal N*, D*, C* and spend against hardware efficiency E.

Paper: abstract / author thread ("N*, D* track E near-linearly; compute grows sub-quadratically"). What is
reproduced under our reconstruction (Pareto adoption γ = 2.5, no inference cost, Besiroglu law, R0 calibrated
so N*(5e17) = 4e11; the solver starts on the frontier at the best point of a log-C grid around log(E·R0),
not at the closed form): the jitted Newton sweep over 21 log-spaced E ∈ [1e17, 1e19] gives log-log slopes
(e_N, e_D, e_C, e_$) = (0.92482, 0.87931, 1.80413, 0.80413), the closed form a/(1−γλ), b/(1−γλ), 1/(1−γλ),
γλ/(1−γλ) within 2e-3 (E2); at the calibration point E = 5e17 the solver matches the closed form to 1e-6
relative: N* = 4.000e11 (what R0 was calibrated to), D* = 6.7624e12, spend = $3.2459e7, spend/revenue = γλ =
0.445716 (E3). With ``--config.solver.newton_iters=0`` (the start alone) both fail.

    jaxpapers verify llm_economics/E2 llm_economics/E3                  # quick: ~5 s on 2 CPU cores (compile)
    jaxpapers verify llm_economics/E2 --preset full                     # E ∈ [1e15, 1e21], γ ∈ {2, 2.5, 2.7}, 2 laws

Presets: tiny (5 points), quick (21 points, one law, γ = 2.5), full (61 points over six decades, γ ∈ {2, 2.5,
2.7}, Besiroglu and Hoffmann-rounded: every combination against its closed form; the headline qualitative
checks use the Besiroglu γ = 2.5 row). Wall time: seconds, dominated by one compilation shared with E4-E6.
"""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.llm_economics.config import firm_config, solver_config


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.firm = firm_config()  # γ = 2.5, ρ = 0, Besiroglu, R0 = 161234.674, E = 5e17 (the calibration point)
    cfg.sweep = ml_collections.ConfigDict(dict(e_lo=1e17, e_hi=1e19, num=21))
    # Extra (law, γ) combinations checked against their closed forms; the headline row is cfg.firm's.
    cfg.laws = ("besiroglu",)
    cfg.gammas = (2.5,)
    cfg.solver = solver_config()
    if a.preset == "tiny":
        cfg.sweep.num = 5
    elif a.preset == "full":
        cfg.sweep.update(e_lo=1e15, e_hi=1e21, num=61)
        cfg.laws = ("besiroglu", "hoffmann_rounded")
        cfg.gammas = (2.0, 2.5, 2.7)
    return cfg
