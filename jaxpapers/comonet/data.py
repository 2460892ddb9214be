"""Data: the synthetic nine-regime function, sklearn's bundled sets, preprocessing and splits.

* :func:`synthetic_nine` — x ~ U[-1, 1]^9 with one variable per regime (spec "Synthetic 9-regime
  function", our construction); noise is a fraction of std(f) of the drawn sample.
* :func:`diabetes`, :func:`breast_cancer` — scikit-learn's bundled sets (the ``data`` extra).
* The public tabular benchmarks (CO8) are read from local files by :mod:`jaxpapers.comonet.loaders`.
* :class:`Standardizer` (positive per-feature scale only: a negative scale would flip inc ↔ dec),
  :func:`split`, :func:`kfold`, and :func:`pipeline`, the grain ``MapDataset`` of shuffled batches.

Every loader returns a :class:`TabularData` whose ``regimes`` maps the dataset's documented
column→regime choice onto its columns; one-hot categorical columns are always ``free``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import grain
import numpy as np

from jaxpapers.comonet.config import TASKS
from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.errors import ConfigError

NINE_REGIMES: tuple[str, ...] = ("free", "inc", "dec", "cvx", "ccv", "cvx_inc", "cvx_dec", "ccv_inc", "ccv_dec")


class DataNotFoundError(ConfigError, FileNotFoundError):
    """A dataset file that is not on disk (loaders never download)."""


@dataclasses.dataclass(frozen=True)
class TabularData:
    """Features ``x [n, d]`` (float32), targets ``y [n]`` (float32), column names and regimes.

    ``x_test``/``y_test`` are set when the source ships its own test split (``load_presplit``).
    """

    name: str
    x: np.ndarray
    y: np.ndarray
    columns: tuple[str, ...]
    regimes: GroupSpec
    task: str = "regression"
    x_test: np.ndarray | None = None
    y_test: np.ndarray | None = None

    def __post_init__(self):
        check_choice("task", self.task, TASKS)
        if self.x.ndim != 2 or self.y.shape != (self.x.shape[0],):
            raise ConfigError(f"{self.name}: x has shape {self.x.shape} and y {self.y.shape}; expected (n, d) and (n,)")
        if self.x.shape[1] != len(self.columns) or self.regimes.num_features != len(self.columns):
            raise ConfigError(f"{self.name}: {self.x.shape[1]} features, {len(self.columns)} column names")

    @property
    def num_features(self) -> int:
        return self.x.shape[1]


# --------------------------------------------------------------------------------------------------
# The synthetic nine-regime function
# --------------------------------------------------------------------------------------------------


def nine_regime_function(x: np.ndarray) -> np.ndarray:
    """f(x) for x [n, 9] in the order (free, inc, dec, cvx, ccv, cvx_inc, cvx_dec, ccv_inc, ccv_dec).

    f = sin(πx₀) + (1 + 0.5 sin πx₀)(x₁ + 0.3 sin 3x₁) − (x₂ + 0.3 sin 3x₂) + (1 + 0.3 cos x₀)(x₃² − 0.5x₃)
        − (x₄² − 0.3x₄) + e^{x₅} + e^{−x₆} − e^{−x₇} − e^{x₈} + 0.5 softplus(x₃ + x₅)
    Every term respects its variable's regime on all of R^9 (x₁ + 0.3 sin 3x₁ has slope ≥ 0.1).
    """
    x = np.asarray(x, np.float64)
    if x.ndim != 2 or x.shape[1] != 9:
        raise ConfigError(f"x has shape {x.shape}; expected (n, 9)")
    x0, x1, x2, x3, x4, x5, x6, x7, x8 = x.T
    s0 = np.sin(np.pi * x0)
    return (
        s0
        + (1 + 0.5 * s0) * (x1 + 0.3 * np.sin(3 * x1))
        - (x2 + 0.3 * np.sin(3 * x2))
        + (1 + 0.3 * np.cos(x0)) * (x3**2 - 0.5 * x3)
        - (x4**2 - 0.3 * x4)
        + np.exp(x5)
        + np.exp(-x6)
        - np.exp(-x7)
        - np.exp(x8)
        + 0.5 * np.logaddexp(0.0, x3 + x5)
    )


def synthetic_nine(
    n: int = 2000, *, noise: float = 0.1, seed: int = 0, box: tuple[float, float] = (-1.0, 1.0)
) -> dict[str, np.ndarray]:
    """Draws ``{"x": [n, 9], "y": [n], "f": [n]}`` (float32) with x ~ U[box]^9 and y = f + σ ε.

    σ = ``noise`` · std(f) over the drawn sample (``noise_std`` is returned as a 0-d array).
    """
    check_range("n", n, 2)
    check_range("noise", noise, 0.0)
    if not box[0] < box[1]:
        raise ConfigError(f"box={tuple(box)!r} must be (low, high) with low < high")
    rng = np.random.default_rng(seed)
    x = rng.uniform(box[0], box[1], size=(n, 9))
    f = nine_regime_function(x)
    sigma = noise * float(np.std(f))
    y = f + sigma * rng.standard_normal(n)
    return {
        "x": x.astype(np.float32),
        "y": y.astype(np.float32),
        "f": f.astype(np.float32),
        "noise_std": np.asarray(sigma, np.float32),
    }


# --------------------------------------------------------------------------------------------------
# Preprocessing, splits, pipelines
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Standardizer:
    """Per-feature ``(x - mean) / scale`` with ``scale > 0`` (constant columns get scale 1).

    A negative scale would silently turn an increasing variable into a decreasing one, so it is
    refused; this is the only preprocessing COMONet's guarantees allow in front of the model.
    """

    mean: np.ndarray
    scale: np.ndarray

    def __post_init__(self):
        if np.any(~(np.asarray(self.scale) > 0)):
            bad = np.flatnonzero(~(np.asarray(self.scale) > 0))[:5].tolist()
            raise ConfigError(f"Standardizer scale must be > 0 (a negative scale flips inc/dec); bad columns {bad}")

    @classmethod
    def fit(cls, x: np.ndarray) -> Standardizer:
        x = np.asarray(x, np.float64)
        std = x.std(axis=0)
        return cls(mean=x.mean(axis=0), scale=np.where(std > 0, std, 1.0))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return ((np.asarray(x, np.float64) - self.mean) / self.scale).astype(np.float32)

    def inverse(self, z: np.ndarray) -> np.ndarray:
        return (np.asarray(z, np.float64) * self.scale + self.mean).astype(np.float32)


def split(n: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random (train, test) index split."""
    check_range("test_fraction", test_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    perm = np.random.default_rng(seed).permutation(n)
    n_test = max(1, int(round(n * test_fraction)))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def kfold(n: int, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded k-fold (train, test) index pairs; fold sizes differ by at most one."""
    check_range("k", k, 2, n)
    perm = np.random.default_rng(seed).permutation(n)
    folds = np.array_split(perm, k)
    return [(np.sort(np.concatenate(folds[:i] + folds[i + 1 :])), np.sort(folds[i])) for i in range(k)]


def pipeline(x: np.ndarray, y: np.ndarray, batch_size: int, *, seed: int) -> grain.MapDataset:
    """The training input: a grain MapDataset of shuffled ``{"x": [b, d], "y": [b]}`` batches, repeated."""
    check_range("batch_size", batch_size, 1)
    source = ArraySource({"x": np.asarray(x, np.float32), "y": np.asarray(y, np.float32)})
    return train_batches(source, min(batch_size, len(source)), seed=seed)


# --------------------------------------------------------------------------------------------------
# scikit-learn bundled sets (the ``data`` extra)
# --------------------------------------------------------------------------------------------------

DIABETES_REGIMES = {"bmi": "inc", "bp": "inc", "s5": "inc"}
BREAST_CANCER_REGIMES = {"worst radius": "inc", "worst area": "inc", "worst concave points": "inc"}


def _sklearn_datasets():
    try:
        from sklearn import datasets
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("this dataset needs scikit-learn: pip install 'jaxpapers[data]'") from e
    return datasets


def diabetes(regimes: Mapping[str, str] | None = None) -> TabularData:
    """sklearn's diabetes regression (442 × 10); bmi, bp and s5 declared ``inc`` (raw, unstandardised)."""
    d = _sklearn_datasets().load_diabetes()
    columns = tuple(d.feature_names)
    spec = parse_regimes(DIABETES_REGIMES if regimes is None else regimes, columns)
    return TabularData("diabetes", d.data.astype(np.float32), d.target.astype(np.float32), columns, spec)


def breast_cancer(regimes: Mapping[str, str] | None = None) -> TabularData:
    """sklearn's breast cancer (569 × 30) as a malignancy logit: target 1 - y (sklearn codes 0 = malignant).

    worst radius, worst area and worst concave points are declared ``inc`` (a domain assumption, our choice).
    """
    d = _sklearn_datasets().load_breast_cancer()
    columns = tuple(str(c) for c in d.feature_names)
    spec = parse_regimes(BREAST_CANCER_REGIMES if regimes is None else regimes, columns)
    y = (1 - d.target).astype(np.float32)
    return TabularData("breast_cancer", d.data.astype(np.float32), y, columns, spec, task="binary")


def as_arrays(data: TabularData | Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` float32 arrays from a TabularData or a ``{"x", "y"}`` mapping."""
    if isinstance(data, TabularData):
        return data.x, data.y
    if isinstance(data, Mapping) and "x" in data and "y" in data:
        return np.asarray(data["x"], np.float32), np.asarray(data["y"], np.float32)
    raise ConfigError(f"data must be a TabularData or a mapping with 'x' and 'y'; got {type(data).__name__}")
