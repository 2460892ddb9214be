"""grain pipelines shared by every paper.

``train_batches`` is the standard training input: a random-access source, sliced to this process,
shuffled afresh every epoch, repeated forever and batched. Being a ``grain.MapDataset``, its
iterator state is checkpointed with the model by the trainer, so resumed runs see the same batches.
The trainer reads a ``MapDataset`` with :data:`READ_OPTIONS` (grain's defaults, 16 threads and 500
prefetched batches, would hold hundreds of batches per host at full scale). A paper whose records are
expensive to decode hands the trainer its own ``IterDataset`` instead, with worker processes and read
options from its config (FuxViT's ``data.worker_count`` / ``data.read_threads``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grain
import jax
import numpy as np

from jaxpapers.core.errors import ConfigError

READ_OPTIONS = grain.ReadOptions(num_threads=2, prefetch_buffer_size=4)
"""How the trainer reads a ``MapDataset``: two reader threads, at most four batches read ahead."""


class ArraySource(Sequence):
    """A random-access source over a dict of equally long arrays; item i is ``{k: v[i]}``."""

    def __init__(self, arrays: Mapping[str, Any]):
        self.arrays = {k: np.asarray(v) for k, v in arrays.items()}
        lengths = {k: len(v) for k, v in self.arrays.items()}
        if len(set(lengths.values())) != 1:
            raise ConfigError(f"ArraySource arrays must have one length; got {lengths}")
        self._len = next(iter(lengths.values()))

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i: int) -> dict[str, np.ndarray | np.generic]:  # type: ignore[override]
        return {k: v[i] for k, v in self.arrays.items()}


def for_process(ds: grain.MapDataset) -> grain.MapDataset:
    """This process's slice of a dataset (every ``process_count``-th record)."""
    return ds[jax.process_index() :: jax.process_count()]


def train_batches(
    source: Sequence | grain.MapDataset,
    global_batch_size: int,
    *,
    seed: int,
    shuffle: bool = True,
    drop_remainder: bool = True,
) -> grain.MapDataset:
    """Per-process batches of ``global_batch_size / process_count`` records, repeated forever."""
    n_proc = jax.process_count()
    if global_batch_size % n_proc:
        raise ConfigError(f"batch size {global_batch_size} is not divisible by the {n_proc} processes")
    ds = source if isinstance(source, grain.MapDataset) else grain.MapDataset.source(source)
    ds = for_process(ds)
    if len(ds) < global_batch_size // n_proc:
        raise ConfigError(
            f"dataset has {len(ds)} records per process, fewer than one batch of {global_batch_size // n_proc}"
        )
    if shuffle:
        ds = ds.seed(seed).shuffle()
    return ds.repeat().batch(global_batch_size // n_proc, drop_remainder=drop_remainder)
