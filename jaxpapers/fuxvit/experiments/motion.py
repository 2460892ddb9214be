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
from jaxpapers.fuxvit.figures import LEARNING_CAPTION, loss_curves

__all__ = ["measure_fusion", "measure_static"]  # measure_static (F8b) is the one of F7c


def measure_fusion(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F8a (position-coded) and F8c (plain RGB): FuxViT's held-out accuracy on the worst of
    ``cfg.judge_seeds`` seeds (``cfg.seed``, ``cfg.seed + 1``, ...; each draws its own clips and init)."""
    del key  # the config's seeds drive data and init
    seeds = [cfg.seed + i for i in range(cfg.get("judge_seeds", 1))]
    runs = [studies.trained(with_seed(cfg, s), cfg.model.attn_impl) for s in seeds]
    accuracy = [float(r["accuracy"]) for r in runs]
    return Measurement(
        measured=min(accuracy),
        n=cfg.data.num_eval,
        details={
            "accuracy_per_seed": dict(zip(seeds, accuracy, strict=True)),
            "chance_accuracy": 1.0 / cfg.data.num_classes,
            "variant": cfg.variant,
            "steps": cfg.train.steps,
            "final_train_loss": runs[0]["history"][-1]["loss"],
        },
        figures={
            "loss": loss_curves(
                {f"fuxvit (seed {seeds[0]})": runs[0]},
                f"motion direction ({cfg.variant})",
                num_classes=cfg.data.num_classes,
            )
        },
        captions={
            "loss": LEARNING_CAPTION + f" Shown: the first of {len(seeds)} judging seeds; the claim takes the worst."
        },
    )


def with_seed(cfg: ml_collections.ConfigDict, seed: int) -> ml_collections.ConfigDict:
    """A copy of ``cfg`` with ``seed`` (data, held-out set and initialisation all follow it)."""
    out = ml_collections.ConfigDict(cfg.to_dict())
    out.seed = seed
    return out
