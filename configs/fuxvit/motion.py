"""FuxViT claims F8a/F8b/F8c: early spatiotemporal fusion encodes motion that a static per-frame ViT cannot.

What is reproduced: a linear head on tokens mean-pooled over all frames classifies the direction
(4-way) of moving shapes. Both models use tubelet t_p = 1, so motion is visible only across frames
(with t_p = 2 the patch embedding itself would see it). The start of each path is uniform over the
positions that keep it inside the frame, so the set of frames carries no direction; RoPE is the
only position signal and its temporal rotation cancels inside a frame, so the static per-frame ViT
(k = 0) sees no time at all and must stay near chance (0.25).

Variants (the data, the same in every preset):

* ``position`` (default; F8a, F8b): position-coded shapes, 5 channels: RGB plus x and y ramps drawn
  only inside the shape (0 outside), so a token states where the shape's pixels are. An unordered
  set of frames still carries no direction; only comparing positions across frames in order does.
* ``rgb`` (F8c): plain RGB clips. Direction is then a product of two frames' pixels and needs
  thousands of steps even with dense attention (README), so F8c is reported in quick and judged in
  the full preset.

    jaxpapers verify fuxvit/F8a fuxvit/F8b fuxvit/F8c                           # quick: ~20-40 s each on 2 CPU cores
    jaxpapers train --config configs/fuxvit/motion.py --workdir /tmp/motion     # the FuxViT model alone
    jaxpapers verify fuxvit/F8c --preset full                                   # plain RGB at b16, T = 32 (accelerator)

Expected (quick): see the README's results table. The quick budget is the spec's (batch 16, 300
steps); lr is our choice (the spec's 1.5e-4·batch/256 is the pretraining rate): 1e-3 for the
position-coded task (set on seeds 0-2; judged on three fresh seeds from 20261201, the worst one
counts), 5e-4 for plain RGB (chosen on the tubelet-2 control, see the README).
Presets: ``tiny`` (tests), ``quick`` (T = 8 frames of P = 16 tokens, D = 64, L = 2, H = 4, k = 2,
batch 16, 300 steps per model), ``full`` (b16, T = 32, 224 px, 5,000 steps).
"""

import dataclasses

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.fuxvit.config import FuxViTConfig, classify_data

VARIANTS = ("position", "rgb")


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg, variants=VARIANTS, default_variant="position")
    position = a.variant == "position"
    cfg = ml_collections.ConfigDict()
    cfg.preset, cfg.variant = a.preset, a.variant
    # F8a is judged on the worst of `judge_seeds` seeds from `seed` on. The quick budget and lr were
    # chosen on seeds 0-2 (the review's 0/1, ours 0/1/2), so the judging seeds are fresh draws.
    cfg.seed = 20261201
    cfg.judge_seeds = 3 if position else 1  # F8c (rgb) is a report in quick: one run says what it can
    cfg.task = "classify"
    cfg.rules_family = "fuxvit"
    cfg.strategy = "fsdp"
    channels = 5 if position else 3
    cfg.model = ml_collections.ConfigDict(
        dataclasses.asdict(FuxViTConfig.tiny(k_frames=2, fsa_mode="gated", tubelet=1, channels=channels))
    )
    cfg.data = ml_collections.ConfigDict(
        classify_data(task="moving_shapes", num_classes=4, pool="all", radius=(3, 5), position_channels=position)
    )
    cfg.train = ml_collections.ConfigDict(dict(steps=300, batch_size=16, log_every=50, eval_every=300, ckpt_every=300))
    cfg.optim = ml_collections.ConfigDict(
        dict(
            lr=1e-3 if position else 5e-4,
            schedule="warmup_cosine",
            warmup_frac=0.05,
            b1=0.9,
            b2=0.95,
            weight_decay=0.05,
            clip=1.0,
        )
    )

    if a.preset == "tiny":
        cfg.model.update(dim=32, depth=1, num_heads=2, mlp_dim=64)
        cfg.data.update(num_train=32, num_eval=16)
        cfg.train.update(steps=4, batch_size=8, log_every=2, eval_every=4, ckpt_every=4)
        cfg.judge_seeds = 1
    elif a.preset == "full":
        cfg.model = ml_collections.ConfigDict(
            dataclasses.asdict(FuxViTConfig.b16(k_frames=8, tubelet=1, channels=channels))
        )
        cfg.data.update(frames=32, size=224, patch=16, min_speed=3.0, radius=(12, 30), num_train=100_000, num_eval=2048)
        cfg.train.update(steps=5000, batch_size=64, log_every=100, eval_every=1000, ckpt_every=1000)
        cfg.optim.update(lr=3e-4)
        cfg.judge_seeds = 3  # judged in full, as F8a: the worst of three seeds
    return cfg
