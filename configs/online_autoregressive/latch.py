"""Latch class under E2E and CoT feedback (claims O1, O2 of ``online_autoregressive``; spec Family 1).

K = {0..R-1}, R = 4M + 8, prompts 0^n (n < R). O1: exact Ldim(F_K^M) and SOA vs the LatchAdversary for
M in ``ms_exact``; 0-then-halving vs the LatchAdversary for M in ``ms_played`` (lazy columns). O2: exact CoT
game values for M in ``ms_cot_exact``; CoTSOA vs the CoT LatchAdversary and vs ``random_seeds`` random
targets × ``random_rounds`` random prompts for every M in ``ms_played``.

    jaxpapers verify online_autoregressive/O1                 # quick: exact M ≤ 64, played M ≤ 512
    jaxpapers verify online_autoregressive/O2
    jaxpapers verify online_autoregressive/O1 --preset full   # exact M ≤ 128, played M ≤ 2^16 (hours)

Expected: exact, SOA and halving = 1 + ⌊log2 M⌋ (1, 2, ..., 10 for M = 1..512), slope 1.0; CoT value 1
(M = 1, 2), CoTSOA 1 mistake vs the latch adversary and ≤ 1 vs random play. Quick: O1 ≈ 5 s, O2 ≈ 15 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.latch = ml_collections.ConfigDict(
        dict(
            ms_exact=(1, 2, 4, 8, 16, 32, 64),
            ms_played=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
            ms_cot_exact=(1, 2),
            r_mult=4,
            r_offset=8,
            random_rounds=200,
            random_seeds=8,
        )
    )
    if a.preset == "tiny":
        cfg.latch.update(
            ms_exact=(1, 2, 4), ms_played=(1, 2, 4, 8), ms_cot_exact=(1,), random_rounds=20, random_seeds=2
        )
    elif a.preset == "full":
        cfg.latch.update(
            ms_exact=(1, 2, 4, 8, 16, 32, 64, 128),
            ms_played=tuple(2**j for j in range(17)),
            ms_cot_exact=(1, 2, 4, 8),
        )
    return cfg
