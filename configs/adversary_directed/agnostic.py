"""D7 — the agnostic dichotomy (spec "Agnostic version"): Hedge's exact expected regret against AgnosticRandom,
AgnosticAntiLearner and PerfectTreeRandom; finite PLdim → regret ~ √T (slope in [0.35, 0.80]), infinite PLdim → ≥ T/2.

    jaxpapers verify adversary_directed/D7                  # quick: thresholds/all subsets T ≤ 256, intervals ≤ 128
    jaxpapers verify adversary_directed/D7 --preset full    # GPU: T ≤ 4096, 256 seeds, intervals ≤ 1024

Expected (quick): log-log slopes ≈ 0.54 / 0.60 (thresholds, random / anti), 0.56 / 0.74 (intervals), all subsets
exactly T/2 (slope 1), prefix regret/T ≈ 0.54 (slope ≈ 1.02); regret ≤ √((T/2) ln N) in every run.
About 20–30 s on 2 loaded CPU cores (4 compiled programs).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.agnostic = ml_collections.ConfigDict(
        dict(
            thresholds_ts=(16, 32, 64, 128, 256),
            intervals_ts=(16, 32, 64, 128),
            subsets_ts=(16, 32, 64, 128, 256),
            prefix_ts=(4, 8, 12),
            seeds=32,
            tree_seeds=8,
        )
    )
    if a.preset == "tiny":
        cfg.agnostic.update(
            thresholds_ts=(16, 32, 64),
            intervals_ts=(16, 32),
            subsets_ts=(16, 32),
            prefix_ts=(4, 6),
            seeds=4,
            tree_seeds=2,
        )
    elif a.preset == "full":
        cfg.agnostic.update(
            thresholds_ts=(16, 32, 64, 128, 256, 512, 1024, 2048, 4096),
            intervals_ts=(16, 32, 64, 128, 256, 512, 1024),
            subsets_ts=(16, 64, 256, 1024, 4096),
            prefix_ts=(4, 8, 12, 14),
            seeds=256,
        )
    return cfg
