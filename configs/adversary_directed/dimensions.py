"""D5, D8 — which dimension decides the regime, and adversary-directed vs transductive (spec "Perfect Littlestone
dimension"; PLdim is our reconstructed definition, see the spec).

    jaxpapers verify adversary_directed/D5 adversary_directed/D8
    jaxpapers verify adversary_directed/D8 --preset full      # AO_T up to T = 7 (TD = LCdim = 4)

Expected (quick): D5 predicted = measured regime for all 8 families, PLdim = VC on binary classes, Natarajan ≤ LCdim ≤
PLdim ≤ Ldim everywhere, prefix Natarajan 1 vs PLdim T; D8 AD = PLdim = T and TD = LCdim = 2, 3, 3, 4 for
T = 3..6, prefix TD = AD = T. About 10–20 s each on 2 loaded CPU cores (brute force in Python + one solver compile).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.dims = ml_collections.ConfigDict(dict(small_t_max=10, linear_t_max=8, ao_t_max=6, gap_ts=(3, 4, 5, 6)))
    if a.preset == "tiny":
        cfg.dims.update(small_t_max=6, linear_t_max=5, ao_t_max=5, gap_ts=(3, 4, 5))
    elif a.preset == "full":
        cfg.dims.update(small_t_max=12, linear_t_max=9, ao_t_max=7, gap_ts=(3, 4, 5, 6, 7))
    return cfg
