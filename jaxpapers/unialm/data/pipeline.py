"""grain input pipelines for codec training (spec "What to build": ``unialm/data/`` grain ``MapDataset``
pipelines; §Scale-up "Data: grain with a per-host shard index").

Two random-access sources feed the shared :func:`jaxpapers.core.data.train_batches` (this process's
slice of the records, a fresh seeded shuffle every epoch, repeated forever, batched), whose iterator
state the shared trainer checkpoints with the model, so a resumed codec run sees the same batches as an
uninterrupted one:

* :class:`jaxpapers.core.data.ArraySource` over the cached clip arrays (the digit world, U1's mixture);
* :class:`ClipSource` over the on-disk loaders' :class:`~jaxpapers.unialm.data.loaders.Item` lists: each
  record reads its file, resamples, and crops or zero-pads to a fixed clip length (a legal length: whole
  reconstruction frames, spec Pitfall "frame alignment"). The crop offset is a pure function of
  ``(seed, index)``, so record i is the same waveform in every epoch, process and resumed run.

:func:`codec_batches` gives the random-access batches (batch i is ``ds[i]``); :func:`codec_stream` the
iterable the trainer consumes, read with the shared trainer's bounded read-ahead
(:data:`jaxpapers.core.data.pipeline.READ_OPTIONS`: 2 reader threads, 4 batches ahead).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grain
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.data.pipeline import READ_OPTIONS
from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.data.loaders import Item, load_item


def crop_or_pad(x: np.ndarray, n: int, offset_u: float) -> np.ndarray:
    """``n`` samples of ``x``: a window starting at ``⌊offset_u·(len−n+1)⌋`` if longer, zero-padded if shorter."""
    if len(x) >= n:
        start = min(int(offset_u * (len(x) - n + 1)), len(x) - n)
        return np.asarray(x[start : start + n], np.float32)
    return np.pad(np.asarray(x, np.float32), (0, n - len(x)))


class ClipSource(Sequence):
    """Random access over loader items: record i is ``{"audio": float32 [n_samples]}``.

    Args:
      items: from any loader in :mod:`jaxpapers.unialm.data.loaders` (or ``Item(path, text)``).
      sr: target sample rate (files are resampled on read).
      n_samples: clip length in samples.
      seed: seeds the per-record crop offset.
      multiple_of: ``n_samples`` must be a multiple of this (the codec's recon hop; 1 = no check).
    """

    def __init__(self, items: Sequence[Item], sr: int, n_samples: int, seed: int = 0, multiple_of: int = 1):
        check_range("sr", sr, 1)
        check_range("n_samples", n_samples, 1)
        check_range("multiple_of", multiple_of, 1)
        if n_samples % multiple_of:
            raise ConfigError(f"n_samples={n_samples} must be a multiple of {multiple_of} (whole codec frames)")
        if not items:
            raise ConfigError("items is empty: a ClipSource needs at least one loader item")
        self.items, self.sr, self.n, self.seed = list(items), int(sr), int(n_samples), int(seed)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict[str, np.ndarray]:  # type: ignore[override]
        wave, _, _ = load_item(self.items[i], self.sr)
        u = np.random.default_rng((self.seed, int(i))).uniform()
        return {"audio": crop_or_pad(wave, self.n, u)}


def codec_batches(source: Mapping[str, Any] | Sequence, global_batch_size: int, *, seed: int) -> grain.MapDataset:
    """Per-process codec training batches from arrays (``{name: [n, ...]}``) or a random-access source."""
    src = ArraySource(source) if isinstance(source, Mapping) else source
    return train_batches(src, global_batch_size, seed=seed)


def codec_stream(source: Mapping[str, Any] | Sequence, global_batch_size: int, *, seed: int) -> grain.IterDataset:
    """:func:`codec_batches` as the iterable the trainer consumes (checkpointable), read with the shared
    trainer's ``READ_OPTIONS`` (grain's default, 16 threads and 500 batches ahead, held ~0.7 GB of 0.8 s clips
    for a 150-step run)."""
    return codec_batches(source, global_batch_size, seed=seed).to_iter_dataset(READ_OPTIONS)
