"""O7: the weight-grid enumeration of LTF_d reaches the known counts A000609 (spec Family 2)."""

from __future__ import annotations

import time

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.online_autoregressive.config import EnumerationConfig
from jaxpapers.online_autoregressive.generators import A000609, DEFAULT_WEIGHT_RANGE, enumerate_ltfs


def ltf_counts(ec: EnumerationConfig) -> tuple[np.ndarray, list[float]]:
    """Number of distinct truth tables per d (jitted grid → sums → thresholds → packed tables; host unique)."""
    counts, seconds = [], []
    ws = ec.weight_ranges or tuple(DEFAULT_WEIGHT_RANGE[d] for d in ec.ds)
    for d, w in zip(ec.ds, ws, strict=True):
        t0 = time.perf_counter()
        counts.append(enumerate_ltfs(d, w, chunk_size=ec.chunk_size, method=ec.method).size)
        seconds.append(time.perf_counter() - t0)
    return np.array(counts), seconds


def measure_counts(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O7: counts equal A000609(d)."""
    ec = to_dataclass(EnumerationConfig, cfg.enumeration)
    counts, seconds = ltf_counts(ec)
    return Measurement(
        measured={"counts": counts},
        predicted={"counts": np.array([A000609[d] for d in ec.ds])},
        n=len(ec.ds),
        details={
            "ds": list(ec.ds),
            "weight_ranges": list(ec.weight_ranges or [DEFAULT_WEIGHT_RANGE[d] for d in ec.ds]),
            "seconds": [round(s, 3) for s in seconds],
            "method": ec.method,
        },
    )
