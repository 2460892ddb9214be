"""In-process memoisation of a study that several claims share.

Claims are independent (each runs alone with ``jaxpapers verify <paper>/<claim>``), but some measure
different things on the same expensive run: RA2/RA3/RA5 the same α sweep, CO4/CO5/CO6 the same trained
models, F7a/F7b the same FSA run. ``shared`` runs the study once per process and returns the cached
result afterwards::

    sweep = memo.shared("alpha_sweep", cfg.instances, cfg.alphas, key, fn=lambda: run_sweep(cfg, key))

The cache key is the study name plus its inputs made plain (ConfigDicts, dataclasses, PRNG keys and
arrays by value) plus the float64 mode, so float32 and float64 runs never share results. The newest
``MAX_ENTRIES`` results are kept.
"""

from __future__ import annotations

import collections
import dataclasses
import json
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

T = TypeVar("T")
MAX_ENTRIES = 8
_STORE: collections.OrderedDict[str, Any] = collections.OrderedDict()


def shared(name: str, *inputs: Any, fn: Callable[[], T]) -> T:
    """``fn()``, computed once per (``name``, ``inputs``, float64 mode) in this process."""
    tag = json.dumps([name, [_plain(x) for x in inputs], str(jnp.result_type(float))], sort_keys=True, default=repr)
    if tag in _STORE:
        _STORE.move_to_end(tag)
        return _STORE[tag]
    value = fn()
    _STORE[tag] = value
    while len(_STORE) > MAX_ENTRIES:
        _STORE.popitem(last=False)
    return value


def clear() -> None:
    """Forgets every cached study (tests use it to time or re-run a study from scratch)."""
    _STORE.clear()


def _plain(x: Any) -> Any:
    if hasattr(x, "to_dict"):
        return x.to_dict()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.asdict(x)
    if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return np.asarray(jax.random.key_data(x)).tolist()
    if isinstance(x, (np.ndarray, jax.Array)):
        return np.asarray(x).tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    return x
