"""Gradient training of the exact losses on linear towers (spec "Claims" V2; claims V2a, V2b).

What is reproduced: on n = 20000 pairs of the clean (V2a) and contaminated (V2b) planted presets,
Adam (lr 1e-2, batch 512) on the exact losses — InfoNCE (tau = 5, unnormalised, 3k steps), SigLIP
(t0 = 10, b0 = -10 learned, 6k steps), JEPA-L2 (whitening penalty 10, 20k steps) and generation MSE
(1.5k steps) — reaches the closed form of the same sample covariance: image-side subspace distance
<= 0.05 for each objective, and the JEPA objective, re-whitened and with the predictor refitted,
within 2 % of the constrained optimum. Judged on the worst of 5 seeds, each an independent draw of
(rotation, sample, initialisation); one jitted lax.scan per objective, vmapped over seeds.

    jaxpapers verify vlm_objectives/V2a vlm_objectives/V2b         # quick: 5 seeds each
    jaxpapers verify vlm_objectives/V2 --preset full               # d = 256, k = 16, n = 1e6, 5 seeds (GPU)

Judging seeds: ``seed = 20261201`` (the experiment key; its 5 splits are the seeds). The schedule and
step counts were chosen earlier on seed 0 and on eight other draws (README); these 5 draws were never
used for tuning.

Our choices beyond the spec (README): small tower init (N(0, 0.01^2)) and a learning rate held at
1e-2 then cosine-decayed to 0 over the last 30 % of the steps (``core.train`` schedule
``stable_decay``). Expected numbers: see the README's results table.
"""

import ml_collections

from jaxpapers.vlm_objectives.config import VARIANTS, base_config, planted_full


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    cfg = base_config(arg)
    cfg.seed = 20261201  # fresh judging seeds (never used for tuning)
    cfg.train_linear = ml_collections.ConfigDict(
        dict(
            n=20_000,
            seeds=5,
            steps=dict(clip=3000, siglip=6000, jepa_x2y=20_000, gen_x2y=1500),
            trainer=dict(batch_size=512, snapshots=10, chunk_size=None),
            optim=dict(lr=1e-2, schedule="stable_decay", decay_frac=0.3),
            model=dict(tower="linear", init_std=0.01, init_t=10.0, init_b=-10.0),
            loss=dict(tau=5.0, normalize=False, whiten_coef=10.0, gen_loss="mse"),
        )
    )
    if cfg.preset == "tiny":
        cfg.train_linear.update(n=256, seeds=2)
        cfg.train_linear.steps = ml_collections.ConfigDict(dict(clip=20, siglip=20, jepa_x2y=20, gen_x2y=20))
        cfg.train_linear.trainer.update(batch_size=32, snapshots=2)
    elif cfg.preset == "full":
        cfg.planted = ml_collections.ConfigDict({v: planted_full(v, d=256, k=16) for v in VARIANTS})
        cfg.train_linear.update(n=1_000_000)
        cfg.train_linear.trainer.update(batch_size=8192, chunk_size=1)
    return cfg
