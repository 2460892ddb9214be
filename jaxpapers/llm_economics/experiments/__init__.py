"""Experiments behind the claims, one module per claim group (and per config file of the same name).

* :mod:`.frontier` (E1), :mod:`.compute_bound` (E2, E3), :mod:`.inference` (E4), :mod:`.statics`
  (E5, E6a, E6b), :mod:`.data_bound` (E7, E8), :mod:`.trends` (E9).

Each exposes ``measure*(cfg, key) -> Measurement`` (it measures, never judges: thresholds live in
``claims.py``) and the figure it saves. The computations are the jitted, vmapped solvers of ``solve.py``
(tested against the NumPy/SciPy reference and a plain loop); all run in float64 (``Claim(x64=True)``).
Batches are padded to a shared size, so E2-E6 reuse one compiled program.
"""

from jaxpapers.llm_economics.experiments import compute_bound, data_bound, frontier, inference, statics, trends

__all__ = ["compute_bound", "data_bound", "frontier", "inference", "statics", "trends"]
