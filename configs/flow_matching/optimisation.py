"""FM1 of ``flow_matching``: full-batch GD on n fixed CFM triples, widths swept by a masked max-width net.

    jaxpapers verify flow_matching/FM1                  # quick: n = 32, m ∈ {256, 1024, 4096}, T = 3000, 1 seed
    jaxpapers verify flow_matching/FM1 --preset full    # m up to 65536, 3 seeds (accelerator)

Groups: ``target`` -> ``flow_matching.config.GMMConfig``, ``opt`` -> ``flow_matching.config.OptimisationConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.target = ml_collections.ConfigDict(dict(d=2, components=8, radius=2.0, s=0.25, kind="circle", mean_seed=0))
    cfg.opt = ml_collections.ConfigDict(
        dict(n=32, widths=(256, 1024, 4096), steps=3000, seeds=1, horizon_time_constants=4.0, rate_slack=1e-4,
             record_every=10, masked=False)
    )
    if a.preset == "tiny":
        cfg.opt.update(n=8, widths=(64, 256), steps=50, record_every=5)
    elif a.preset == "full":
        cfg.opt.update(widths=(256, 1024, 4096, 16384, 65536), seeds=3, masked=True)
    return cfg
