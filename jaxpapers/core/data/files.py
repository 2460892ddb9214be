"""Reading array files safely: one clear error for a missing, truncated, non-NumPy or non-numeric file.

``np.load`` never unpickles here (``allow_pickle=False``), and its own errors -- "Failed to read all
data", "Object arrays cannot be loaded when allow_pickle=False", or the advice to load a text file
"unsafely" -- become one line naming the file and what was expected.
"""

from __future__ import annotations

import os

import numpy as np

from jaxpapers.core.errors import ConfigError

_MAGIC = b"\x93NUMPY"


def read_npy(path: str | os.PathLike, *, what: str = "array file") -> np.ndarray:
    """The numeric (bool, integer or floating) array stored in the ``.npy`` file ``path``."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ConfigError(f"{what} {path!r} does not exist")
    with open(path, "rb") as f:
        head = f.read(len(_MAGIC))
        if head != _MAGIC:
            raise ConfigError(f"{what} {path!r} is not a NumPy .npy file (it starts with {head!r})")
        f.seek(0)
        try:
            major, _ = np.lib.format.read_magic(f)
            read_header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(f)  # the header only: no data is read
        except ValueError as e:
            raise ConfigError(f"{what} {path!r} has a damaged .npy header ({e})") from None
    if dtype.hasobject or not (np.issubdtype(dtype, np.number) or dtype == np.bool_):
        raise ConfigError(f"{what} {path!r} holds dtype {dtype}; expected numbers (bool, int or float)")
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise ConfigError(
            f"{what} {path!r} is truncated or damaged: shape {shape} of {dtype} could not be read ({e})"
        ) from None
