"""One module per claim group; each has its computation, ``measure_*(cfg, key) -> Measurement`` and figures.

* :mod:`.laws` — MC1 (depth law), MC2 (−1/2 law in C), MC3 (depth alone is insufficient), MC4 (equal
  depth, different η*), MC5 (zero-shot transfer from a proxy): the shared LR sweep.
* :mod:`.width` — MC6 (μP width transfer; full preset only).
* :mod:`.diagnostic` — MC7 (report-only: C against the measured one-step change Ĉ).
* :mod:`.identities` — MC8 (analytic identities of the calculus).
"""

from jaxpapers.merge_calculus.experiments import diagnostic, identities, laws, width

__all__ = ["diagnostic", "identities", "laws", "width"]
