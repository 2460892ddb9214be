"""``stable_key``: an unsigned 64-bit seed from blake2b of a canonical byte string (spec §NoisyOracleVLM 8).

Python's ``hash()`` is salted per process for strings (PYTHONHASHSEED) and can be negative, which
``np.random.default_rng`` rejects; every random draw of the paper is seeded through this function instead.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _canon(x, h) -> None:
    if isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x)
        h.update(b"A" + str(a.dtype).encode() + repr(a.shape).encode())
        h.update(a.tobytes())
    elif isinstance(x, (bytes, bytearray)):
        h.update(b"B" + len(x).to_bytes(8, "little") + bytes(x))
    elif isinstance(x, str):
        b = x.encode("utf-8")
        h.update(b"S" + len(b).to_bytes(8, "little") + b)
    elif isinstance(x, (bool, np.bool_)):
        h.update(b"T" if x else b"F")
    elif isinstance(x, (int, np.integer)):
        h.update(b"I" + str(int(x)).encode() + b";")
    elif isinstance(x, (float, np.floating)):
        h.update(b"D" + float(x).hex().encode() + b";")
    elif isinstance(x, (tuple, list)):
        h.update(b"L" + str(len(x)).encode() + b"[")
        for v in x:
            _canon(v, h)
        h.update(b"]")
    elif x is None:
        h.update(b"N")
    else:
        raise TypeError(f"stable_key got an argument of type {type(x).__name__}; allowed: arrays, bytes, str, int, "
                        "float, bool, None and tuples/lists of these")


def stable_key(*parts) -> int:
    """An integer in [0, 2**64) that depends only on ``parts`` (typed, length-prefixed), identical across processes."""
    h = hashlib.blake2b(digest_size=8)
    _canon(tuple(parts), h)
    return int.from_bytes(h.digest(), "little")


def rng(*parts) -> np.random.Generator:
    """``np.random.default_rng(stable_key(*parts))``."""
    return np.random.default_rng(stable_key(*parts))
