"""One module per claim group; each has its computation, ``measure_*(cfg, key) -> Measurement`` and figures.

* :mod:`.exact` — D1 (solver vs references, binary and multiclass, deterministic and randomized)
* :mod:`.regimes` — D2, D3, D4 (the three rates), D6 (standard online contrast)
* :mod:`.dimensions` — D5 (which dimension predicts the regime), D8 (adversary-directed vs transductive)
* :mod:`.agnostic` — D7 (Hedge's regret: the agnostic dichotomy)
"""

from jaxpapers.adversary_directed.experiments import agnostic, dimensions, exact, regimes

__all__ = ["agnostic", "dimensions", "exact", "regimes"]
