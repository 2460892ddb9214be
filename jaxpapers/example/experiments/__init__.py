"""The worked example's experiments: one module per claim group.

Layout rule: ``experiments/<group>.py`` holds, for the claims of one group, the computation (pure and
jitted where it is a simulation; here the training run ``train``), ``measure(cfg, key) -> Measurement``
(it measures, never judges: thresholds live in ``claims.py``) and the figure it saves (from
``figures.py`` when a notebook shows it too). Studies that several groups share go to ``studies.py``.
"""

from jaxpapers.example.experiments import copy_task

__all__ = ["copy_task"]
