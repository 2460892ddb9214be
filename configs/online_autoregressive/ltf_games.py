"""Θ(d²) scaling, measured (claim O6 of ``online_autoregressive``; spec Family 2).

Halving (E2E over the induced class, CoT over the base class with chain updates) against the greedy splitting
adversary, one jitted program for every (d, M, feedback) × seed (bitset version spaces); bound log2 N(d).

    jaxpapers verify online_autoregressive/O6c-ltf-exact-expectation   # quick: d ∈ {2,3,4}, M ∈ {1,4,16}, 20 seeds
    jaxpapers verify online_autoregressive/O6a-ltf-e2e-scaling --preset full   # d = 2..6, quadratic fit (README)

Expected (quick): E2E means d=2: 3.0, 2.0, 2.0; d=3: ≈ 5.9, 5.0, 5.0; d=4: ≈ 9.0, 7.75, 8.0; all ≤ log2 N(d)
(3.81, 6.70, 10.88). O6c: within 3 standard errors of the exact expectations (E2E 3, 2, 2 and 47/8, 5, 5; CoT
3, 3/2, 3/2 and 47/8, 15/4, 15/4 for d = 2, 3 and M = 1, 4, 16). ≈ 5 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 6
    cfg.ltf_games = ml_collections.ConfigDict(
        dict(ds=(2, 3, 4), ms=(1, 4, 16), seeds=20, tie_noise=0.5, rows_per_call=0, word_chunk=0)
    )
    if a.preset == "tiny":
        # 20 seeds as in quick: O6c's standard errors need an observable spread (with 4 seeds every d = 3, M = 1
        # game makes 6 mistakes with probability (7/8)^4 = 0.59, and the zero-spread rule then asks 6 = 47/8).
        cfg.ltf_games.update(ds=(2, 3), ms=(1, 4), seeds=20)
    elif a.preset == "full":
        # Bounded memory for d = 5, 6: roll out 2^16 generators at a time, count 2^12 bitset words at a time.
        cfg.ltf_games.update(ds=(2, 3, 4, 5, 6), ms=(1, 2, 4, 8, 16, 64), rows_per_call=2**16, word_chunk=2**12)
    return cfg
