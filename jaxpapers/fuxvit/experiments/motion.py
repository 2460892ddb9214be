"""F8a/F8b/F8c: motion direction (spec F8). FuxViT (gated FSA, k = 2, tubelet 1) and the static
per-frame ViT (k = 0) are trained by ``studies.trained`` on the same clips from the same initial
params; a linear head reads tokens mean-pooled over all frames.

F8b's static control is ``needle.measure_static`` (the same measurement on this task's config).
The config's variant picks the data: ``position`` (F8a, F8b: shapes carry x/y ramps, 5 channels)
or ``rgb`` (F8c: plain RGB); see ``configs/fuxvit/motion.py``.
"""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.fuxvit import studies
from jaxpapers.fuxvit.experiments.needle import measure_static
from jaxpapers.fuxvit.figures import loss_curves

__all__ = ["measure_fusion", "measure_static"]  # measure_static (F8b) is the one of F7c


def measure_fusion(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F8a (position-coded) and F8c (plain RGB): held-out accuracy of FuxViT."""
    del key  # the config's seed drives data and init
    fux = studies.trained(cfg, cfg.model.attn_impl)
    return Measurement(
        measured=fux["accuracy"],
        n=cfg.data.num_eval,
        details={
            "chance_accuracy": 1.0 / cfg.data.num_classes,
            "variant": cfg.variant,
            "steps": cfg.train.steps,
            "final_train_loss": fux["history"][-1]["loss"],
        },
        figures={"loss": loss_curves({"fuxvit": fux}, f"motion direction ({cfg.variant})")},
    )
