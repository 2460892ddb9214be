"""k-ary randomized response as the tight case (claim D2 of ``dp_bounds``).

k = 10, uniform prior, m individuals, the attacker outputs the response; Monte-Carlo over ``runs`` releases.

    jaxpapers verify dp_bounds/D2                  # quick: m = 100, 2000 runs (< 2 s)
    jaxpapers verify dp_bounds/D2 --preset full    # m = 10^4, 10^5 runs

Expected (quick): K/m ≈ γ = 0.2154 / 0.2319 / 0.4508 / 0.8585 (within 4 s.e.), 99th percentile of K within ±1 of
24 / 33 / 57 / 93.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.rr = ml_collections.ConfigDict(dict(k=10, eps=(0.5, 1.0, 2.0, 4.0), m=100, runs=2000, beta=0.01))
    if a.preset == "full":
        cfg.rr.update(m=10_000, runs=100_000)
    return cfg
