"""FM1: full-batch GD on fixed triples converges geometrically and lazily (a finite-width reading of Du et al.).

For each seed: n triples of the 8-Gaussian circle (d = 2), H∞ and λ₀ = λ_min(H∞) in float64, η = 1/λ_max(H∞), and
T GD steps on the summed loss at every width (one jitted program, :func:`studies.optimisation_sweep`). Measured:
(a) violations of L̂(k) ≤ (1 − ηλ₀/2)^k L̂(0)·(1 + slack) for k ≤ K_b = min(T, ⌈4/(ηλ₀)⌉) at the largest width,
and, for every width, the first failing k over all k ≤ T (report); (b) the slope of log Δ_max(T) on log m (theory
O(m^{−1/2})); (c) the smallest decrease of the flip fraction between consecutive widths; (d) L̂(T)/L̂(0) at the
largest width.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import fit_loglog
from jaxpapers.flow_matching import figures, studies
from jaxpapers.flow_matching.config import GMMConfig, OptimisationConfig


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM1's four criteria, per seed (``cfg.seed`` drives the triples and initial weights; ``key`` unused)."""
    del key
    target, opt = to_dataclass(GMMConfig, cfg.target), to_dataclass(OptimisationConfig, cfg.opt)
    sw = studies.optimisation_sweep(target, opt, int(cfg.seed))
    widths = np.asarray(opt.widths)
    checks = [
        [
            studies.rate_check(sw["loss"][s, j], sw["lambda0"][s], sw["eta"][s], opt.horizon_time_constants,
                               opt.rate_slack)
            for j in range(len(widths))
        ]
        for s in range(opt.seeds)
    ]
    delta_t = sw["delta_max"][:, :, -1]
    flips_t = sw["flips"][:, :, -1]
    slopes = [fit_loglog(widths, delta_t[s]).slope for s in range(opt.seeds)] if len(widths) > 1 else [np.nan]
    ratio = sw["loss"][:, :, -1] / sw["loss"][:, :, 0]
    measured = {
        "rate_violations_within_K_b": int(sum(c[-1]["violations_within_K_b"] for c in checks)),
        "delta_slope": np.asarray(slopes),
        "flip_drop_min": float(np.min(-np.diff(flips_t, axis=1))) if len(widths) > 1 else float("nan"),
        "loss_ratio": ratio[:, -1],
    }
    details = {
        "n": opt.n,
        "widths": widths.tolist(),
        "steps": opt.steps,
        "lambda0": sw["lambda0"].tolist(),
        "lambda_max": sw["lambda_max"].tolist(),
        "K_b": [c[-1]["K_b"] for c in checks],
        "first_fail_k_per_width": [[c["first_fail_k"] for c in row] for row in checks],  # −1: never fails
        "violations_within_K_b_per_width": [[c["violations_within_K_b"] for c in row] for row in checks],
        "delta_max_T": delta_t.tolist(),
        "flips_T": flips_t.tolist(),
        "loss_ratio_per_width": ratio.tolist(),
        "ntk_lambda_min_init": sw["ntk_lmin_init"].tolist(),
        "ntk_lambda_min_final": sw["ntk_lmin_final"].tolist(),
        "gram_drift_rel": sw["gram_drift"].tolist(),
        "reading": "finite-width reading of Du et al. (2019): the bound is tested on k <= K_b at the largest width",
    }
    fig = figures.optimisation(sw, widths)
    return Measurement(
        measured=measured,
        n=opt.seeds,
        details=details,
        figures={"optimisation": fig},
        captions={"optimisation": figures.OPTIMISATION_CAPTION},
    )
