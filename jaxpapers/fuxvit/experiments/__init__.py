"""Experiments behind the FuxViT claims, one module per claim group: each exposes the jitted
computation it measures and ``measure*(cfg, key) -> Measurement`` (measures, never judges).

* ``exactness``: F1 (k ≥ T−1 is dense frame-causal), F4 (unselected frames are inert).
* ``equivalence``: F2 (an image is a ViT), F3 (frame causality, streaming).
* ``scaling``: F6 (compiled FLOPs), F11 (compiled memory) against the number of frames.
* ``needle``: F7a/F7b/F7c (routing on the needle task).
* ``motion``: F8a/F8b/F8c (motion direction).
* ``sharding``: F9 (a sharded train step equals the single-device step).
* ``kernel``: F5 (the Pallas kernel equals the reference, interpret mode on a CPU), F10 (GPU speed).

Trained models shared by several claims come from ``fuxvit.studies``; figures from ``fuxvit.figures``.
"""

from jaxpapers.fuxvit.experiments import equivalence, exactness, kernel, motion, needle, scaling, sharding

__all__ = ["equivalence", "exactness", "kernel", "motion", "needle", "scaling", "sharding"]
