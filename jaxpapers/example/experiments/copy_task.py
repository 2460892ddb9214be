"""Claim X1: TinyLM trained by the shared trainer learns the copy task.

``measure`` trains from ``cfg`` into a temporary workdir (the same run as ``jaxpapers train --config
configs/example/copy.py``) and measures the held-out loss and accuracy on the copied half. A unit test
recomputes the loss from the returned parameters in NumPy (``tests/example/test_experiments.py``).
"""

from __future__ import annotations

import math
import tempfile

import jax
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.example import figures
from jaxpapers.example.train import train


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """Held-out ``eval_loss`` (nats per copied token) and ``eval_accuracy`` after training.

    ``key`` is unused: ``cfg.seed`` drives data and initialisation, so ``jaxpapers train`` reproduces
    this run. ``predicted`` is empty (the claim is a criterion, not a theory value); chance level is in
    ``details``.
    """
    del key
    with tempfile.TemporaryDirectory() as workdir:
        result = train(cfg, workdir, progress=False)
    final = result.history[-1]
    steps, losses = result.series("loss")
    return Measurement(
        measured={"eval_loss": final["eval/loss"], "eval_accuracy": final["eval/accuracy"]},
        n=cfg.data.num_eval,
        details={
            "steps": int(steps[-1]),
            "first_train_loss": float(losses[0]),
            "chance_loss": math.log(cfg.model.vocab_size),
        },
        figures={"loss": figures.loss_curves(result.history, vocab_size=cfg.model.vocab_size)},
        captions={"loss": figures.CAPTION},
    )
