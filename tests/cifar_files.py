"""Tiny CIFAR binary archives for the loader tests, written byte by byte from the format's definition.

A CIFAR-10 record is 1 label byte then 3072 pixel bytes (1024 R, 1024 G, 1024 B, each 32x32 row-major);
a CIFAR-100 record has a coarse and a fine label byte before the pixels.
"""

import numpy as np


def records(n: int, rng, *, fine: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(records [n, 3073|3074] uint8, labels [n], planar pixels [n, 3072])``; CIFAR-100 coarse = fine // 2."""
    labels = rng.integers(0, 10, n).astype(np.uint8)
    pix = rng.integers(0, 256, (n, 3072)).astype(np.uint8)
    head = np.stack([labels // 2, labels], 1) if fine else labels[:, None]
    return np.concatenate([head, pix], 1), labels, pix


def write_cifar10(folder, per_batch: int, rng, test: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``folder/data_batch_{1..5}.bin`` (``per_batch`` records each) and ``test_batch.bin``; returns the training
    ``(labels [5 * per_batch], planar pixels [5 * per_batch, 3072])`` in file order."""
    folder.mkdir(parents=True, exist_ok=True)
    labels, pixels = [], []
    for i in range(1, 6):
        rec, lab, pix = records(per_batch, rng)
        rec.tofile(folder / f"data_batch_{i}.bin")
        labels.append(lab)
        pixels.append(pix)
    records(test, rng)[0].tofile(folder / "test_batch.bin")
    return np.concatenate(labels), np.concatenate(pixels)
