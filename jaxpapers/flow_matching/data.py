"""Image data for FM6: scikit-learn's bundled digits (quick); MNIST from its IDX files and CIFAR-10 from its binary
archive on a local path (full).

:func:`read_idx` reads the IDX format (big-endian header: two zero bytes, a type code, the number of dimensions,
then one 32-bit size per dimension; magic 2051 for MNIST images, 2049 for labels). Nothing is downloaded and
nothing is unpickled. :func:`load_images` returns flattened images scaled to [−1, 1].
"""

from __future__ import annotations

import pathlib

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.core.data.cifar import load_cifar10
from jaxpapers.core.errors import ConfigError

IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
MNIST_TRAIN_IMAGES = "train-images-idx3-ubyte"


def read_idx(path) -> np.ndarray:
    """The array stored in an IDX file (``path``), with the shape its header gives."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise ConfigError(f"IDX file {str(path)!r} does not exist; give the path of an uncompressed IDX file")
    raw = path.read_bytes()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in IDX_TYPES:
        raise ConfigError(f"{str(path)!r} is not an IDX file: bad magic {raw[:4].hex()} (expected 0000 08.. e.g. 2051)")
    ndim = raw[3]
    head = 4 + 4 * ndim
    if ndim < 1 or len(raw) < head:
        raise ConfigError(f"{str(path)!r}: IDX header with {ndim} dimensions is truncated")
    shape = tuple(int(v) for v in np.frombuffer(raw[4:head], ">u4"))
    dtype = np.dtype(IDX_TYPES[raw[2]])
    need = int(np.prod(shape)) * dtype.itemsize
    if len(raw) - head != need:
        raise ConfigError(f"{str(path)!r}: header shape {shape} needs {need} data bytes, file has {len(raw) - head}")
    return np.frombuffer(raw[head:], dtype).reshape(shape)


def load_images(dataset: str, data_dir: str = "") -> tuple[np.ndarray, tuple[int, ...]]:
    """``(images [N, D] float32 in [−1, 1], image shape)`` for ``"digits"`` (8×8, values 0..16), ``"mnist"``
    (28×28 from ``data_dir/train-images-idx3-ubyte``) or ``"cifar10"`` (32×32×3, the training batches of the
    binary archive in ``data_dir``, flattened in HWC order; the python pickles are refused)."""
    check_choice("dataset", dataset, ("digits", "mnist", "cifar10"))
    if dataset == "digits":
        from sklearn.datasets import load_digits

        x = load_digits().images.astype(np.float32)
        return (x.reshape(len(x), -1) / 8.0 - 1.0).astype(np.float32), (8, 8)
    if not data_dir:
        need = "train-images-idx3-ubyte" if dataset == "mnist" else "the CIFAR-10 binary batches (cifar-10-batches-bin)"
        raise ConfigError(f"images.data_dir is empty; give the directory holding {need} for {dataset}")
    if dataset == "cifar10":
        x, _ = load_cifar10(data_dir, "train")
    else:
        x = read_idx(pathlib.Path(data_dir) / MNIST_TRAIN_IMAGES)
        if x.ndim != 3:
            raise ConfigError(f"MNIST images must be [N, rows, cols]; the IDX file holds shape {x.shape}")
    return (x.reshape(len(x), -1).astype(np.float32) / 127.5 - 1.0).astype(np.float32), tuple(x.shape[1:])
