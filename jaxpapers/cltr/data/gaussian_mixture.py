"""Offline stand-ins: a Gaussian mixture with any class counts, and class-conditional 32x32 textures.

Mixture: class ``c`` has mean ``delta * R e_c`` (``R`` a random rotation of R^d) and identity covariance.
Textures: image = a class-specific sinusoidal grating (frequency and orientation set by the class) plus
Gaussian noise, uint8 NHWC; used for the shape and smoke tests of ResNet-32 and the prompted ViT.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError


def gaussian_mixture(
    counts: Sequence[int] | np.ndarray, dim: int, *, delta: float = 3.0, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``(x [sum(counts), dim] float64, y int64)``: ``counts[c]`` draws of ``N(delta R e_c, I)``."""
    counts = np.asarray(counts, np.int64)
    check_range("dim", dim, 1)
    check_range("counts", counts, 0)
    if len(counts) > dim:
        raise ConfigError(f"dim={dim} is smaller than the {len(counts)} classes; means delta*e_c need dim >= C")
    rng = np.random.default_rng(seed)
    rot, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    y = np.repeat(np.arange(len(counts)), counts)
    x = rng.normal(size=(len(y), dim)) + delta * rot[:, y].T
    return x, y


def synthetic_images(n: int, num_classes: int, *, size: int = 32, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(images [n, size, size, 3] uint8, labels [n] int32)``: class gratings plus noise, labels cycled."""
    check_range("n", n, 1)
    check_range("num_classes", num_classes, 1)
    check_range("size", size, 1)
    rng = np.random.default_rng(seed)
    y = np.arange(n) % num_classes
    u, v = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    angle = np.pi * y / num_classes
    freq = 2 * np.pi * (1 + y % 4) / size
    phase = (np.cos(angle)[:, None, None] * u + np.sin(angle)[:, None, None] * v) * freq[:, None, None]
    base = 0.5 + 0.35 * np.sin(phase)[..., None] * np.array([1.0, 0.7, 0.4])
    img = np.clip(base + 0.1 * rng.normal(size=(n, size, size, 3)), 0, 1)
    return (img * 255).astype(np.uint8), y.astype(np.int32)
