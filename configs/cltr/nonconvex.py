"""CLTR claim C3: an MLP 17-64-10 (PCA-16 + bias features) trained from one init on the LT set and on its Head
converges closer to the Head solution as the class IF grows (report Spearman(dist, IF) per seed).

    jaxpapers verify cltr/C3

Presets: ``tiny`` (tests), ``quick`` (3 seeds x 2 profiles x 5 IFs, 400 full-batch Adam steps), ``full``
(8 seeds). Groups: ``digits`` -> ``cltr.config.DigitsConfig``, ``net`` -> ``cltr.config.NetConfig``.
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
    cfg.net = ml_collections.ConfigDict(
        dict(
            hidden=64,
            steps=400,
            lr=1e-2,
            mu=1e-2,
            weight_decay=0.0,
            class_ifs=(5, 10, 20, 50, 100),
            profiles=("step", "exp"),
            seeds=3,
        )
    )
    if a.preset == "tiny":
        cfg.net.update(hidden=8, steps=20, class_ifs=(5, 20, 100), profiles=("step",), seeds=1)
    elif a.preset == "full":
        cfg.net.update(seeds=8)
    return cfg
