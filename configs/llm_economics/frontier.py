"""E1: the Chinchilla compute-optimal allocation recovered by the solver (sanity of law + solver).

Paper section: background (Hoffmann et al. 2022, Approach 3; Besiroglu et al. 2024 refit). What is reproduced:
minimising the reducible loss at fixed compute C = 6ND with the damped-Newton solver (revenue off, started at
N = D, not at the closed form) gives N_opt ∝ C^a with a = β/(α+β): 0.512612 (Besiroglu) and 0.451613
(Hoffmann, rounded), within 1e-4 over C ∈ [1e21, 1e25]; L(70e9, 1.4e12) = 1.97388 / 1.93665 within 1e-5.

    jaxpapers verify llm_economics/E1                                   # quick: 21 points, ~3 s on 2 CPU cores
    jaxpapers verify llm_economics/E1 --preset full                     # 81 points, + Hoffmann unrounded
    python -c "from jaxpapers.core import config; print(config.load('llm_economics/frontier:preset=tiny'))"

Presets: tiny (5 points), quick (21), full (81 points, three constant sets). Expected: slopes equal the closed
form to ~1e-12; quick wall time ≈ 3 s (mostly compilation).
"""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.llm_economics.config import solver_config


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.laws = ("besiroglu", "hoffmann_rounded")
    cfg.c_lo = 1e21
    cfg.c_hi = 1e25
    cfg.num = 21
    # Sanity point of the spec: L(70e9 params, 1.4e12 tokens) per constant set (spec values, 5 decimals).
    cfg.check_n = 70e9
    cfg.check_d = 1.4e12
    cfg.expected_loss = ml_collections.ConfigDict({"besiroglu": 1.97388, "hoffmann_rounded": 1.93665})
    cfg.solver = solver_config()
    if a.preset == "tiny":
        cfg.num = 5
    elif a.preset == "full":
        cfg.num = 81
        cfg.laws = ("besiroglu", "hoffmann_rounded", "hoffmann_unrounded")
    return cfg
