"""Claim C6 (full preset, GPU): ResNet-32 on CIFAR-LT, ERM against Head-then-Tail training with replay.

:func:`measure_cifar_lt` reads the CIFAR **binary** archive from ``cfg.data.root``, builds the exponential
long-tailed train split with the LDAM-DRW draw (``seed``), and trains :class:`~jaxpapers.cltr.models.ResNet32`
with the LDAM-DRW recipe (SGD momentum 0.9, batch 128, weight decay 2e-4, linear warm-up then step decay x0.1,
random crop with 4-pixel padding and horizontal flip):

* ERM on the whole LT split for ``epochs``;
* CLTR-replay: the Head partition (first half of the classes by frequency) for ``epochs``, then the Tail
  partition plus ``replay_per_class`` random exemplars of every Head class for ``tail_epochs`` (same recipe,
  schedule scaled), from the Head model.

Top-1 accuracy on the balanced test set, overall and on the Head / Tail classes, per seed. Every SGD step of
every stage and seed runs one compiled program (minibatch, learning rate and decay are its arguments). Skipped when
``data.root`` is not set or holds no binary archive; nothing is downloaded.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax

from jaxpapers.cltr.data.lt import lt_counts, make_long_tailed
from jaxpapers.cltr.models import ResNet32
from jaxpapers.core.claims import Measurement
from jaxpapers.core.data.cifar import load_cifar10, load_cifar100
from jaxpapers.core.errors import ClaimSkipped, ConfigError

MEAN = np.asarray([0.4914, 0.4822, 0.4465], np.float32)
STD = np.asarray([0.2470, 0.2435, 0.2616], np.float32)


def _augment(key, x):
    """Random crop (4-pixel zero padding) and horizontal flip of a batch ``[B, H, W, 3]``."""
    b, h, w, _ = x.shape
    k1, k2, k3 = jax.random.split(key, 3)
    pad = jnp.pad(x, ((0, 0), (4, 4), (4, 4), (0, 0)))
    dy = jax.random.randint(k1, (b,), 0, 9)
    dx = jax.random.randint(k2, (b,), 0, 9)
    crop = jax.vmap(lambda im, i, j: jax.lax.dynamic_slice(im, (i, j, 0), (h, w, 3)))(pad, dy, dx)
    flip = jax.random.bernoulli(k3, 0.5, (b,))
    return jnp.where(flip[:, None, None, None], crop[:, :, ::-1], crop)


def schedule(cfg, epochs: int, steps_per_epoch: int) -> optax.Schedule:
    """Linear warm-up over ``warmup_epochs``, then ``lr`` x0.1 at 80% and 90% of ``epochs`` (160/180 of 200)."""
    warm = max(1, int(cfg.warmup_epochs * steps_per_epoch))
    base = optax.linear_schedule(cfg.lr / warm, cfg.lr, warm)
    b1, b2 = int(0.8 * epochs * steps_per_epoch), int(0.9 * epochs * steps_per_epoch)
    decay = optax.piecewise_constant_schedule(cfg.lr, {b1 - warm: 0.1, b2 - warm: 0.1})
    return optax.join_schedules([base, decay], [warm])


@functools.partial(jax.jit, static_argnames=("num_classes", "blocks"), donate_argnums=(0, 1))
def sgd_step(variables, momentum, xb, yb, key, lr, weight_decay, *, num_classes: int, blocks: int):
    """One SGD step (momentum 0.9, coupled weight decay, as torch.optim.SGD) on an augmented minibatch; the
    learning rate and decay are arguments, so every stage and seed of a run shares this one program."""
    model = ResNet32(num_classes, blocks=blocks)
    xb = _augment(key, xb)

    def loss(p):
        logits, new = model.apply({**variables, "params": p}, xb, train=True, mutable=["batch_stats"])
        return optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean(), new

    (val, new), g = jax.value_and_grad(loss, has_aux=True)(variables["params"])
    g = jax.tree.map(lambda gi, pi: gi + weight_decay * pi, g, variables["params"])
    momentum = jax.tree.map(lambda m, gi: 0.9 * m + gi, momentum, g)
    params = jax.tree.map(lambda pi, m: pi - lr * m, variables["params"], momentum)
    return {**new, "params": params}, momentum, val


def train_resnet(x, y, num_classes: int, cfg, epochs: int, key, variables=None):
    """SGD training of ResNet32 on ``(x [N, 32, 32, 3] float, y [N])`` (shuffled minibatches, last partial batch
    dropped); returns the variables (``variables``: continue from these, with fresh momentum)."""
    model = ResNet32(num_classes, blocks=cfg.blocks)
    bs = min(cfg.batch_size, len(y))
    steps = len(y) // bs
    k_init, key = jax.random.split(key)
    if variables is None:
        variables = jax.jit(functools.partial(model.init, train=False))(k_init, jnp.zeros((1, *x.shape[1:])))
    momentum = jax.tree.map(jnp.zeros_like, variables["params"])
    lr = schedule(cfg, epochs, steps)
    rng = np.random.default_rng(int(jax.random.randint(key, (), 0, 2**31 - 1)))
    t = 0
    for _ in range(epochs):
        perm = rng.permutation(len(y))[: steps * bs].reshape(steps, bs)
        for idx in perm:
            key, k = jax.random.split(key)
            variables, momentum, _ = sgd_step(
                variables,
                momentum,
                jnp.asarray(x[idx]),
                jnp.asarray(y[idx]),
                k,
                jnp.float32(lr(t)),
                jnp.float32(cfg.weight_decay),
                num_classes=num_classes,
                blocks=cfg.blocks,
            )
            t += 1
    return variables


def accuracy(variables, x, y, num_classes: int, blocks: int, head_classes) -> dict[str, float]:
    """Top-1 overall / Head / Tail accuracy on a (balanced) test set."""
    model = ResNet32(num_classes, blocks=blocks)
    apply = jax.jit(lambda v, xb: jnp.argmax(model.apply(v, xb), -1))
    pred = np.concatenate([np.asarray(apply(variables, jnp.asarray(x[i : i + 1000]))) for i in range(0, len(y), 1000)])
    ok = pred == y
    head = np.isin(y, head_classes)
    return {"overall": float(ok.mean()), "head": float(ok[head].mean()), "tail": float(ok[~head].mean())}


def measure_cifar_lt(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """C6: per seed, ERM and CLTR-replay top-1 (overall, Head, Tail) on CIFAR-LT; ``gain_points`` = mean
    (CLTR - ERM) overall accuracy in percentage points."""
    del key
    d = cfg.data
    if d.classes not in (10, 100):
        raise ConfigError(f"data.classes={d.classes} is not allowed; choose 10 or 100")
    load = load_cifar10 if d.classes == 10 else load_cifar100
    if not d.root:
        raise ClaimSkipped(f"no CIFAR-{d.classes} binary archive: set --config.data.root=<folder>")
    xtr, ytr = load(d.root, "train")
    xte, yte = load(d.root, "test")
    norm = lambda a: ((a.astype(np.float32) / 255.0) - MEAN) / STD  # noqa: E731
    n_max = int(np.bincount(ytr, minlength=d.classes).min())
    counts = lt_counts(d.classes, n_max, d.imbalance, "exp")
    head_classes = np.arange((d.classes + 1) // 2)
    t = cfg.train
    rows = {"erm": [], "cltr_replay": []}
    for seed in range(cfg.seeds):
        idx = make_long_tailed(ytr, counts, seed)
        x, y = norm(xtr[idx]), ytr[idx]
        key = jax.random.key(seed)
        erm = train_resnet(x, y, d.classes, t, t.epochs, key)
        rows["erm"].append(accuracy(erm, norm(xte), yte, d.classes, t.blocks, head_classes))
        is_head = np.isin(y, head_classes)
        head = train_resnet(x[is_head], y[is_head], d.classes, t, t.epochs, key)
        rs = np.random.RandomState(10_000 + seed)
        replay = np.concatenate(
            [
                rs.choice(np.flatnonzero(y == c), min(t.replay_per_class, int(np.sum(y == c))), replace=False)
                for c in head_classes
            ]
        )
        tail = np.concatenate([np.flatnonzero(~is_head), replay])
        cltr = train_resnet(x[tail], y[tail], d.classes, t, t.tail_epochs, jax.random.fold_in(key, 1), head)
        rows["cltr_replay"].append(accuracy(cltr, norm(xte), yte, d.classes, t.blocks, head_classes))
    overall = {m: np.asarray([r["overall"] for r in v]) for m, v in rows.items()}
    return Measurement(
        measured={
            "gain_points": float(100 * (overall["cltr_replay"] - overall["erm"]).mean()),
            "erm_overall_mean": float(overall["erm"].mean()),
            "cltr_overall_mean": float(overall["cltr_replay"].mean()),
        },
        n=cfg.seeds,
        details={"per_seed": rows, "counts": counts.tolist(), "lt_size": int(counts.sum())},
    )
