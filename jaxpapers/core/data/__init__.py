"""Input pipelines on grain: array sources, per-process slicing, shuffled repeated batches."""

from jaxpapers.core.data.files import read_npy
from jaxpapers.core.data.pipeline import ArraySource, for_process, train_batches

__all__ = ["ArraySource", "for_process", "read_npy", "train_batches"]
