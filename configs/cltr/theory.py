"""CLTR convex theory on LT-digits: claims C1 (radius law), C2 (subsampled, both profiles), C4 (Theorem B).

Multinomial logistic regression on PCA-16 features plus a bias column, mu = 1e-2 inside every partition
loss, exact minimizers by damped Newton in float64.

    jaxpapers verify cltr/C1 cltr/C2 cltr/C4                 # quick
    jaxpapers verify cltr/C1 --preset tiny                     # 3 IF_part values, 1 seed

Presets: ``tiny`` (tests), ``quick`` (2-core CPU), ``full`` (more seeds and directions; the spec's
Gaussian-mixture / CIFAR features variants are not built). Groups: ``digits`` -> ``cltr.config.DigitsConfig``,
``theory`` -> ``cltr.config.TheoryConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.digits = ml_collections.ConfigDict(
        dict(n_test=40, n_pool=130, features="pca", pca_dim=16, whiten=True, bias=True)
    )
    cfg.theory = ml_collections.ConfigDict(
        dict(
            mu=1e-2,
            newton_iters=40,
            newton_tol=1e-12,
            if_parts=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
            slope_window=(10.0, 1000.0),
            lr_min_if_part=500.0,
            class_ifs=(5, 10, 20, 50, 100),
            profiles=("step", "exp"),
            seeds=3,
            bound_if_part=100.0,
            directions=1000,
            eig_directions=3,
            t_range=(0.1, 10.0),
            eig_ts=(0.1, 0.3, 1.0, 3.0, 10.0),
            anchor_steps=100,
            power_iters=100,
        )
    )
    if a.preset == "tiny":
        cfg.digits.update(pca_dim=4)
        cfg.theory.update(
            newton_iters=20,
            if_parts=(10, 100, 1000),
            slope_window=(10.0, 1000.0),
            class_ifs=(5, 20, 100),
            seeds=1,
            directions=50,
            anchor_steps=10,
            power_iters=30,
        )
    elif a.preset == "full":
        cfg.theory.update(seeds=8, directions=10_000)
    return cfg
