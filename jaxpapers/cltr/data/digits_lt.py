"""LT-digits: scikit-learn's bundled ``load_digits`` (1797 8x8 images, 10 classes) as a long-tail testbed.

Per class, in dataset order, the first ``n_test`` images form the balanced test set and the next ``n_pool``
the training pool from which long-tailed subsets are drawn (``lt.make_long_tailed``). Features: the 64 pixels
standardised with the pool's mean and standard deviation, optionally projected on the pool's top ``pca_dim``
principal directions (scaled to unit pool variance when ``whiten``), plus a bias column of ones when ``bias``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from threadpoolctl import threadpool_limits

from jaxpapers.cltr.config import DigitsConfig


@dataclasses.dataclass(frozen=True)
class DigitsSplit:
    """``x_pool [10*n_pool, d]``, ``y_pool`` (class-sorted), ``x_test [10*n_test, d]``, ``y_test`` (float64)."""

    x_pool: np.ndarray
    y_pool: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray

    @property
    def dim(self) -> int:
        return self.x_pool.shape[1]


def load_digits_split(cfg: DigitsConfig | None = None) -> DigitsSplit:
    """The split of ``cfg`` (default ``DigitsConfig()``; see the module docstring); deterministic."""
    cfg = DigitsConfig() if cfg is None else cfg
    from sklearn.datasets import load_digits

    data = load_digits()
    x, y = data.data.astype(np.float64), data.target.astype(np.int64)
    pool_idx, test_idx = [], []
    for c in range(10):
        idx = np.flatnonzero(y == c)
        test_idx.append(idx[: cfg.n_test])
        pool_idx.append(idx[cfg.n_test : cfg.n_test + cfg.n_pool])
    pool_idx, test_idx = np.concatenate(pool_idx), np.concatenate(test_idx)
    xp, xt = x[pool_idx], x[test_idx]
    mean, std = xp.mean(0), xp.std(0)
    std = np.where(std > 1e-8, std, 1.0)  # constant border pixels stay 0
    xp, xt = (xp - mean) / std, (xt - mean) / std
    if cfg.features == "pca":
        with threadpool_limits(1, user_api="blas"):
            _, _, vt = np.linalg.svd(xp, full_matrices=False)
        basis = vt[: cfg.pca_dim].T
        xp, xt = xp @ basis, xt @ basis
        if cfg.whiten:  # unit variance per principal component (pool statistics)
            scale = xp.std(0)
            xp, xt = xp / scale, xt / scale
    if cfg.bias:
        xp = np.concatenate([xp, np.ones((len(xp), 1))], 1)
        xt = np.concatenate([xt, np.ones((len(xt), 1))], 1)
    return DigitsSplit(xp, y[pool_idx], xt, y[test_idx])
