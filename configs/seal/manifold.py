"""S2, S3, S7: the learned ring energy. Groups: ``lattice`` -> ``LatticeConfig``, ``learn`` -> ``LearnConfig``."""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.seal.config import ring_lattice, ring_learn


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.lattice = ml_collections.ConfigDict(ring_lattice(a.preset))
    cfg.learn = ml_collections.ConfigDict(ring_learn(a.preset))
    # S3: perturbations ‖δ‖ = ε‖u*‖, Euler dt = 0.1 for 100τ
    cfg.trials, cfg.eps, cfg.dt, cfg.steps = 10, (0.1, 0.3), 0.1, 1000
    if a.preset == "tiny":
        cfg.trials, cfg.steps = 2, 1000
    elif a.preset == "full":
        cfg.trials, cfg.eps = 100, (0.1, 0.3, 0.5)
    return cfg
