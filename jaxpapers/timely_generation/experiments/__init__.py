"""One module per claim group; each has its computation, ``measure_*(cfg, key) -> Measurement`` and figures.

* :mod:`.sanity` — T0 (the oracle is perfectly timely and valid on 𝒞_AP)
* :mod:`.impossibility` — T1 (eventually consistent generators are not timely) and T4 (untimed control)
* :mod:`.hedging` — T2 (vanishing hallucination + superlinear deadline), T3 (linear deadlines), T5 (monotonicity)
"""

from jaxpapers.timely_generation.experiments import hedging, impossibility, sanity

__all__ = ["hedging", "impossibility", "sanity"]
