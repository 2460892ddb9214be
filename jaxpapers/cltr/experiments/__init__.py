"""The CLTR experiments: ``theory`` (C1, C2, C4: exact convex minimizers) and ``cl`` (C3, C5a, C5b: MLPs)."""

from jaxpapers.cltr.experiments import cl, theory

__all__ = ["cl", "theory"]
