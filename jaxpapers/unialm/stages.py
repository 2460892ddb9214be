"""UniALM's four-stage recipe as optimizer masks (spec §5): which params train in each stage.

S1 align: the audio tables, the projection, the depth decoder and its heads train; the backbone (text embedding,
blocks, final norm) is frozen. S2 audio-text pre-training: the backbone trains too, at half the learning rate.
S3 specialisation: the experts are inserted (zero-initialised, :func:`insert_experts`) and everything trains.
S4 composed multi-task training: everything trains. Freezing is ``optax.multi_transform`` over a label pytree
built from parameter paths: frozen params get ``optax.set_to_zero`` (no update, no optimizer state).
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import optax

from jaxpapers.core.checks import check_choice

STAGES = ("S1", "S2", "S3", "S4")
BACKBONE = ("text_embed", "backbone", "final_norm")
AUDIO = ("audio_embed", "depth_in", "depth", "depth_norm", "audio_heads")
EXPERTS = ("understanding", "generation")


def _part(top: str) -> str:
    """The recipe's name for a top-level param (``backbone_3`` or the scanned ``backbone`` -> ``backbone``)."""
    for name in sorted(BACKBONE + AUDIO + EXPERTS, key=len, reverse=True):
        if top == name or (top.startswith(name + "_") and top[len(name) + 1 :].isdigit()):
            return name
    raise ValueError(f"unknown UniALM param {top!r}; known parts: {sorted(BACKBONE + AUDIO + EXPERTS)}")


def stage_labels(params: Any, stage: str) -> Any:
    """A pytree like ``params`` (the ``{"params": ...}`` dict or its inside) of ``"train"``, ``"half"``
    (train at half the learning rate) or ``"frozen"`` for ``stage``."""
    check_choice("stage", stage, STAGES)
    inner = params["params"] if "params" in params else params

    def label(top: str) -> str:
        part = _part(top)
        if stage == "S1":
            return "train" if part in AUDIO else "frozen"
        if stage == "S2":
            return "half" if part in BACKBONE else ("train" if part in AUDIO else "frozen")
        return "train"

    labels = {}
    for top, sub in inner.items():
        lab = label(top)
        labels[top] = jax.tree.map(lambda _, lab=lab: lab, sub)
    return {"params": labels} if "params" in params else labels


def stage_optimizer(tx_for_lr: Any, lr: float, params: Any, stage: str) -> optax.GradientTransformation:
    """``optax.multi_transform`` of ``tx_for_lr(lr)`` (train), ``tx_for_lr(lr / 2)`` (half) and
    ``optax.set_to_zero()`` (frozen) over :func:`stage_labels`."""
    labels = stage_labels(nn.meta.unbox(params), stage)
    return optax.multi_transform(
        {"train": tx_for_lr(lr), "half": tx_for_lr(lr / 2), "frozen": optax.set_to_zero()}, labels
    )


def insert_experts(stage2_params: Any, fresh_params: Any) -> Any:
    """S2 -> S3: ``fresh_params`` (an initialised model with experts, zero-initialised residual projections)
    with every param the S2 model has taken from ``stage2_params``; the result computes what the S2 model did."""
    old = stage2_params["params"]
    new = dict(fresh_params["params"])
    missing = sorted(set(old) - set(new))
    if missing:
        raise ValueError(f"the S2 params {missing} have no place in the S3 model")
    new.update(old)
    return {"params": new}
