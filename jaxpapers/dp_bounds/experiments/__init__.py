"""One module per claim group; each has its computation, ``measure_*(cfg, key) -> Measurement`` and figures.

* :mod:`.closed_forms` — D1 (bound functions equal their closed forms) and D7 (multi-target cap vs group privacy)
* :mod:`.randomized_response` — D2 (exact tightness on k-ary randomized response)
* :mod:`.accountant` — D3 (dp_accounting PLD/RDP values)
* :mod:`.extraction` — D4 (LM secret extraction under the bounds) and D6 (risk grows with the baseline)
* :mod:`.reconstruction` — D5 (tabular reconstruction under the bounds)
* :mod:`.tightness` — D8 (empirical / B2 ratio vs ε, both settings)
"""

from jaxpapers.dp_bounds.experiments import (
    accountant,
    closed_forms,
    extraction,
    randomized_response,
    reconstruction,
    tightness,
)

__all__ = ["accountant", "closed_forms", "extraction", "randomized_response", "reconstruction", "tightness"]
