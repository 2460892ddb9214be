"""One module per claim group; each has its computation, ``measure_*(cfg, key) -> Measurement`` and figures.

* :mod:`.simulate` — H1 (Construction A equals the TM trace) and H3 (the universal transformer)
* :mod:`.lengths` — H2 (CoT length = time + 1, exponents) and H7 (float32 precision boundary)
* :mod:`.padding` — H4 (padding written inside the CoT)
* :mod:`.cost` — H5 (quadratic score-evaluation count of the reverse simulation)
* :mod:`.diagonal` — H6 (the clocked diagonal language)
"""

from jaxpapers.cot_hierarchy.experiments import cost, diagonal, lengths, padding, simulate

__all__ = ["cost", "diagonal", "lengths", "padding", "simulate"]
