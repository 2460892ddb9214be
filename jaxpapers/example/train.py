"""Training TinyLM on the copy task: the loss factory and the entry point ``train``.

Layout rule: a model paper's ``train(cfg, workdir, *, mesh=None, rules=None, progress=True)`` converts the
config groups to typed dataclasses, builds the model, data and optimiser, and hands them to the core recipe
``core.train.train_model`` (sharded state, jitted step and eval, checkpoints, resume). ``jaxpapers train``
(``launch/train.py``) calls it with the mesh and the logical-axis rules of ``cfg.rules_family`` and
``cfg.strategy``; claims call it without (one device, replicated). Papers never import ``jaxpapers.launch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import optax

from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.train import FitResult, LoopConfig, OptimConfig, learning_rate, make_optimizer, train_model
from jaxpapers.core.train.step import LossFn
from jaxpapers.example.config import CopyDataConfig, TinyLMConfig
from jaxpapers.example.data import copy_task
from jaxpapers.example.model import TinyLM


def make_loss_fn(model: TinyLM) -> LossFn:
    """``loss_fn(params, batch, key, *, train) -> (loss, {"accuracy"})``: masked next-token cross-entropy.

    The loss is in nats per copied token (the mean over the positions where ``batch["loss_mask"]`` is 1);
    accuracy is the argmax hit rate on the same positions.
    """

    def loss_fn(
        params: Any, batch: Mapping[str, jax.Array], key: jax.Array, *, train: bool
    ) -> tuple[jax.Array, dict[str, jax.Array]]:
        del key, train  # no dropout in TinyLM
        tokens, mask = batch["tokens"], batch["loss_mask"]
        logits = model.apply({"params": params}, tokens[:, :-1])
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:])
        denom = jnp.maximum(mask.sum(), 1.0)
        accuracy = ((logits.argmax(-1) == tokens[:, 1:]) * mask).sum() / denom
        return (ce * mask).sum() / denom, {"accuracy": accuracy}

    return loss_fn


def train(
    cfg: ml_collections.ConfigDict,
    workdir: str | None,
    *,
    mesh: jax.sharding.Mesh | None = None,
    rules: sharding_lib.Rules | None = None,
    progress: bool = True,
) -> FitResult:
    """Trains TinyLM on generated copy-task data; resumes from ``workdir`` if it holds a checkpoint.

    Training data are drawn with ``cfg.seed`` and the held-out set with ``cfg.seed + 1``; the returned
    history holds ``eval/loss`` and ``eval/accuracy`` on the held-out set (every ``train.eval_every``
    steps and at the end) and ``state.params`` the final parameters.
    """
    model_cfg = to_dataclass(TinyLMConfig, cfg.model)
    data_cfg = to_dataclass(CopyDataConfig, cfg.data)
    loop = to_dataclass(LoopConfig, cfg.train)
    optim = to_dataclass(OptimConfig, cfg.optim)
    tx = make_optimizer(optim, loop.steps)
    model = TinyLM(model_cfg)

    def data(num: int, seed: int) -> dict[str, Any]:
        return copy_task(num, half_len=data_cfg.half_len, vocab_size=model_cfg.vocab_size, seed=seed)

    example = jnp.zeros((1, data_cfg.seq_len - 1), jnp.int32)
    return train_model(
        lambda k: model.init(k, example)["params"],
        make_loss_fn(model),
        tx,
        train_batches(ArraySource(data(data_cfg.num_train, cfg.seed)), loop.batch_size, seed=cfg.seed),
        loop=loop,
        key=jax.random.key(cfg.seed),
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        eval_batch=data(data_cfg.num_eval, cfg.seed + 1),
        model_config=cfg.model,
        progress=progress,
        description="copy",
        learning_rate=learning_rate(optim, loop.steps),
        tokens_per_example=data_cfg.seq_len - 1,
    )
