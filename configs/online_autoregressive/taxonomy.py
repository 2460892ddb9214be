"""Taxonomy of E2E rates (claim O3 of ``online_autoregressive``; spec Family 1, "Intermediate rates").

Exact Ldim(F_K^M) of latch classes with K = {0..7}, powers of 2, squares and ℕ, truncated to {0..R-1},
R = 4M + 8 (sparse-K values depend on R: it is reported), prompts 0^n (n < R).

    jaxpapers verify online_autoregressive/O3                 # quick: M = 1, 2, 4, ..., 64
    jaxpapers verify online_autoregressive/O3 --preset full   # M up to 256 (≈ 75 s for ℕ at 256 in the spec)

Expected (quick): {0..7}: 1,2,3,3,3,3,3; pow2: 1,2,2,2,2,3,3; squares: 1,2,2,2,3,3,4; ℕ: 1,...,7. ≈ 3 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.taxonomy = ml_collections.ConfigDict(
        dict(ms=(1, 2, 4, 8, 16, 32, 64), families=("finite8", "pow2", "squares", "naturals"), r_mult=4, r_offset=8)
    )
    if a.preset == "tiny":
        cfg.taxonomy.ms = (1, 2, 4, 8, 16)
    elif a.preset == "full":
        cfg.taxonomy.ms = (1, 2, 4, 8, 16, 32, 64, 128, 256)
    return cfg
