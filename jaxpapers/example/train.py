"""Training TinyLM on the copy task through the shared trainer (the pattern for model papers)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import optax

from jaxpapers.core import config as config_lib
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.train import FitResult, fit, init_state, make_train_step
from jaxpapers.example.data import copy_task
from jaxpapers.example.model import TinyLM, TinyLMConfig
from jaxpapers.launch import rules as rules_lib


def loss_fn(model: TinyLM):
    """Masked next-token cross-entropy (nats per copied token) and accuracy on the copied half."""

    def compute(params: Any, batch: dict[str, jax.Array], key: jax.Array, *, train: bool) -> tuple[jax.Array, dict]:
        del key, train  # no dropout in TinyLM
        tokens, mask = batch["tokens"], batch["loss_mask"]
        logits = model.apply({"params": params}, tokens[:, :-1])
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:])
        denom = jnp.maximum(mask.sum(), 1.0)
        accuracy = ((logits.argmax(-1) == tokens[:, 1:]) * mask).sum() / denom
        return (ce * mask).sum() / denom, {"accuracy": accuracy}

    return compute


def evaluate(model: TinyLM, params: Any, batch: dict[str, Any]) -> dict[str, float]:
    """Held-out loss and accuracy on the copied half."""
    loss, aux = loss_fn(model)(params, jax.tree.map(jnp.asarray, batch), jax.random.key(0), train=False)
    return {"loss": float(loss), "accuracy": float(aux["accuracy"])}


def make_optimizer(cfg: ml_collections.ConfigDict) -> optax.GradientTransformation:
    """AdamW with linear warm-up and cosine decay, gradients clipped to norm 1."""
    schedule = optax.warmup_cosine_decay_schedule(0.0, cfg.lr, cfg.warmup_steps, max(cfg.steps, cfg.warmup_steps + 1))
    return optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=cfg.weight_decay))


def train(
    cfg: ml_collections.ConfigDict, workdir: str | None, *, mesh: jax.sharding.Mesh | None = None, progress: bool = True
) -> FitResult:
    """Trains TinyLM on generated copy-task data; resumes from ``workdir`` if it holds a checkpoint.

    The returned history holds ``eval/loss`` and ``eval/accuracy`` on a held-out set.
    """
    model_cfg = config_lib.to_dataclass(TinyLMConfig, cfg.model)
    model = TinyLM(model_cfg)
    rules = rules_lib.get("transformer", cfg.strategy)
    d = cfg.data
    train_data = copy_task(d.num_train, half_len=d.half_len, vocab_size=model_cfg.vocab_size, seed=cfg.seed)
    eval_data = copy_task(d.num_eval, half_len=d.half_len, vocab_size=model_cfg.vocab_size, seed=cfg.seed + 1)
    batches = train_batches(ArraySource(train_data), cfg.train.batch_size, seed=cfg.seed)

    tx = make_optimizer(cfg.train)
    example = jnp.zeros((1, 2 * d.half_len - 1), jnp.int32)
    state, shardings = init_state(
        lambda k: model.init(k, example)["params"], tx, jax.random.key(cfg.seed), mesh=mesh, rules=rules
    )
    eval_batch = jax.tree.map(jnp.asarray, eval_data)
    eval_step = jax.jit(lambda p: loss_fn(model)(p, eval_batch, jax.random.key(0), train=False))

    def eval_fn(s) -> dict[str, Any]:
        loss, aux = eval_step(s.params)
        return {"loss": loss, **aux}

    t = cfg.train
    return fit(
        state,
        make_train_step(loss_fn(model), tx),
        batches,
        num_steps=t.steps,
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        shardings=shardings,
        log_every=t.log_every,
        ckpt_every=t.ckpt_every,
        eval_fn=eval_fn,
        eval_every=t.eval_every,
        model_config=cfg.model,
        progress=progress,
        description="copy",
    )
