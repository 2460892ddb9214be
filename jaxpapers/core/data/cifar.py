"""CIFAR-10/100 from the **binary** archives only (``cifar-10-batches-bin/``, ``cifar-100-binary/``), shared by
the papers that train on CIFAR (cltr, merge_calculus, flow_matching).

Records: CIFAR-10 3073 bytes (label, 3072 pixels), CIFAR-100 3074 bytes (coarse label, fine label, 3072
pixels); pixels are 1024 R, 1024 G, 1024 B, each 32x32 row-major. Parsed with ``np.fromfile`` and returned
as NHWC uint8. The python-pickle archives (``cifar-10-batches-py/``, ``cifar-100-python/``) are refused:
unpickling a downloaded file can execute code.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError

_BINARY = {10: ("cifar-10-batches-bin", "cifar-10-binary.tar.gz"), 100: ("cifar-100-binary", "cifar-100-binary.tar.gz")}
_PICKLE = {10: "cifar-10-batches-py", 100: "cifar-100-python"}


def _resolve(root: str | os.PathLike, classes: int) -> Path:
    root = Path(root)
    folder, archive = _BINARY[classes]
    pickled = _PICKLE[classes]
    if root.name == pickled or (root / pickled).is_dir() and not (root / folder).is_dir():
        raise ConfigError(
            f"root={str(root)!r} holds the python-pickle CIFAR-{classes} ({pickled}/), which is refused (unpickling "
            f"executes code); download the binary archive {archive} and point root at {folder}/"
        )
    if root.name != folder and (root / folder).is_dir():
        root = root / folder
    if not root.is_dir():
        raise ConfigError(f"root={str(root)!r} is not a directory; expected the extracted {archive} ({folder}/)")
    return root


def _read(path: Path, record: int) -> tuple[np.ndarray, np.ndarray]:
    if not path.is_file():
        raise ConfigError(f"{path} is missing; expected a CIFAR binary file of {record}-byte records")
    raw = np.fromfile(path, np.uint8)
    if raw.size == 0 or raw.size % record:
        raise ConfigError(f"{path} has {raw.size} bytes, not a positive multiple of the {record}-byte record")
    raw = raw.reshape(-1, record)
    images = raw[:, -3072:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), raw[:, : record - 3072]


def load_cifar10(root: str | os.PathLike, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """``(images [N, 32, 32, 3] uint8, labels [N] int64)`` of ``split`` ("train": data_batch_1..5, "test")."""
    if split not in ("train", "test"):
        raise ConfigError(f"split={split!r} is not allowed; choose 'train' or 'test'")
    root = _resolve(root, 10)
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] if split == "train" else ["test_batch.bin"]
    parts = [_read(root / n, 3073) for n in names]
    images = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1][:, 0] for p in parts]).astype(np.int64)
    if labels.max() > 9:
        raise ConfigError(f"{root}: label {int(labels.max())} > 9; is this CIFAR-100 (use load_cifar100)?")
    return images, labels


def load_cifar100(
    root: str | os.PathLike, split: str = "train", *, coarse: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``(images [N, 32, 32, 3] uint8, fine (or coarse) labels [N] int64)`` of ``split`` (train.bin / test.bin)."""
    if split not in ("train", "test"):
        raise ConfigError(f"split={split!r} is not allowed; choose 'train' or 'test'")
    root = _resolve(root, 100)
    images, head = _read(root / f"{split}.bin", 3074)
    return images, head[:, 0 if coarse else 1].astype(np.int64)
