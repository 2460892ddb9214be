"""The learned descriptor forecaster (spec, "Descriptor/budget predictor": the paper's regression-trained option).

:class:`GRUForecaster` maps the last k = 5 observed vectors to the next one. Inputs are z-scored log1p values
(per coordinate, statistics of the fitting series; our choice); one GRU layer (hidden 64) reads the k rows and
a linear read-out of its last state predicts the *change* from the last row (so an untrained model is
copy-last; our choice), trained by MSE in that space with Adam (``core.train``: one ``lax.scan``, full batch of
every window of the fitting series). Histories shorter than k are left-padded with their first row.
The forecast is ``expm1`` of the de-standardised output, clipped at 0.
"""

from __future__ import annotations

import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.sim import fast_compile_options
from jaxpapers.core.train import OptimConfig, make_optimizer, make_seed_trainer


class _GRUNet(nn.Module):
    """z-space window [B, k, D] → z-space next row [B, D] = last row + Dense(GRU state after k steps)."""

    hidden: int
    dim: int

    @nn.compact
    def __call__(self, z: Float[Array, "B k D"]) -> Float[Array, "B D"]:
        cell = nn.GRUCell(self.hidden, name="gru")
        h = jnp.zeros((z.shape[0], self.hidden), z.dtype)
        for j in range(z.shape[1]):
            h, _ = cell(h, z[:, j])
        return z[:, -1] + nn.Dense(self.dim, kernel_init=nn.initializers.zeros, name="out")(h)


def windows(v: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(inputs [T−1, k, D], targets [T−1, D]): for every j ≥ 1 the k rows before j (left-padded with row 0)."""
    v = np.asarray(v, np.float64)
    pad = np.concatenate([np.repeat(v[:1], k - 1, axis=0), v])
    x = np.stack([pad[j : j + k] for j in range(len(v) - 1)])
    return x, v[1:]


@functools.cache
def _trainer(hidden: int, dim: int, k: int, steps: int, lr: float):
    net = _GRUNet(hidden, dim)

    def init(key, d):
        return net.init(key, d["x"][:1])["params"]

    def loss_fn(params, batch, key, *, train):
        del key, train
        pred = net.apply({"params": params}, batch["x"])
        return jnp.mean((pred - batch["y"]) ** 2), {}

    tx = make_optimizer(OptimConfig(lr=lr), steps)
    return make_seed_trainer(init, loss_fn, tx, lambda key, d: d, steps=steps,
                             compiler_options=fast_compile_options(1)), net


class GRUForecaster:
    """Learned one-step forecaster of a vector series: ``fit(series [T, D])`` then ``predict(history) -> [D]``.

    ``k`` history rows, ``hidden`` GRU units, ``steps`` full-batch Adam steps at ``lr``; ``seed`` fixes the
    initialisation. Several series of one length are fitted at once by :meth:`fit_many` (vmapped over them).
    """

    def __init__(self, k: int = 5, hidden: int = 64, steps: int = 300, lr: float = 1e-2, seed: int = 0):
        check_range("k", k, 1)
        check_range("hidden", hidden, 1)
        check_range("steps", steps, 1)
        check_range("lr", lr, 0.0, lo_open=True)
        self.k, self.hidden, self.steps, self.lr, self.seed = k, hidden, steps, lr, seed
        self.params = None

    def _z(self, v: np.ndarray) -> np.ndarray:
        return (np.log1p(np.clip(v, 0, None)) - self.mean) / self.std

    def fit(self, series: np.ndarray) -> GRUForecaster:
        """Fits on every window of ``series`` [T, D] (T ≥ 2)."""
        return self.fit_many([series])[0]

    def fit_many(self, many: list[np.ndarray]) -> list[GRUForecaster]:
        """One forecaster per series (all [T, D] of one shape), trained in one vmapped program."""
        arrs = [np.asarray(s, np.float64) for s in many]
        if not arrs or any(a.ndim != 2 or a.shape != arrs[0].shape or a.shape[0] < 2 for a in arrs):
            raise ConfigError(f"series must all be [T, D] of one shape with T >= 2; got {[a.shape for a in arrs]}")
        out, data = [], []
        for a in arrs:
            f = GRUForecaster(self.k, self.hidden, self.steps, self.lr, self.seed)
            lg = np.log1p(np.clip(a, 0, None))
            f.mean, f.std = lg.mean(0), np.maximum(lg.std(0), 1e-3)
            x, y = windows(f._z(a), self.k)
            data.append({"x": x.astype(np.float32), "y": y.astype(np.float32)})
            out.append(f)
        run, self._net = _trainer(self.hidden, arrs[0].shape[1], self.k, self.steps, self.lr)
        keys = jax.vmap(jax.random.key)(np.full(len(arrs), self.seed))
        res = run(keys, jax.tree.map(lambda *a: jnp.asarray(np.stack(a)), *data))
        for i, f in enumerate(out):
            f.params = jax.tree.map(lambda a, i=i: np.asarray(a[i]), res.params)
            f.losses = np.asarray(res.losses[i])
            f._net = self._net
        return out

    def predict(self, history: np.ndarray) -> np.ndarray:
        """float64[D]: the forecast of the row after ``history`` [T, D] (T ≥ 1) from its last k rows."""
        if self.params is None:
            raise ConfigError("GRUForecaster.predict called before fit")
        h = np.asarray(history, np.float64)
        if h.ndim != 2 or h.shape[0] < 1 or h.shape[1] != len(self.mean):
            raise ConfigError(f"history must be [T >= 1, {len(self.mean)}]; got shape {h.shape}")
        x, _ = windows(np.concatenate([self._z(h), np.zeros((1, h.shape[1]))]), self.k)
        z = np.asarray(self._net.apply({"params": self.params}, jnp.asarray(x[-1:], jnp.float32)))[0]
        return np.clip(np.expm1(z.astype(np.float64) * self.std + self.mean), 0, None)
