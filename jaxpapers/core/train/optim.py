"""The one optimizer recipe: AdamW with a named learning-rate schedule, optional clipping and a decay mask.

Every paper builds its optimizer here from the config group ``optim`` (``to_dataclass(OptimConfig,
cfg.optim)``) and the number of steps, instead of writing its own ``optax.chain``.

Schedules (``lr`` is the peak rate, ``steps`` the run's length):

* ``constant``: ``lr`` throughout.
* ``cosine``: cosine decay from ``lr`` to ``final_lr_frac * lr`` over ``steps``.
* ``warmup_cosine``: linear warm-up over ``warmup_frac * steps`` steps (at least one), starting at
  ``lr / warmup`` so that the first step already moves the parameters, then cosine decay.
* ``stable_decay``: ``lr`` until the last ``decay_frac * steps`` steps, then cosine decay
  (warmup-stable-decay without the warm-up).
* ``exponential``: ``lr * decay_rate**step`` (PyTorch's ``ExponentialLR`` stepped every step, as DAC's
  generator and discriminator use with ``decay_rate=0.999996``); ``steps`` does not change it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import optax

from jaxpapers.core.checks import check_choice, check_range

SCHEDULES = ("constant", "cosine", "warmup_cosine", "stable_decay", "exponential")
DECAY_MASKS = ("all", "kernels")


@dataclasses.dataclass(frozen=True)
class OptimConfig:
    """AdamW hyperparameters and the schedule (the ``optim`` group of every training config)."""

    lr: float = 1e-3
    schedule: str = "constant"
    warmup_frac: float = 0.0
    decay_frac: float = 0.2
    final_lr_frac: float = 0.0
    decay_rate: float = 1.0  # ``exponential``: the factor per step
    b1: float = 0.9
    b2: float = 0.999
    eps: float = 1e-8
    weight_decay: float = 0.0
    decay_mask: str = "all"  # "kernels": decoupled weight decay on leaves named `kernel` only
    clip: float | None = None  # global gradient-norm clipping; None: off

    def __post_init__(self):
        check_range("optim.lr", self.lr, 0.0, lo_open=True)
        check_choice("optim.schedule", self.schedule, SCHEDULES)
        check_range("optim.warmup_frac", self.warmup_frac, 0.0, 1.0, hi_open=True)
        check_range("optim.decay_frac", self.decay_frac, 0.0, 1.0)
        check_range("optim.final_lr_frac", self.final_lr_frac, 0.0, 1.0)
        check_range("optim.decay_rate", self.decay_rate, 0.0, 1.0, lo_open=True)
        check_range("optim.b1", self.b1, 0.0, 1.0, hi_open=True)
        check_range("optim.b2", self.b2, 0.0, 1.0, hi_open=True)
        check_range("optim.eps", self.eps, 0.0)
        check_range("optim.weight_decay", self.weight_decay, 0.0)
        check_choice("optim.decay_mask", self.decay_mask, DECAY_MASKS)
        if self.clip is not None:
            check_range("optim.clip", self.clip, 0.0, lo_open=True)


def learning_rate(cfg: OptimConfig, steps: int) -> optax.Schedule | float:
    """The learning rate (a float for ``constant``, else an optax schedule of the step)."""
    check_range("steps", steps, 1)
    end = cfg.final_lr_frac
    if cfg.schedule == "constant":
        return cfg.lr
    if cfg.schedule == "exponential":
        return optax.exponential_decay(cfg.lr, transition_steps=1, decay_rate=cfg.decay_rate)
    if cfg.schedule == "cosine":
        return optax.cosine_decay_schedule(cfg.lr, steps, alpha=end)
    if cfg.schedule == "warmup_cosine":
        warmup = max(1, int(cfg.warmup_frac * steps))
        return optax.warmup_cosine_decay_schedule(
            cfg.lr / warmup, cfg.lr, warmup, max(steps, warmup + 1), end_value=end * cfg.lr
        )
    decay = max(int(round(cfg.decay_frac * steps)), 1)
    return optax.join_schedules(
        [optax.constant_schedule(cfg.lr), optax.cosine_decay_schedule(cfg.lr, decay, alpha=end)], [steps - decay]
    )


def kernel_mask(params: Any) -> Any:
    """True on leaves named ``kernel`` (dense weights), False on biases, norms and embeddings."""
    return jax.tree_util.tree_map_with_path(lambda path, _: getattr(path[-1], "key", None) == "kernel", params)


def make_optimizer(cfg: OptimConfig, steps: int) -> optax.GradientTransformation:
    """``clip -> adam -> decoupled weight decay -> -lr(step)``: AdamW (Loshchilov & Hutter 2019).

    With ``weight_decay=0`` the update equals plain Adam's exactly.
    """
    mask = kernel_mask if cfg.decay_mask == "kernels" else None
    adamw = optax.adamw(
        learning_rate(cfg, steps), b1=cfg.b1, b2=cfg.b2, eps=cfg.eps, weight_decay=cfg.weight_decay, mask=mask
    )
    if cfg.clip is None:
        return adamw
    return optax.chain(optax.clip_by_global_norm(cfg.clip), adamw)
