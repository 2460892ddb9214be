"""Standard online learning of thresholds for contrast (spec D6): instances NOT announced, domain [N], horizon T.

With N points there are N + 1 thresholds; the version space is always an interval of n consecutive thresholds,
and a query splits it into (a, n − a) for any 1 ≤ a ≤ n − 1 (or not at all: a wasted round). The minimax
mistakes after r rounds follow the DP on (version-space size, rounds left)

    W_r(n) = max(W_{r−1}(n), max_{1≤a<n} max(v_(1), v_(2) + 1) of {W_{r−1}(a), W_{r−1}(n − a)}),

vectorised over (n, a) in JAX (one ``lax.scan`` over rounds); W_T(N + 1) = min(T, ⌊log2(N + 1)⌋).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.checks import check_range

__all__ = ["standard_online_table", "standard_online_thresholds", "standard_online_thresholds_numpy"]


@functools.partial(jax.jit, static_argnums=(0, 1))
def _dp(n_max: int, rounds: int):
    """``W[r, n]`` for r = 0..rounds and n = 0..n_max (one program serves every horizon ≤ rounds)."""
    n = jnp.arange(n_max + 1)
    a = jnp.arange(n_max + 1)
    valid = (a[None, :] >= 1) & (a[None, :] < n[:, None])  # [n, a]
    b = jnp.clip(n[:, None] - a[None, :], 0, n_max)

    def step(W, _):
        va, vb = W[a][None, :], W[b]
        split = jnp.where(valid, jnp.maximum(jnp.maximum(va, vb), jnp.minimum(va, vb) + 1), 0)
        W = jnp.maximum(W, jnp.max(split, axis=1))
        return W, W

    W0 = jnp.zeros(n_max + 1, jnp.int32)
    _, hist = jax.lax.scan(step, W0, None, length=rounds)
    return jnp.concatenate([W0[None], hist])


def standard_online_table(n_max: int, rounds: int) -> np.ndarray:
    """Minimax mistakes ``W[r, n]`` of the standard online thresholds game: n consistent thresholds, r rounds."""
    check_range("n_max", n_max, 1, 1 << 14)
    check_range("rounds", rounds, 0, 64)
    return np.asarray(_dp(int(n_max), int(rounds)))


def standard_online_thresholds(N: int, horizon: int) -> int:
    """Minimax mistakes of the standard online game for thresholds on [N] (N + 1 hypotheses), ``horizon`` rounds."""
    check_range("N", N, 1, 1 << 14)
    check_range("horizon", horizon, 0, 64)
    return int(standard_online_table(N + 1, horizon)[horizon, N + 1])


def standard_online_thresholds_numpy(N: int, horizon: int) -> int:
    """The same DP as a plain Python loop (test reference)."""
    W = [0] * (N + 2)
    for _ in range(horizon):
        new = list(W)
        for n in range(2, N + 2):
            for a in range(1, n):
                x, y = sorted((W[a], W[n - a]), reverse=True)
                new[n] = max(new[n], max(x, y + 1))
        W = new
    return W[N + 1]
