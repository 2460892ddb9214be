"""TM → CoT simulation, Construction A and the universal Construction B (claims H1 and H3 of ``cot_hierarchy``).

Random machines (k ∈ {3..6}, g ∈ {2, 3}, p_halt 0.08) × 8 inputs (n ≤ 12) plus BB(2), BB(3), BB(4) on the blank
tape, T_max 128, hard attention; every decode is compared token by token with ``run_tm``.

    jaxpapers verify cot_hierarchy/H1 cot_hierarchy/H3                  # quick: 128 machines
    jaxpapers verify cot_hierarchy/H1 --preset full                     # 4096 machines, k ≤ 16, g ≤ 4, hard + saturated

Expected: 0 mismatched runs; BB step counts 6, 21, 107. Quick ≈ 10–25 s per claim on 2 cores (compile-dominated).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.sim = ml_collections.ConfigDict(
        dict(
            n_tms=128,
            k_min=3,
            k_max=6,
            g_choices=(2, 3),
            p_halt=0.08,
            inputs=8,
            n_max=12,
            t_max=128,
            attention=("hard",),
            busy_beavers=True,
        )
    )
    if a.preset == "tiny":
        cfg.sim.update(n_tms=8, inputs=2, n_max=6)
    elif a.preset == "full":
        cfg.sim.update(n_tms=4096, k_max=16, g_choices=(2, 3, 4), n_max=64, t_max=4096, attention=("hard", "saturated"))
    return cfg
