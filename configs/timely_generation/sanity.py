"""Oracle sanity on 𝒞_AP (claim T0 of ``timely_generation``; spec claim T0).

G0 against A_inc and A_rand (blocks of 64) for K = AP(3, 5) in 𝒞_AP (A = B = 16), f(n) = n.

    jaxpapers verify timely_generation/T0                 # quick: T = 2^14
    jaxpapers verify timely_generation/T0 --preset full   # T = 2^22

Expected: min d_f = 1.0 on every run, max h = 0.0. Quick ≈ 5–15 s (compile-dominated).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.sanity = ml_collections.ConfigDict(dict(A=16, B=16, k_a=3, k_b=5, T=2**14, seeds=2, deadline="lin1"))
    if a.preset == "tiny":
        cfg.sanity.update(T=2**10, seeds=1)
    elif a.preset == "full":
        cfg.sanity.update(T=2**22, seeds=4)
    return cfg
