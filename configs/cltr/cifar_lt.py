"""CLTR claim C6 (full preset, accelerator): ResNet-32 on CIFAR-100-LT (exponential profile, IF = 100, LDAM-DRW
draw), ERM against Head-then-Tail training with replay (20 exemplars per Head class), 5 seeds, the LDAM-DRW
recipe (SGD momentum 0.9, lr 0.1, batch 128, weight decay 2e-4, 5 warm-up epochs, x0.1 at 80% / 90%, 200
epochs; Tail stage 100 epochs). The binary archive is read from ``data.root``; nothing is downloaded.

    jaxpapers verify cltr/C6 --preset full --config.data.root=/data/cifar-100-binary   # GPU

Expected: not measured (no data or accelerator at build time); skipped on a CPU and without ``data.root``.
Presets: ``tiny`` (tests, on binary files the tests write), ``full``. Groups: ``data`` (root, classes,
imbalance), ``train`` (the recipe).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.seeds = 5
    cfg.data = ml_collections.ConfigDict(dict(root="", classes=100, imbalance=100.0))
    cfg.train = ml_collections.ConfigDict(
        dict(
            blocks=5,
            lr=0.1,
            batch_size=128,
            weight_decay=2e-4,
            warmup_epochs=5,
            epochs=200,
            tail_epochs=100,
            replay_per_class=20,
        )
    )
    if a.preset == "tiny":
        cfg.seeds = 1
        cfg.data.update(classes=10, imbalance=2.0)
        cfg.train.update(blocks=1, batch_size=8, warmup_epochs=1, epochs=2, tail_epochs=1, replay_per_class=2)
    return cfg
