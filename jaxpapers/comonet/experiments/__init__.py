"""Experiments behind the claims, one module per claim group: ``measure*(cfg, key) -> Measurement``.

===================  ==========  ======================================================================
module               claims      what it measures
===================  ==========  ======================================================================
``certification``    CO1, CO2    float64 certification of random/trained COMONets and of two controls
``smnn``             CO3         COMONet {inc, free} vs the independently written SMNN, same params
``synthetic``        CO4-CO6     accuracy, noise robustness, out-of-range shapes (the synthetic study)
``tabular``          CO7, CO8    diabetes k-fold parity; public benchmarks vs published numbers
===================  ==========  ======================================================================

The studies CO1/CO2 and CO4-CO6 share live in :mod:`jaxpapers.comonet.studies`; the predicates
(thresholds) live only in :mod:`jaxpapers.comonet.claims`.
"""

from jaxpapers.comonet.experiments import certification, smnn, synthetic, tabular

__all__ = ["certification", "smnn", "synthetic", "tabular"]
