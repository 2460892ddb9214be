"""The two empirical attacks (claims D4, D5, D6, D8 of ``dp_bounds``).

Setting A (``lm``): a 2-layer byte transformer pre-trained on 128 public users, then DP-SGD fine-tuned (Poisson
q = 0.25, capacity 32, C = 1, 100 steps) on 64 private users whose passwords come from a Zipf (32 users) or a
uniform (32 users) prior over 256 candidates; LR and prior-only extraction attacks. Setting B (``tab``): 3-way
marginals of a 64-row table (12 public + 6 secret bits) with Gaussian noise; relax-and-round reconstruction.

    jaxpapers verify dp_bounds/D4                  # quick: ε ∈ {1, ∞}, one seed
    jaxpapers verify dp_bounds/D5                  # quick: ε ∈ {1, 8, ∞}
    jaxpapers verify dp_bounds --preset full       # GPU: 10^4 users, m = 1000, ε sweep, 3 seeds (not run)

Expected (quick, seed 0): ε = ∞ LR top-10 0.97 (Zipf) / 0.94 (uniform) vs κ_top10 0.478 / 0.039; ε = 1 at the
prior level (Zipf exact 0.16, top-10 0.44); tabular ε = ∞ exact rows 0.78 vs κ̄ 0.357. Quick ≈ 60 CPU-s (LM) +
≈ 20 CPU-s (tabular), compile included.
"""

import math

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.lm = ml_collections.ConfigDict(
        dict(
            n_private=64,
            n_public=128,
            k_pw=256,
            zipf_s=1.0,
            context=44,
            layers=2,
            d_model=64,
            heads=4,
            pretrain_steps=100,
            pretrain_batch=32,
            pretrain_lr=1e-3,
            dp_steps=100,
            q=0.25,
            capacity=32,
            clip=1.0,
            delta=1e-5,
            eps=(1.0, math.inf),
            lr_private=1e-4,
            lr_nonprivate=1e-3,
            topk=10,
            beta=0.01,
            report_beta=0.05,
            discretization=1e-3,
            seeds=(0,),
        )
    )
    cfg.tab = ml_collections.ConfigDict(
        dict(
            n=64,
            d_pub=12,
            d_sec=6,
            weight_scale=1.5,
            steps=300,
            restarts=4,
            lr=0.05,
            sigma_floor=0.3,
            eps=(1.0, 8.0, math.inf),
            delta=1e-5,
            approx_bits=5,
            beta=0.01,
            report_beta=0.05,
            seeds=(0,),
        )
    )
    if a.preset == "tiny":
        cfg.lm.update(
            n_private=16,
            n_public=16,
            k_pw=32,
            layers=1,
            d_model=16,
            heads=2,
            pretrain_steps=4,
            pretrain_batch=8,
            dp_steps=4,
            capacity=8,
        )
        cfg.tab.update(n=16, d_pub=5, steps=20, restarts=2)
    elif a.preset == "full":
        cfg.lm.update(
            n_private=10_000,
            n_public=10_000,
            k_pw=1000,
            context=128,
            layers=6,
            d_model=384,
            heads=6,
            pretrain_steps=2000,
            pretrain_batch=256,
            dp_steps=2000,
            q=0.0256,
            capacity=512,
            discretization=1e-4,
            eps=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0, math.inf),
            lr_private=3e-4,
            seeds=(0, 1, 2),
        )
        cfg.tab.update(n=2000, d_pub=64, steps=5000, eps=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0, math.inf), seeds=(0, 1, 2))
    return cfg
