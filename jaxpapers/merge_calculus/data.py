"""Data for the sweeps (spec "Data"): scikit-learn digits, CIFAR-10 from local pickles, a synthetic teacher.

Every loader returns ``{"x": float32 [N, D], "y": int32 [N]}`` with inputs mapped to [-1, 1],
centred per feature and divided by one global standard deviation (protocol step 1).
"""

from __future__ import annotations

import os
import pickle

import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

DATASETS = ("digits", "cifar10", "synthetic")
CIFAR_FILES = tuple(f"data_batch_{i}" for i in range(1, 6))


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


def _read_batch(path: str) -> dict[str, np.ndarray]:
    if not os.path.isfile(path):
        raise ConfigError(f"CIFAR-10 file {path!r} does not exist; expected the 'python' pickle batches there")
    try:
        with open(path, "rb") as f:
            raw = pickle.load(f, encoding="bytes")
    except Exception as e:  # noqa: BLE001 - any unreadable file is one clear error
        raise ConfigError(f"CIFAR-10 file {path!r} is not a readable pickle ({type(e).__name__})") from None
    raw = {k.decode() if isinstance(k, bytes) else k: v for k, v in raw.items()}
    if "data" not in raw or "labels" not in raw:
        raise ConfigError(f"CIFAR-10 file {path!r} has keys {sorted(raw)}; expected 'data' and 'labels'")
    x = np.asarray(raw["data"])
    if x.dtype != np.uint8 or x.ndim != 2 or x.shape[1] != 3072:
        raise ConfigError(f"CIFAR-10 file {path!r}: data is {x.dtype} {x.shape}; expected uint8 [N, 3072]")
    return {"x": x, "y": np.asarray(raw["labels"], np.int32)}


def cifar10(data_dir: str, limit: int | None = None) -> dict[str, np.ndarray]:
    """CIFAR-10 training set from ``data_dir/data_batch_{1..5}`` (the 'python' pickles), via a grain MapDataset."""
    import grain

    if not os.path.isdir(data_dir):
        raise ConfigError(f"data_dir={data_dir!r} is not a directory; expected the CIFAR-10 'python' batches there")
    ds = grain.MapDataset.source([os.path.join(data_dir, f) for f in CIFAR_FILES]).map(_read_batch)
    parts = [ds[i] for i in range(len(ds))]
    x = np.concatenate([p["x"] for p in parts])[:limit]
    y = np.concatenate([p["y"] for p in parts])[:limit]
    return {"x": standardise(x / 255.0), "y": y}


def load(name: str, data_dir: str = "", limit: int | None = None) -> dict[str, np.ndarray]:
    """One of :data:`DATASETS`."""
    check_choice("data.name", name, DATASETS)
    if name == "digits":
        return digits()
    if name == "synthetic":
        return synthetic()
    return cifar10(data_dir, limit)
