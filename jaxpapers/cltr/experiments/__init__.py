"""The CLTR experiments: ``theory`` (C1, C2, C4: exact convex minimizers), ``cl`` (C3, C5a, C5b: MLPs) and
``deep`` (C6: ResNet-32 on CIFAR-LT, full preset)."""

from jaxpapers.cltr.experiments import cl, deep, theory

__all__ = ["cl", "deep", "theory"]
