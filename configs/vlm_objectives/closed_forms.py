"""Closed forms of the four linearised objectives (spec "The four objectives"; claim V1).

What is reproduced: linearised CLIP (tau ∈ {0.05, 1, 20}), SigLIP (t ∈ {1, 10}, N ∈ {64, 4096},
b ∈ {-10, logit(1/N)}) and JEPA-L2 (both directions) give exactly the CCA subspace (max principal
angle < 1e-6 rad on both modalities) on 20 random Wishart joint covariances (d_x = 10, d_y = 12,
k = 3) and the planted presets, while generation (RRR) gives a different one in >= 19/20 draws;
every closed form is a stationary point of its own linearised population loss (scaled gradient
<= 1e-9) with the analytic optimum value (relative error <= 1e-10). Float64 (scoped).

    jaxpapers verify vlm_objectives/V1                      # quick: < 5 s on 2 CPU cores
    jaxpapers verify vlm_objectives/V1 --preset full        # d = 512, k = 32, 200 draws (GPU, seconds)

Expected (quick): max angle ~1e-13 rad, 20/20 distinct generation subspaces (median distance ~0.3),
gradients ~1e-15, values exact to ~1e-15.
"""

import ml_collections

from jaxpapers.vlm_objectives.config import base_config


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    cfg = base_config(arg)
    cfg.closed_forms = ml_collections.ConfigDict(
        dict(
            num_random=20,
            d_x=10,
            d_y=12,
            k=3,
            clip_taus=(0.05, 1.0, 20.0),
            siglip_ts=(1.0, 10.0),
            siglip_ns=(64, 4096),
            siglip_bs=("-10", "logit(1/N)"),
            gen_min_distance=1e-3,
            chunk_size=None,
        )
    )
    if cfg.preset == "tiny":
        cfg.closed_forms.update(num_random=3, d_x=5, d_y=6, k=2, clip_taus=(1.0,), siglip_ts=(10.0,), siglip_ns=(64,))
    elif cfg.preset == "full":
        cfg.closed_forms.update(num_random=200, d_x=512, d_y=512, k=32, chunk_size=20)
    return cfg
