"""Caltech256 folders: ``256_ObjectCategories/NNN.name/NNN_MMMM.jpg`` (257 folders with ``257.clutter``,
excluded by default). Split (our choice): ``test_per_class`` images per class (balanced test set, drawn with
a legacy ``RandomState(seed)`` per class in class order), the rest for training; the natural class
imbalance factor of the training part is returned for logging."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

_FOLDER = re.compile(r"^(\d{3})\.(.+)$")
_IMAGE = (".jpg", ".jpeg", ".png")


def load_caltech256(
    root: str | os.PathLike, *, test_per_class: int = 25, include_clutter: bool = False, seed: int = 0
) -> dict:
    """``{"train_paths", "train_labels", "test_paths", "test_labels", "class_names", "imbalance"}``.

    Labels are ``NNN - 1`` in folder order; a class with at most ``test_per_class`` images is an error."""
    check_range("test_per_class", test_per_class, 1)
    root = Path(root)
    if (root / "256_ObjectCategories").is_dir():
        root = root / "256_ObjectCategories"
    if not root.is_dir():
        raise ConfigError(f"root={str(root)!r} is not a directory; expected 256_ObjectCategories/")
    folders = sorted(p for p in root.iterdir() if p.is_dir() and _FOLDER.match(p.name))
    if not include_clutter:
        folders = [p for p in folders if not p.name.endswith(".clutter")]
    if not folders:
        raise ConfigError(f"{root} holds no 'NNN.name' class folders")
    rs = np.random.RandomState(seed)
    out = {"train_paths": [], "train_labels": [], "test_paths": [], "test_labels": [], "class_names": []}
    counts = []
    for label, folder in enumerate(folders):
        files = sorted(str(f) for f in folder.iterdir() if f.suffix.lower() in _IMAGE)
        if len(files) <= test_per_class:
            raise ConfigError(f"{folder} has {len(files)} images; needs more than test_per_class={test_per_class}")
        order = np.arange(len(files))
        rs.shuffle(order)
        test, train = order[:test_per_class], np.sort(order[test_per_class:])
        out["test_paths"] += [files[i] for i in np.sort(test)]
        out["test_labels"] += [label] * test_per_class
        out["train_paths"] += [files[i] for i in train]
        out["train_labels"] += [label] * len(train)
        out["class_names"].append(_FOLDER.match(folder.name).group(2))
        counts.append(len(train))
    out["train_labels"] = np.asarray(out["train_labels"], np.int64)
    out["test_labels"] = np.asarray(out["test_labels"], np.int64)
    out["imbalance"] = float(max(counts) / min(counts))
    return out
