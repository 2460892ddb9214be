"""FM4 of ``flow_matching``: the closed forms (floor, v*, Gaussian transport map, projected GMM CDF) against Monte
Carlo and RK4 integration, in float64.

    jaxpapers verify flow_matching/FM4                  # quick: 10⁶-sample floor, 10⁵ Gaussian points, 2·10⁴ GMM points

Group: ``target`` -> ``flow_matching.config.GMMConfig``, ``ref`` -> ``flow_matching.config.ReferencesConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.target = ml_collections.ConfigDict(dict(d=2, components=8, radius=2.0, s=0.25, kind="circle", mean_seed=0))
    cfg.ref = ml_collections.ConfigDict(
        dict(
            floor_d=2,
            floor_samples=1_000_000,
            gauss_mu=(1.0, -0.5),
            gauss_sigma=((4.0, 1.0), (1.0, 0.5)),
            gauss_points=100_000,
            gmm_points=20_000,
            fine_points=2000,
            solver_steps=50,
            fine_steps=400,
            projections=8,
            control_scale=0.8,
        )
    )
    if a.preset == "tiny":
        cfg.ref.update(floor_samples=20_000, gauss_points=500, gmm_points=2000, fine_points=100)
    elif a.preset == "full":
        cfg.ref.update(floor_d=64, floor_samples=4_000_000, gmm_points=100_000)
    return cfg
