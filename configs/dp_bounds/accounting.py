"""dp_accounting integration (claim D3 of ``dp_bounds``).

ε(δ = 1e-5) of DP-SGD with q = 0.01, σ = 1, T = 1000 through the PLD accountant (add/remove and replace-one) and
the RDP accountant (add/remove).

    jaxpapers verify dp_bounds/D3                  # quick: PLD value_discretization_interval 1e-3 (≈ 1 s)
    jaxpapers verify dp_bounds/D3 --preset full    # 1e-4 (≈ 10 s)

Expected: 1.829 / 2.844 / 2.101 (quick; the coarser PLD discretisation is pessimistic, +0.001).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.acct = ml_collections.ConfigDict(dict(q=0.01, sigma=1.0, steps=1000, delta=1e-5, discretization=1e-3))
    if a.preset == "full":
        cfg.acct.discretization = 1e-4
    return cfg
