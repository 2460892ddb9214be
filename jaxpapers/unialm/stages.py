"""UniALM's four-stage recipe as optimizer masks (spec §5): which params train in each stage.

S1 align: the audio tables, the projection, the depth decoder and its heads train; the backbone (text embedding,
blocks, final norm) is frozen. S2 audio-text pre-training: the backbone trains too, at half the learning rate.
S3 specialisation: the experts are inserted (zero-initialised, :func:`insert_experts`) and everything trains.
S4 composed multi-task training: everything trains. Freezing is ``optax.multi_transform`` over a label pytree
built from parameter paths: frozen params get ``optax.set_to_zero`` (no update, no optimizer state).
:func:`train_stages` runs the four stages at toy size (one ``lax.scan`` per stage) on :func:`toy_batches`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import flax.linen as nn
import jax
import numpy as np
import optax

from jaxpapers.core import sim
from jaxpapers.core.checks import check_choice
from jaxpapers.unialm import sequence
from jaxpapers.unialm.lm import UniALM, UniALMConfig, lm_loss

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


def toy_batches(
    cfg: UniALMConfig, rng: np.random.Generator, steps: int, batch_size: int, length: int, *, packed: int = 1
) -> dict[str, np.ndarray]:
    """``steps`` fixed-shape batches ``[steps, B, length, ...]`` of random toy examples (tasks asr, tts,
    audio_only and text_only with random codes and ids; 2-frame A and 3-frame R segments); ``packed`` examples
    are composed into each sequence (:func:`sequence.pack`, stage 4)."""
    tasks = ("asr", "tts", "audio_only", "text_only")
    vocab = sequence.Vocab(cfg)
    seqs = []
    for i in range(steps * batch_size):
        examples = []
        for j in range(packed):
            task = tasks[(i * packed + j) % len(tasks)]
            parts = sequence.random_parts(task, cfg, rng, n_text=3, n_a=2, n_r=3)
            segs = sequence.format_example(task, parts, prompt=rng.integers(0, vocab.ordinary_text, 2))
            examples.append(sequence.render(segs, cfg))
        seqs.append(sequence.pack(examples, length))
    batch = sequence.collate(seqs, length, cfg)
    return {k: v.reshape(steps, batch_size, *v.shape[1:]) for k, v in batch.items() if k != "valid"}


def _loss_fn(model: UniALM):
    def loss(params, batch):
        out = model.apply(params, batch["frames"], batch["audio"], batch["positions"])
        return lm_loss(out, batch["frames"], batch["loss_mask"])

    return loss


def _stage_runner(model: UniALM, tx: optax.GradientTransformation):
    """``run(params, data [steps, ...]) -> (params, opt_state, losses [steps])``: the optimizer's init and one
    ``lax.scan`` over the steps, in one program."""
    loss = _loss_fn(model)

    @functools.partial(jax.jit, compiler_options=sim.fast_compile_options())
    def run(params, data):
        opt_state = tx.init(params)

        def step(carry, batch):
            p, s = carry
            (value, _), g = jax.value_and_grad(loss, has_aux=True)(p, batch)
            updates, s = tx.update(g, s, p)
            return (optax.apply_updates(p, updates), s), value

        (params, opt_state), losses = jax.lax.scan(step, (params, opt_state), data)
        return params, opt_state, losses

    return run


def _labels_flat(params: Any, stage: str) -> list[str]:
    return jax.tree.leaves(stage_labels(params, stage))


def train_stages(cfg: UniALMConfig, run: Any, key: jax.Array, rng: np.random.Generator) -> dict[str, Any]:
    """The four-stage recipe at toy size (spec §5): S1 and S2 train an expert-free model, S3 inserts the experts
    (zero-initialised, :func:`insert_experts`), S4 trains on composed sequences (``run.packed`` examples per
    sequence). Each stage is ``run.steps`` AdamW steps (lr ``run.lr``, weight decay ``run.weight_decay``) in
    one ``lax.scan``; S3 and S4 share their compiled program. Returns per stage the number of frozen leaves
    that changed, the share of trainable leaves that moved and the first/last loss; and the largest logit
    difference between the S2 model and the S3 model right after insertion."""
    steps, b, length = run.steps, run.batch_size, run.length
    plain_cfg = dataclasses.replace(cfg, understanding_layers=0, generation_layers=0)
    plain, full = UniALM(plain_cfg), UniALM(cfg)
    data = {s: toy_batches(cfg, rng, steps, b, length, packed=run.packed if s == "S4" else 1) for s in STAGES}
    first = {k: v[0] for k, v in data["S1"].items()}
    k1, k3 = jax.random.split(key)
    fast = sim.fast_compile_options()
    args = (first["frames"], first["audio"], first["positions"])
    params = nn.meta.unbox(jax.jit(plain.init, compiler_options=fast)(k1, *args))
    runners: dict[str, Any] = {}
    out: dict[str, Any] = {"stages": {}}
    for stage in STAGES:
        if stage == "S3":
            fresh = nn.meta.unbox(jax.jit(full.init, compiler_options=fast)(k3, *args))
            inserted = insert_experts(params, fresh)
            before = jax.jit(plain.apply, compiler_options=fast)(params, *args)
            after = jax.jit(full.apply, compiler_options=fast)(inserted, *args)
            out["insertion_max_diff"] = float(max(np.abs(np.asarray(before[k]) - np.asarray(after[k])).max()
                                                  for k in ("text_logits", "audio_logits")))  # fmt: skip
            params = inserted
        model = plain if stage in ("S1", "S2") else full
        tx = stage_optimizer(lambda lr: optax.adamw(lr, weight_decay=run.weight_decay), run.lr, params, stage)
        group = "S34" if stage in ("S3", "S4") else stage
        if group not in runners:
            runners[group] = _stage_runner(model, tx)
        new, _, losses = runners[group](params, data[stage])
        labels = _labels_flat(params, stage)
        old_leaves, new_leaves = jax.device_get(jax.tree.leaves(params)), jax.device_get(jax.tree.leaves(new))
        moved = [bool(np.any(a != b)) for a, b in zip(old_leaves, new_leaves, strict=True)]
        frozen = [m for m, lab in zip(moved, labels, strict=True) if lab == "frozen"]
        train = [m for m, lab in zip(moved, labels, strict=True) if lab != "frozen"]
        out["stages"][stage] = {
            "frozen_changed": int(sum(frozen)),
            "frozen_leaves": len(frozen),
            "trainable_moved_frac": float(np.mean(train)) if train else 0.0,
            "loss_first": float(np.asarray(losses)[0]),
            "loss_last": float(np.asarray(losses)[-1]),
        }
        params = new
    out["params"] = params
    return out
