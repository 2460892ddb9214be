"""One module per claim group; each has its computation, ``measure_*(cfg, key) -> Measurement`` and figures.

* :mod:`.latch` — O1 (E2E log-M rate of the latch) and O2 (CoT removes M)
* :mod:`.taxonomy` — O3 (rates between constant and log M) and O4 (log ceiling on random LTF subclasses)
* :mod:`.ltf` — O5 (exact small-d dimensions) and O6 (halving vs the greedy adversary, vectorised games)
* :mod:`.enumeration` — O7 (LTF counts = A000609)
"""

from jaxpapers.online_autoregressive.experiments import enumeration, latch, ltf, taxonomy

__all__ = ["enumeration", "latch", "ltf", "taxonomy"]
