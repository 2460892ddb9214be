"""Exact dimensions of autoregressive linear thresholds (claim O5 of ``online_autoregressive``; spec Family 2).

Exact Ldim(LTF_d^M) on the domain {0,1}^d for d ≤ 3, M ∈ {1, 2, 3, 4, 8}, and d = 4 at M ∈ {4, 16}; exact CoT
game values for d ≤ 3.

    jaxpapers verify online_autoregressive/O5                 # quick
    jaxpapers verify online_autoregressive/O5 --preset full   # adds d = 4 at M = 1, 2 (≈ 1 min on a CPU)

Expected: d=1 (2,1,2,1,1), d=2 (3,2,2,2,2), d=3 (6,5,4,5,4), d=4: 8, 8; CoT d=1 (2,1,1,1,1), d=2 (3,2,2,2,2),
d=3 (6,4,4,4,3). ≈ 3 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.ltf_exact = ml_collections.ConfigDict(dict(ds=(1, 2, 3), ms=(1, 2, 3, 4, 8), d4_ms=(4, 16), cot_ds=(1, 2, 3)))
    if a.preset == "tiny":
        cfg.ltf_exact.update(ds=(1, 2), ms=(1, 2, 4), d4_ms=(), cot_ds=(1, 2))
    elif a.preset == "full":
        cfg.ltf_exact.d4_ms = (1, 2, 4, 16)
    return cfg
