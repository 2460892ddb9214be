"""Phase adversary, hedging and deadlines on 𝒞_hard (claims T1–T5 of ``timely_generation``; spec "Adversaries").

𝒞_hard with J = 8, E = 12 (97 languages); A_phase against K = U with P phases (V = 4, 16, 128, 2048 for P = 4);
A_sparse with K = L_{8,16}; deadlines 2n, ⌈n log2(n+1)⌉, ⌈n^1.5⌉ (T = 6016, 24450, 94602); G2(ε) grid
ε ∈ {0.1, 0.2, 0.4, 0.8} with k = 4; T5 under f = c·n, c ∈ {1, 2, 4, 8}.

    jaxpapers verify timely_generation --preset quick     # P = 4
    jaxpapers verify timely_generation --preset full      # P = 5 (V_P = 65536, T up to 1.7e7: long CPU scans)

Expected (quick): T1 G1 phase ends 2n 0.75/0.375/0.133/0.029, G_echo 0.25/0.125/0.031/0.006; T2 d_f = 1.0,
h(T) 0.041 (slope −0.33) and 0.130 (ratio 0.48); T3 h(T) 0.5 under the schedule at 2n; T4 untimed 1.0;
T5 0.023, 0.028, 0.067, 1.0. Tiny (P = 3) is a smoke run.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.phase = ml_collections.ConfigDict(
        dict(
            P=4,
            J=8,
            E=12,
            sparse_m=16,
            deadlines=("lin2", "nlogn", "n1.5"),
            superlinear=("nlogn", "n1.5"),
            eps_grid=(0.1, 0.2, 0.4, 0.8),
            k_fixed=4,
            linear_cs=(1, 2, 4, 8),
            t5_eps=0.2,
            delta=0.25,
            u_mult=4,
        )
    )
    if a.preset == "tiny":
        cfg.phase.update(P=3, eps_grid=(0.2, 0.8))
    elif a.preset == "full":
        cfg.phase.update(P=5, E=16, eps_grid=(0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8))
    return cfg
