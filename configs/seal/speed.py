"""S5: transport speed (ring: learned energy; torus: ridge construction). Groups: ``lattice``, ``learn``, ``torus``."""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.seal.config import ring_lattice, ring_learn, torus_lattice


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.lattice = ml_collections.ConfigDict(ring_lattice(a.preset))
    cfg.learn = ml_collections.ConfigDict(ring_learn(a.preset))
    cfg.torus = ml_collections.ConfigDict(torus_lattice(a.preset))
    cfg.torus_ridge = 1e-7
    cfg.omegas, cfg.torus_omegas = (0.05, 0.2, 0.5), (0.05, 0.2)
    cfg.dt, cfg.steps, cfg.skip = 0.05, 600, 200
    if a.preset == "tiny":
        cfg.steps, cfg.skip = 100, 20
    elif a.preset == "full":
        cfg.omegas, cfg.torus_omegas = (0.05, 0.2, 0.5, 1.0, 2.0), (0.05, 0.2, 0.5)
    return cfg
