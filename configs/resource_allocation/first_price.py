"""The α → 0 limit of the α-mechanism is the first-price auction (claim RA10 of ``resource_allocation``).

With weights θ^{1/α} the allocation concentrates on the highest bid and the price λ = (Σ θ_j^{1/α})^α
lies in [θ_max, n^α θ_max]. At α = 10^-3 with the top bid ≥ 1.01 × the second, the top bidder's share is
≥ 1 − 7·1.01^{-1000} ≈ 0.99967 (n = 8); computed in log-weights (θ^{1000} overflows).

    jaxpapers verify resource_allocation/RA10     # quick: 1000 bid vectors, n = 8 (< 2 s on 2 CPU cores)

Expected: minimal top share ≈ 0.9999 (≥ 0.999 required), price within [θ_max, 8^0.001 θ_max]
(≤ 0.21 % above the top bid).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 4
    cfg.bids = ml_collections.ConfigDict(
        dict(
            num=1000,
            n=8,
            alpha=1e-3,
            min_gap=1.01,  # top bid ≥ min_gap × second bid
            log10_gap_range=(0.0, 0.3),  # our choice: top/second = min_gap × 10^U(range), so gaps near 1.01 occur
            log10_bid_range=(-2.0, 1.0),
        )
    )

    if a.preset == "tiny":
        cfg.bids.num = 16
    elif a.preset == "full":
        cfg.bids.num = 1_000_000
    return cfg
