"""Linear probes on dequantized tokens (spec U3/U4): softmax regression trained by the shared scan trainer.

A probe reads standardised, flattened features (statistics of its own training set), is trained for
``steps`` full-batch Adam steps at ``lr`` with an L2 penalty ``l2·‖W‖²``, and is scored by accuracy on
a test set. :func:`probe_accuracies` trains P probes at once (one jitted vmap of a ``lax.scan``, via
``core.train.make_seed_trainer``); :func:`probe_accuracy_loop` is the plain one-at-a-time reference.
Letters: P probes, n examples, D features, C classes.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import ArrayLike, Float, Int

from jaxpapers.core.checks import check_shape
from jaxpapers.core.train import OptimConfig, make_optimizer, make_seed_trainer
from jaxpapers.unialm.config import ProbeConfig


def standardise(train: jax.Array, test: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Both sets scaled by the training set's per-feature mean and std (std floored at 1e-3·mean std)."""
    mu = train.mean(0)
    sd = train.std(0)
    sd = jnp.maximum(sd, 1e-3 * jnp.mean(sd) + 1e-12)
    return (train - mu) / sd, (test - mu) / sd


def _loss_fn(l2: float, classes: int):
    def loss_fn(params, batch, key, *, train):
        logits = batch["x"] @ params["w"] + params["b"]
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, batch["y"]).mean()
        return ce + l2 * jnp.sum(params["w"] ** 2), {}

    return loss_fn


@functools.cache
def _trainer(cfg: ProbeConfig, dim: int, classes: int):
    tx = make_optimizer(OptimConfig(lr=cfg.lr), cfg.steps)
    init = lambda key, data: {"w": jnp.zeros((dim, classes)), "b": jnp.zeros((classes,))}  # noqa: E731
    return make_seed_trainer(init, _loss_fn(cfg.l2, classes), tx, lambda key, data: data, steps=cfg.steps)


def probe_accuracies(
    train_x: Float[ArrayLike, "p n d"],
    train_y: Int[ArrayLike, "p n"],
    test_x: Float[ArrayLike, "*p m d"],
    test_y: Int[ArrayLike, " m"],
    cfg: ProbeConfig,
    classes: int,
) -> np.ndarray:
    """Test accuracy of each of P probes (probe p trained on ``train_x[p]``, tested on ``test_x[p]``, or on a
    shared ``test_x [m, D]``), all in one jitted call."""
    train_x, test_x = jnp.asarray(train_x, jnp.float32), jnp.asarray(test_x, jnp.float32)
    check_shape("train_x", train_x.shape, (None, None, test_x.shape[-1]))
    check_shape("train_y", np.shape(train_y), train_x.shape[:2])
    p, _, d = train_x.shape
    if test_x.ndim == 2:
        test_x = jnp.broadcast_to(test_x, (p, *test_x.shape))
    check_shape("test_x", test_x.shape, (p, len(np.asarray(test_y)), d))
    std = jax.vmap(standardise)(train_x, test_x)
    run = _trainer(cfg, d, classes)
    res = run(jax.random.split(jax.random.key(0), p), {"x": std[0], "y": jnp.asarray(train_y, jnp.int32)})
    logits = jnp.einsum("pmd,pdc->pmc", std[1], res.params["w"]) + res.params["b"][:, None]
    return np.asarray(jnp.mean(jnp.argmax(logits, -1) == jnp.asarray(test_y)[None], axis=1))


def probe_accuracy_loop(
    train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray, cfg: ProbeConfig, classes: int
) -> float:
    """Reference: one probe, plain Python loop of Adam steps (optax), float32."""
    tr, te = standardise(jnp.asarray(train_x, jnp.float32), jnp.asarray(test_x, jnp.float32))
    params = {"w": jnp.zeros((tr.shape[1], classes)), "b": jnp.zeros((classes,))}
    tx = optax.adam(cfg.lr)
    state = tx.init(params)
    loss_fn = _loss_fn(cfg.l2, classes)
    grad = jax.jit(jax.grad(lambda p: loss_fn(p, {"x": tr, "y": jnp.asarray(train_y)}, None, train=True)[0]))
    for _ in range(cfg.steps):
        updates, state = tx.update(grad(params), state, params)
        params = optax.apply_updates(params, updates)
    pred = np.argmax(np.asarray(te @ params["w"] + params["b"]), -1)
    return float(np.mean(pred == np.asarray(test_y)))


def single_voice_sets(
    features: Float[ArrayLike, "n ..."],
    voice: Int[ArrayLike, " n"],
    label: Int[ArrayLike, " n"],
    heldout: ArrayLike,
    voices: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(train_x [P, n_v, D], train_y, test_x [m, D], test_y)``: one training voice per probe, all held-out clips."""
    f = np.asarray(features, np.float32).reshape(len(np.asarray(label)), -1)
    voice, label, heldout = np.asarray(voice), np.asarray(label), np.asarray(heldout, bool)
    rows = [np.nonzero((voice == v) & ~heldout)[0] for v in voices]
    if any(len(r) == 0 for r in rows) or len({len(r) for r in rows}) != 1:
        raise ValueError(f"probe.voices={voices} must name training voices with equally many clips")
    return f[np.stack(rows)], label[np.stack(rows)], f[heldout], label[heldout]
