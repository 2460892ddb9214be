"""FM6 of ``flow_matching``: minibatch CFM (fresh x₀, t every step) of the two-layer ReLU field on images.

    jaxpapers verify flow_matching/FM6                  # quick: sklearn digits (8×8), n ∈ {256, 1024}, 500 Adam steps
    jaxpapers verify flow_matching/FM6 --preset full    # MNIST from IDX files: set images.data_dir
    jaxpapers verify flow_matching/FM6 --preset full --config.images.dataset=cifar10 \
        --config.images.data_dir=/data/cifar-10-batches-bin --config.images.ns=1000,4000,16000,40000
                                                        # CIFAR-10 (binary archive; 50,000 training images)

The tiny and full presets also train the deeper ``MLPVelocity`` baseline (report-only, FM6's details) on the
same splits and keys; quick leaves it off (it doubles FM6's 12 s) and ``--config.images.baseline_depth=3`` turns it
on there.

Groups: ``images`` -> ``flow_matching.config.ImageConfig``, ``optim`` -> ``core.train.OptimConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.images = ml_collections.ConfigDict(
        dict(
            dataset="digits",
            data_dir="",
            held_out=512,
            ns=(256, 1024),
            width=1024,
            steps=500,
            batch_size=256,
            eval_draws=64,
            seeds=3,
            sinkhorn_iters=200,
            sinkhorn_eps=0.05,
            solver_steps=50,
            baseline_width=256,
            baseline_depth=0,
        )
    )
    cfg.optim = ml_collections.ConfigDict(dict(lr=3e-3, schedule="constant"))
    if a.preset == "tiny":
        cfg.images.update(held_out=64, ns=(32, 128), width=64, steps=10, batch_size=32, eval_draws=4, seeds=2,
                          sinkhorn_iters=10, solver_steps=4, baseline_width=16, baseline_depth=2)
    elif a.preset == "full":
        cfg.images.update(dataset="mnist", held_out=10_000, ns=(1000, 4000, 16000, 60000 - 10_000), width=32768,
                          steps=20_000, sinkhorn_iters=500, baseline_width=2048, baseline_depth=4)
    return cfg
