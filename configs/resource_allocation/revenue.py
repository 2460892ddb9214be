"""Revenue of the α-mechanism relative to VCG (claim RA7 of ``resource_allocation``; our conjecture).

The paper's exact revenue constant was not available; we test our conjecture Rev_NE ≥ Rev_VCG/(1+α),
which is tight for two identical linear agents (NE price v/(1+α), VCG revenue v). Rev_NE = λ (the
good is fully allocated); Rev_VCG = Σ_i [OPT_{-i} − (OPT − v_i(x*_i))].

    jaxpapers verify resource_allocation/RA7                 # quick: 1024 instances × α ∈ {1, .7, .3, .05}
    jaxpapers verify resource_allocation/RA7 --preset full   # 10^5 instances + adversarial search

Expected (quick): two identical linear agents: ratio = 1/(1+α) to ~1e-15; random minimum ratios
0.516 / 0.607 / 0.787 / 0.964 against 0.5 / 0.588 / 0.769 / 0.952 (no violation). ~5–10 s on 2 CPU cores.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 2
    cfg.solver = ml_collections.ConfigDict(dict(outer_iters=80, inner_iters=60, chunk_size=None))
    cfg.instances = ml_collections.ConfigDict(
        dict(num=1024, n_min=2, n_max=8, family_probs=(0.3, 0.5, 0.2), log10_s_range=(-3.0, 0.5))
    )
    cfg.alphas = (1.0, 0.7, 0.3, 0.05)
    cfg.two_linear_slope = 0.7
    cfg.search = ml_collections.ConfigDict(dict(population=4096, generations=0, elite_frac=0.1, sigma=0.3))

    if a.preset == "tiny":
        cfg.instances.update(num=16, n_max=4)
        cfg.alphas = (1.0, 0.3)
        cfg.solver.chunk_size = 8  # exercises the chunked path
        cfg.search.update(population=16, generations=1)
    elif a.preset == "full":
        cfg.instances.update(num=100_000, n_max=16)
        cfg.solver.chunk_size = 16_384
        cfg.search.update(population=4096, generations=30)
    return cfg
