"""S4: torus before/after learning. Groups: ``lattice`` -> ``LatticeConfig``, ``learn`` -> ``LearnConfig``."""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.seal.config import torus_lattice, torus_learn


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.lattice = ml_collections.ConfigDict(torus_lattice(a.preset))
    cfg.learn = ml_collections.ConfigDict(torus_learn(a.preset))
    cfg.trials, cfg.eps, cfg.dt, cfg.steps = 10, 0.2, 0.1, 1000
    if a.preset == "tiny":
        cfg.trials, cfg.steps = 2, 100
    return cfg
