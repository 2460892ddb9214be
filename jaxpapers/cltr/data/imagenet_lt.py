"""ImageNet-LT list files (Liu et al., OLTR): ``ImageNet_LT_{train,val,test}.txt``, one line per image,
``<path relative to the ILSVRC2012 root> <label>`` (1000 classes). Images are decoded elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError

SPLITS = ("train", "val", "test")


def load_imagenet_lt_list(root: str | os.PathLike, split: str = "train") -> tuple[list[str], np.ndarray]:
    """``(relative paths, labels [N] int64)`` parsed from ``root/ImageNet_LT_<split>.txt``."""
    if split not in SPLITS:
        raise ConfigError(f"split={split!r} is not allowed; choose 'train', 'val' or 'test'")
    path = Path(root) / f"ImageNet_LT_{split}.txt"
    if not path.is_file():
        raise ConfigError(f"{path} is missing; expected the OLTR list file ImageNet_LT_{split}.txt")
    paths, labels = [], []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[1].lstrip("-").isdigit():
            raise ConfigError(f"{path}:{i}: {line!r} is not '<relative path> <label>'")
        label = int(parts[1])
        if not 0 <= label < 1000:
            raise ConfigError(f"{path}:{i}: label {label} is out of range; allowed [0, 999]")
        paths.append(parts[0])
        labels.append(label)
    if not paths:
        raise ConfigError(f"{path} lists no images")
    return paths, np.asarray(labels, np.int64)
