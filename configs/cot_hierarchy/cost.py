"""Reverse-simulation cost (claim H5 of ``cot_hierarchy``): score evaluations of the KV-cache decode.

One decode of a machine that never halts on an input of length n = 4, counter read at T ∈ {256, 512, 1024, 2048}.

    jaxpapers verify cot_hierarchy/H5                  # quick
    jaxpapers verify cot_hierarchy/H5 --preset full    # T up to 65536

Expected: counter = S(n, T) = H_tot·T(2n+T+1)/2 exactly (H_tot = 4); OLS exponent 1.986. Quick ≈ 3–10 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.cost = ml_collections.ConfigDict(dict(n=4, ts=(256, 512, 1024, 2048)))
    if a.preset == "tiny":
        cfg.cost.update(ts=(32, 64, 128))
    elif a.preset == "full":
        cfg.cost.update(ts=(4096, 8192, 16384, 32768, 65536))
    return cfg
