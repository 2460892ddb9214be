"""S1: energy descent over random parameter draws (ring; full: ring and torus). Groups: ``lattice`` (and, full,
``torus``) -> ``seal.config.LatticeConfig``."""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.seal.config import ring_lattice


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    lat = ring_lattice("quick")
    cfg.lattice = ml_collections.ConfigDict(lat)
    cfg.draws, cfg.inits, cfg.steps, cfg.dt = 50, 4, 1000, 0.01
    cfg.probe_dts = (0.2, 0.5)
    cfg.psi_hidden, cfg.c_scale, cfg.u0_std = 8, 5.0, 2.0
    if a.preset == "tiny":
        cfg.lattice.update(n=16, band=3)
        cfg.draws, cfg.inits, cfg.steps = 3, 2, 50
    elif a.preset == "full":
        cfg.draws, cfg.inits, cfg.steps = 500, 4, 2000
        cfg.torus = ml_collections.ConfigDict(dict(geometry="torus", n=32, band=5, kappa=2.0, beta=1.0))
        cfg.probe_dts = (0.05, 0.1, 0.2, 0.5, 1.0)
    return cfg
