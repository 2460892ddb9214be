"""The claims' experiments, one module per claim group: each exposes its jitted computation (public,
tested against an independent reference), ``measure(cfg, key) -> Measurement`` and its figure.

========================= ======================================================================
module                    claims
========================= ======================================================================
``v1_closed_forms``       V1: closed forms = CCA, stationary points of their own losses
``v2_trained``            V2a/V2b: gradient-trained exact losses reach their closed forms
``v3_staircase``          V3: the phase staircase over the nuisance correlation
``v4_one_sided``          V4: the one-sided condition on random planted draws
``v5_retrieval``          V5: the query modality's JEPA retrieves best
``v6_nonlinear``          V6: nonlinear towers and real data
========================= ======================================================================
"""

from jaxpapers.vlm_objectives.experiments import (
    v1_closed_forms,
    v2_trained,
    v3_staircase,
    v4_one_sided,
    v5_retrieval,
    v6_nonlinear,
)

__all__ = ["v1_closed_forms", "v2_trained", "v3_staircase", "v4_one_sided", "v5_retrieval", "v6_nonlinear"]
