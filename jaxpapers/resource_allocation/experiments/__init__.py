"""One module per claim group; each has its jitted computation, ``measure*(cfg, key) -> Measurement`` and figures.

* :mod:`.efficiency` — RA1-RA5 (tight families, random instances; shared work in :mod:`..studies`)
* :mod:`.audit` — RA6 (deviation audit, best-reply cross-check)
* :mod:`.revenue` — RA7 (revenue vs VCG, our conjecture)
* :mod:`.budgets` — RA8 (liquid welfare), RA9 (budget feasibility, our construction)
* :mod:`.first_price` — RA10 (the equilibrium as α → 0 against the first-price limit)
"""

from jaxpapers.resource_allocation.experiments import audit, budgets, efficiency, first_price, revenue

__all__ = ["audit", "budgets", "efficiency", "first_price", "revenue"]
