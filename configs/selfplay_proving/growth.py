"""S1–S3: growth of the proved set under plain random-walk conjecturing (spec "Self-play dynamics").

    jaxpapers verify selfplay_proving/S1 selfplay_proving/S2 selfplay_proving/S3
    jaxpapers verify selfplay_proving --preset full      # accelerator: n = 2^18 expanders, 512 × 512 torus

Expected (quick, spec red-team numbers): S1 d = 8: γ ≈ 0.34, rate ≈ 0.29/round (R² ≈ 0.999) vs the Cheeger
bound 0.042; d = 4: γ ≈ 0.136, rate ≈ 0.20 vs 0.017. S2 torus log-log slope ≈ 1.8, cycle ≈ 0.94. S3
Spearman(γ, rate) ≈ 0.98 over 8 Watts–Strogatz levels. Each claim is one compiled program (all seeds, and in
S1/S2 both graph families, padded to one shape and vmapped).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.play = ml_collections.ConfigDict(
        dict(p=0.5, beta=1.0, walk_len=1, start="uniform", tau=0.05, t=4, max_budget=0, chunk_size=0)
    )
    cfg.expander = ml_collections.ConfigDict(
        dict(n=4096, degrees=(8, 4), seeds=16, rounds=30, window_lo=32.0, window_hi_frac=0.25)
    )
    cfg.grid = ml_collections.ConfigDict(
        dict(
            torus_side=64,
            torus_rounds=150,
            cycle_n=1024,
            cycle_rounds=300,
            seeds=16,
            torus_window_lo=32.0,
            torus_window_hi_frac=0.25,
            cycle_k_lo=30,
            cycle_k_hi=300,
        )
    )
    cfg.small_world = ml_collections.ConfigDict(
        dict(
            n=1024,
            k=4,
            rewire=(0.0, 0.003, 0.01, 0.03, 0.1, 0.3, 0.6, 1.0),
            seeds=16,
            rounds=64,
            window_lo=16.0,
            window_hi_frac=0.125,
        )
    )
    if a.preset == "tiny":
        cfg.expander.update(n=256, seeds=4, rounds=14, window_lo=8.0)
        cfg.grid.update(
            torus_side=16, torus_rounds=40, cycle_n=128, cycle_rounds=60, seeds=4, torus_window_lo=8.0, cycle_k_lo=10,
            cycle_k_hi=60,
        )
        cfg.small_world.update(n=128, rewire=(0.0, 0.1, 1.0), seeds=4, rounds=24, window_lo=8.0, window_hi_frac=0.25)
    elif a.preset == "full":
        cfg.expander.update(n=1 << 18, degrees=(3, 4, 8), rounds=60)
        cfg.grid.update(torus_side=512, torus_rounds=1200)
        cfg.small_world.update(n=1 << 16, rounds=256)
    return cfg
