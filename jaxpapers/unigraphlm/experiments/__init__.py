"""The experiments of unigraphlm, one module per claim group: ``layers`` (U7), ``scheduler`` (U4) and
``pipeline`` (the trained claims U1, U2, U3, U5, U6, full preset only)."""

from jaxpapers.unigraphlm.experiments import layers, pipeline, scheduler

__all__ = ["layers", "pipeline", "scheduler"]
