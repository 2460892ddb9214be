"""S8: grid-cell rate maps from the torus under 2-D motion. Groups: ``lattice`` -> ``seal.config.LatticeConfig``.

``trajectory``: empty for the OU trajectory (RatInABox defaults, reflected at the box walls), or the path of a
RatInABox-format ``.npz`` (``t``, ``pos``), e.g. the packaged Sargolini (2006) file.
"""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.seal.config import torus_lattice


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.lattice = ml_collections.ConfigDict(torus_lattice(a.preset))
    cfg.ridge = 1e-7
    cfg.trajectory = ""
    cfg.duration_s, cfg.dt_s, cfg.tau_s, cfg.record_every = 600.0, 0.001, 0.01, 10
    cfg.speed_mean, cfg.speed_coherence, cfg.rot_sigma_deg_s, cfg.rot_coherence = 0.08, 0.7, 120.0, 0.08
    cfg.box, cfg.bin_size, cfg.lambda_g = 1.0, 0.025, 0.5
    if a.preset == "tiny":
        cfg.duration_s = 5.0
    return cfg
