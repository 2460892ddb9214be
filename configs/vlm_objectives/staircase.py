"""The phase staircase (spec "Analytic spectra"; claim V3).

What is reproduced: on the contaminated family (image nuisance variance 25, text nuisance 0.25, a
common correlation nu on three nuisance pairs) the CCA family loses one semantic direction each
time nu passes a canonical correlation rho_i (steps at 0.690, 0.792, 0.853), captioning never
fails (xi = 0.5 nu < tau), and text→image generation fails at xi' = 5 nu > tau' (steps at 0.285,
0.388, 0.490). Population covariances (exact, within one grid step 0.01) and n = 20000 samples
(within ±0.05: finite-sample spikes lower the thresholds by 0.02-0.04). Float64 (scoped).

    jaxpapers verify vlm_objectives/V3                   # quick: 100 nu values, population + sample, ~5 s
    jaxpapers verify vlm_objectives/V3 --preset full     # adds the 64×64 (nu, gxn) phase diagram

Expected (quick): population steps exactly at the predicted grid points; sample steps 0.00-0.04 lower.
"""

import ml_collections

from jaxpapers.vlm_objectives.config import base_config


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    cfg = base_config(arg, default_variant="contaminated")
    cfg.staircase = ml_collections.ConfigDict(
        dict(
            nu_min=0.0,
            nu_max=0.99,
            num_nu=100,
            n_sample=20_000,
            chunk_size=10,
            phase_grid=0,  # > 0: also the (nu, gxn) phase diagram on a phase_grid × phase_grid grid
            phase_gxn_min=0.25,
            phase_gxn_max=64.0,
        )
    )
    if cfg.preset == "tiny":
        cfg.staircase.update(num_nu=12, nu_max=0.99, n_sample=2000, chunk_size=None)
    elif cfg.preset == "full":
        cfg.staircase.update(phase_grid=64, chunk_size=256)
    return cfg
