"""The degree-filtration descriptor Φ(G) = (X, Y) (spec, "Descriptor Φ"; paper §4, Prop. 4.1).

f(v) = deg(v); V_i = {v : deg(v) ≤ ε_i}; x_i = |V_i|, y_i = #edges with both ends in V_i. Stored interleaved
(x_1, y_1, …, x_n, y_n). Thresholds are the 10%, …, 100% percentiles of the pooled degrees of the *training*
snapshots, with ε_n = +∞ so that x_n = |V| and y_n = |E| exactly for every snapshot (ties are kept: the
dimension never changes).

:func:`filtration_descriptor` is the jitted form on padded arrays (vmapped over trials in T1/T2); :func:`phi`
is the host form on a :class:`Snapshot` (used by the forecaster, decoder and metrics); tests check they agree
with each other and with a brute-force count.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.data.events import Snapshot


def degree_thresholds(train_snaps: list[Snapshot], n: int = 10) -> np.ndarray:
    """float64[n]: percentiles 100·i/n (i = 1..n) of the pooled training degrees; the last is +∞."""
    check_range("n", n, 1)
    degs = [s.degrees() for s in train_snaps if s.n_nodes]
    if not degs:
        raise ConfigError("train_snaps holds no node; thresholds need at least one non-empty training snapshot")
    pooled = np.concatenate(degs).astype(np.float64)
    thr = np.percentile(pooled, 100.0 * np.arange(1, n + 1) / n)
    thr[-1] = np.inf
    return thr


def node_levels(deg: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """0-based level of each node: the smallest i with ε_i ≥ deg (host form)."""
    return np.searchsorted(np.asarray(thresholds, np.float64), np.asarray(deg, np.float64), side="left")


def phi(snap: Snapshot, thresholds: np.ndarray) -> np.ndarray:
    """int64[2n] Φ of one snapshot (host form), interleaved (x_1, y_1, …)."""
    n = len(thresholds)
    lev = node_levels(snap.degrees(), thresholds)
    x = np.cumsum(np.bincount(lev, minlength=n + 1)[:n])
    elev = np.maximum(lev[snap.senders], lev[snap.receivers]) if snap.n_edges else np.zeros(0, np.int64)
    y = np.cumsum(np.bincount(elev, minlength=n + 1)[:n])
    return np.stack([x, y], axis=1).reshape(-1).astype(np.int64)


@jax.jit
def filtration_descriptor(
    senders: Int[Array, " E"],
    receivers: Int[Array, " E"],
    edge_mask: Bool[Array, " E"],
    node_mask: Bool[Array, " N"],
    thresholds: Float[Array, " L"],
) -> Int[Array, " P"]:
    """Φ on one padded graph (each undirected edge listed once; padded slots masked), P = 2L interleaved;
    jit and vmap friendly."""
    n_nodes, n = node_mask.shape[0], thresholds.shape[0]
    w = edge_mask.astype(jnp.int32)
    deg = jax.ops.segment_sum(w, senders, n_nodes) + jax.ops.segment_sum(w, receivers, n_nodes)
    lev = jnp.searchsorted(thresholds, deg.astype(thresholds.dtype), side="left")
    x = jnp.cumsum(jax.ops.segment_sum(node_mask.astype(jnp.int32), lev, n + 1)[:n])
    elev = jnp.maximum(lev[senders], lev[receivers])
    y = jnp.cumsum(jax.ops.segment_sum(w, elev, n + 1)[:n])
    return jnp.stack([x, y], axis=1).reshape(-1)


def split_xy(phi_vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, Y) from the interleaved vector."""
    p = np.asarray(phi_vec)
    return p[..., 0::2], p[..., 1::2]


def descriptor_error(phi_hat: np.ndarray, phi_true: np.ndarray) -> float:
    """Relative ℓ2 error ‖Φ̂ − Φ‖ / (‖Φ‖ + 1e−6)."""
    a, b = np.asarray(phi_hat, np.float64), np.asarray(phi_true, np.float64)
    return float(np.linalg.norm(a - b) / (np.linalg.norm(b) + 1e-6))


# --------------------------------------------------------------------------- optional channels (our extension)


def beta0_curve(snap: Snapshot, thresholds: np.ndarray) -> np.ndarray:
    """int64[n]: β0 of each sublevel subgraph G_i = G[V_i] (connected components, isolated nodes included),
    by one union-find pass over the edges in order of their level max(level(u), level(v)).

    An optional channel beside Φ (spec, "descriptor.py": β0 curve; off by default). β0_i ≥ x_i − y_i, and
    β0_n is the number of components of the whole snapshot.
    """
    n = len(thresholds)
    lev = node_levels(snap.degrees(), thresholds)
    x = np.cumsum(np.bincount(lev, minlength=n + 1)[:n])
    merges = np.zeros(n + 1, np.int64)
    if snap.n_edges:
        elev = np.maximum(lev[snap.senders], lev[snap.receivers])
        parent = list(range(snap.n_nodes))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        snd, rcv = snap.senders.tolist(), snap.receivers.tolist()
        for i in np.argsort(elev, kind="stable").tolist():
            ra, rb = find(snd[i]), find(rcv[i])
            if ra != rb:
                parent[ra] = rb
                merges[elev[i]] += 1
    return (x - np.cumsum(merges[:n])).astype(np.int64)


def netlsd_heat_trace(snap: Snapshot, times: np.ndarray | None = None, max_nodes: int = 2000) -> np.ndarray:
    """float64[len(times)]: the NetLSD heat trace h(s) = tr exp(−s L) = Σ_j exp(−s λ_j) of the normalised
    Laplacian L = I − D^{−1/2} A D^{−1/2} (rows of isolated nodes are 0, the networkx convention), at 16
    log-spaced times in [1e−2, 1e2] by default; dense eigendecomposition, so at most ``max_nodes`` nodes.

    An optional channel beside Φ (spec, "descriptor.py": NetLSD heat trace on ≤ 2k-node snapshots).
    """
    check_range("max_nodes", max_nodes, 1)
    if snap.n_nodes > max_nodes:
        raise ConfigError(f"snap has {snap.n_nodes} nodes; netlsd_heat_trace allows at most max_nodes={max_nodes}")
    s = np.logspace(-2, 2, 16) if times is None else np.asarray(times, np.float64).ravel()
    if snap.n_nodes == 0:
        return np.zeros(len(s))
    lam = np.linalg.eigvalsh(normalized_laplacian(snap))
    return np.exp(-np.outer(s, np.clip(lam, 0.0, None))).sum(1)


def normalized_laplacian(snap: Snapshot) -> np.ndarray:
    """float64[N, N]: I − D^{−1/2} A D^{−1/2} with zero rows and columns for isolated nodes."""
    n = snap.n_nodes
    a = np.zeros((n, n))
    a[snap.senders, snap.receivers] = a[snap.receivers, snap.senders] = 1.0
    deg = a.sum(1)
    inv = np.where(deg > 0, 1.0 / np.sqrt(np.maximum(deg, 1e-300)), 0.0)
    return np.diag((deg > 0).astype(np.float64)) - inv[:, None] * a * inv[None, :]


CHANNELS: tuple[str, ...] = ("phi", "beta0", "netlsd")


def extended_descriptor(snap: Snapshot, thresholds: np.ndarray, channels: tuple[str, ...] = ("phi",)) -> np.ndarray:
    """float64 concatenation of the requested channels, in :data:`CHANNELS` order: Φ (2n), β0 curve (n), NetLSD
    heat trace (16). The default is Φ alone (what the paper and every claim use)."""
    for c in channels:
        if c not in CHANNELS:
            raise ConfigError(f"channels contains {c!r}; allowed channels are {list(CHANNELS)}")
    parts = {"phi": lambda: phi(snap, thresholds), "beta0": lambda: beta0_curve(snap, thresholds),
             "netlsd": lambda: netlsd_heat_trace(snap)}
    return np.concatenate([np.asarray(parts[c](), np.float64) for c in CHANNELS if c in channels])
