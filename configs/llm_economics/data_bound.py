"""E7, E8: the data-bound regime (D fixed at the available data): training spend against D and E.

Paper: abstract ("data-bound: spend ∝ D²/E"). What is reproduced under our reconstruction:
E7 (hard cap, parameters beyond N_opt(D) add nothing): the cap binds at every grid point and spend =
6·N_opt(D)·D/E has slopes 2.05175 in D (at E = 1e19, D ∈ [10^11.5, 10^12.5]) and −1 in E (at D = 1e12,
E ∈ [1e18, 1e20]); with a fixed 20 tokens per parameter exactly (2, −1). E8 (soft cap, Muennighoff et al.
2023 repetition law, over N and epochs): slopes ≈ 1.31 in D and ≈ −0.33 in E (± 0.05): DIVERGES from the
paper's D²/E (verdict "divergent").

    jaxpapers verify llm_economics/E7 llm_economics/E8                  # quick: ~10 s on 2 CPU cores (compile)
    jaxpapers verify llm_economics/E7 --preset full                     # wider grids for the hard cap

Presets: tiny (5 points per grid), quick (21), full (hard cap: D ∈ [1e11, 1e13] at E = 1e19 and
E ∈ [1e18, 1e21] at D = 1e12, 41 points; soft cap: the quick ranges with 41 points, since its slopes are
local, not exact power laws).
"""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.llm_economics.config import firm_config, solver_config


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.firm = firm_config(tokens_per_param=20.0)
    grid = dict(d_lo=10**11.5, d_hi=10**12.5, d_at_e=1e19, e_lo=1e18, e_hi=1e20, e_at_d=1e12, num=21)
    cfg.hard = ml_collections.ConfigDict(grid)
    cfg.soft = ml_collections.ConfigDict(grid)
    # Our reconstruction's soft-cap slopes (spec table: two prototypes agree on 1.309 and −0.331).
    cfg.expected_soft = ml_collections.ConfigDict(dict(slope_D=1.309, slope_E=-0.331))
    cfg.solver = solver_config()
    if a.preset == "tiny":
        cfg.hard.num = cfg.soft.num = 5
    elif a.preset == "full":
        cfg.hard.update(d_lo=1e11, d_hi=1e13, e_lo=1e18, e_hi=1e21, num=41)
        cfg.soft.num = 41
    return cfg
