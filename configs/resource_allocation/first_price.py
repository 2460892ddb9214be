"""The α-mechanism's equilibrium as α → 0 against the first-price limit (claim RA10 of ``resource_allocation``).

The equilibrium condition v_i'(x_i) = λ(1 + α x_i/(1 − x_i)) tends to price taking, so as α → 0 the
equilibrium tends to the competitive outcome at the lowest market-clearing price (README "The first-price
limit"); for linear agents that is the complete-information first-price auction: the highest value wins
everything at the second-highest value. The nested-bisection solver runs on random 2-3-agent instances at
each α; the limit comes from ``bounds.first_price_limit`` (NumPy, independent of the solver).

    jaxpapers verify resource_allocation/RA10                  # quick: 1024 instances × α ∈ {0.1, 0.01, 0.001}
    jaxpapers verify resource_allocation/RA10 --preset full    # 10^5 instances

First-order theory: the distances to the limit shrink ∝ α (a factor 10 per decade); the efficiency loss is
at most α/(1+√α)² (the PoA bound). The measured values are in the paper README. ~5 s on 2 CPU cores.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 4
    cfg.solver = ml_collections.ConfigDict(dict(outer_iters=80, inner_iters=60, chunk_size=None))
    cfg.instances = ml_collections.ConfigDict(
        dict(num=1024, n_min=2, n_max=3, family_probs=(0.3, 0.5, 0.2), log10_s_range=(-3.0, 0.5))
    )
    cfg.alphas = (0.1, 0.01, 0.001)  # decreasing; the last two a factor 10 apart (the rate is their ratio)

    if a.preset == "tiny":
        cfg.instances.num = 16
        cfg.solver.chunk_size = 8  # exercises the chunked path
    elif a.preset == "full":
        cfg.instances.num = 100_000
        cfg.solver.chunk_size = 16_384
    return cfg
