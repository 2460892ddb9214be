"""Data for the sweeps (spec "Data"): scikit-learn digits, CIFAR-10 from its local binary archive, a synthetic teacher.

Every loader returns ``{"x": float32 [N, D], "y": int32 [N]}`` with inputs mapped to [-1, 1],
centred per feature and divided by one global standard deviation (protocol step 1).
"""

from __future__ import annotations

import os

import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.data.cifar import load_cifar10
from jaxpapers.core.errors import ConfigError

DATASETS = ("digits", "cifar10", "synthetic")


def standardise(x01: np.ndarray) -> np.ndarray:
    """[0, 1] features → [-1, 1], centred per feature, scaled by one global standard deviation."""
    x = 2.0 * np.asarray(x01, np.float64) - 1.0
    x = x - x.mean(0, keepdims=True)
    return (x / max(float(x.std()), 1e-12)).astype(np.float32)


def digits() -> dict[str, np.ndarray]:
    """scikit-learn's bundled ``load_digits`` (1797 × 64, 10 classes), x/16 mapped to [-1, 1] and centred."""
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("data.name='digits' needs scikit-learn (pip install scikit-learn); or use 'synthetic'")
    # The bundled file that ``sklearn.datasets.load_digits`` reads; read directly because importing
    # sklearn.datasets (and SciPy with it) costs seconds on a loaded 2-core machine. A test checks equality.
    path = os.path.join(spec.submodule_search_locations[0], "datasets", "data", "digits.csv.gz")
    raw = np.loadtxt(path, delimiter=",")
    return {"x": standardise(raw[:, :-1] / 16.0), "y": raw[:, -1].astype(np.int32)}


def synthetic(n: int = 1024, d: int = 32, classes: int = 10, seed: int = 0) -> dict[str, np.ndarray]:
    """Labels of a fixed random ReLU teacher (one hidden layer of 64) on Gaussian inputs."""
    check_range("n", n, 1)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    w1, w2 = rng.standard_normal((d, 64)) / np.sqrt(d), rng.standard_normal((64, classes)) / 8.0
    y = np.argmax(np.maximum(x @ w1, 0) @ w2, axis=1)
    return {"x": (x / x.std()).astype(np.float32), "y": y.astype(np.int32)}


def cifar10(data_dir: str, limit: int | None = None) -> dict[str, np.ndarray]:
    """CIFAR-10 training set from the binary archive in ``data_dir`` (``cifar-10-batches-bin/``, read by
    :func:`jaxpapers.core.data.cifar.load_cifar10`; the python pickles are refused), pixels in the archive's
    planar order (1024 R, 1024 G, 1024 B per image), the first ``limit`` images."""
    images, labels = load_cifar10(data_dir, "train")
    x = images[:limit].transpose(0, 3, 1, 2).reshape(-1, 3072)
    return {"x": standardise(x / 255.0), "y": labels[:limit].astype(np.int32)}


def load(name: str, data_dir: str = "", limit: int | None = None) -> dict[str, np.ndarray]:
    """One of :data:`DATASETS`."""
    check_choice("data.name", name, DATASETS)
    if name == "digits":
        return digits()
    if name == "synthetic":
        return synthetic()
    return cifar10(data_dir, limit)
