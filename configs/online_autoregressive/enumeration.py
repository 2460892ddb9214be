"""Enumeration of linear threshold functions (claim O7 of ``online_autoregressive``; spec Family 2).

Integer weights {-W..W}^d (W = 1, 1, 2, 3, 5 for d = 1..5; 9 for d = 6), every distinct threshold, packed
truth tables de-duplicated; counts compared with OEIS A000609.

    jaxpapers verify online_autoregressive/O7                 # quick: d ≤ 5
    jaxpapers verify online_autoregressive/O7 --preset full   # adds d = 6 (symmetric method, ≈ 45 CPU-s)

Expected: 4, 14, 104, 1882, 94572 (15028134). Quick ≈ 4 s (d = 5 dominates).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.enumeration = ml_collections.ConfigDict(
        dict(ds=(1, 2, 3, 4, 5), weight_ranges=(), chunk_size=16_384, method="grid")
    )
    if a.preset == "tiny":
        cfg.enumeration.ds = (1, 2, 3)
    elif a.preset == "full":
        # d = 6: the symmetric enumeration (the same set as the grid; ≈ 45 CPU-s, 1.3 GiB instead of ≈ 25 min).
        cfg.enumeration.update(ds=(1, 2, 3, 4, 5, 6), method="symmetric")
    return cfg
