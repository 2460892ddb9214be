"""Closed forms and the multi-target cap (claims D1 and D7 of ``dp_bounds``).

D1 evaluates the bound functions at the spec's points (float64) and rebuilds G_μ from its sampled privacy profile;
D7 compares the B3 cap with the group-privacy and Markov caps for m = 100, ε = 1, κ = 0.01, β = 0.05.

    jaxpapers verify dp_bounds/D1          # quick (= tiny = full: closed forms)
    jaxpapers verify dp_bounds/D7

Expected: 0.271828, 0.369463, 0.092362, 0.137805, 0.231969, 0.731059; profile gap ≤ 1.1e-4; caps 6 < 35 (Markov
54). A few seconds each.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.closed = ml_collections.ConfigDict(dict(mus=(0.5, 1.0, 2.0, 4.0), m=100, eps=1.0, kappa=0.01, beta=0.05))
    return cfg
