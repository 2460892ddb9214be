"""D2, D3, D4, D6 — the trichotomy's three rates as exact game values, and the divergence from standard online
learning (spec "Claims to reproduce").

    jaxpapers verify adversary_directed/D2 adversary_directed/D3 adversary_directed/D4 adversary_directed/D6
    jaxpapers verify adversary_directed --preset full        # GPU: T ≤ 14 (D2), 12 (D3/D4), 14 (D6)

Expected (quick): D2 singletons 1 for all T ≤ 10, k-sparse min(T, k), randomized singletons 1 − 2^−T; D3 thresholds
1,1,2,2,2,2,3,3,3,3,3,3, intervals 1,2,2,3,3,4,4,4,5,5,5,5, unions of ≤ 2 intervals 1,2,3,4,4,5,5,6, octave slopes
1.0 / 1.5 / 2.0; D4 value T and randomized T/2 for all subsets and the prefix class, prefix Natarajan 1; D6 standard
online = T vs ⌊log2(T+1)⌋. Binary families run on the dense fast path: one compiled program per learner (every
binary sweep with T ≤ 12 shares its padded shape) serves D2, D3, D6 and the binary part of D4 in one process;
each claim ≈ 2–4 s on 2 loaded CPU cores.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.regimes = ml_collections.ConfigDict(
        dict(
            const_t_max=10,
            sparse_ks=(2, 3),
            log_t_max=12,
            unions_t_max=8,
            unions_k=2,
            linear_t_max=8,
            prefix_randomized_t_max=6,
            online_t_max=9,
        )
    )
    if a.preset == "tiny":
        cfg.regimes.update(
            const_t_max=6, log_t_max=7, unions_t_max=7, linear_t_max=5, prefix_randomized_t_max=4, online_t_max=5
        )
    elif a.preset == "full":
        cfg.regimes.update(const_t_max=12, log_t_max=12, unions_t_max=10, linear_t_max=10, online_t_max=12)
    return cfg
