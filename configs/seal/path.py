"""S6: path integration under OU head-direction velocity (τ = 10 ms, dt = 1 ms). Groups: ``lattice``, ``learn``."""

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
    cfg.sigma_deg_s, cfg.coherence_s, cfg.tau_s, cfg.dt_s = 120.0, 0.08, 0.01, 0.001
    cfg.sigma_scales = (0.0, 0.5, 1.0, 2.0)
    cfg.duration_s, cfg.trials, cfg.chunk = 10.0, 4, 100
    if a.preset == "tiny":
        cfg.duration_s, cfg.trials = 0.2, 1
    elif a.preset == "full":
        cfg.duration_s = 600.0
    return cfg
