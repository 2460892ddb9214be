"""FM2, FM3, FM5 of ``flow_matching``: GD on n fixed triples, test loss on fresh triples, samples and W2.

    jaxpapers verify flow_matching/FM2                  # quick: m = 1024, n ∈ {64, 256, 1024}, T = 1000, 1 seed
    jaxpapers verify flow_matching/FM5                  # quick: n = 256, m ∈ {256, 1024, 4096} (shares FM2's run)
    jaxpapers verify flow_matching/FM2 --preset full    # n up to 16384, 3 seeds, N = 10⁴ samples

Groups: ``target`` -> ``flow_matching.config.GMMConfig``, ``gen`` -> ``flow_matching.config.GeneralisationConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.target = ml_collections.ConfigDict(dict(d=2, components=8, radius=2.0, s=0.25, kind="circle", mean_seed=0))
    cfg.gen = ml_collections.ConfigDict(
        dict(
            width=1024,
            ns=(64, 256, 1024),
            n_fixed=256,
            widths=(256, 1024, 4096),
            steps=1000,
            seeds=1,
            test_size=20_000,
            test_batches=20,
            power_iters=30,
            samples=2000,
            solver="rk4",
            solver_steps=50,
        )
    )
    if a.preset == "tiny":
        cfg.gen.update(width=64, ns=(16, 32, 64), n_fixed=32, widths=(32, 64), steps=20, test_size=400, samples=64,
                       solver_steps=8)
    elif a.preset == "full":
        cfg.gen.update(ns=(128, 512, 2048, 4096, 16384), widths=(256, 1024, 4096, 16384, 65536), seeds=3,
                       samples=3000)
    return cfg
