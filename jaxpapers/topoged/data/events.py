"""Event streams and the snapshot builder (spec, Definitions: "Snapshots").

Events (u, v, τ) are binned into windows; each snapshot is a simple undirected graph: self-loops dropped,
(u, v) and (v, u) merged, nodes = endpoints. Snapshot indices are contiguous from 0 (empty windows are kept
as empty snapshots: they are real days).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

_FREQS = {"10min": 600.0, "8h": 8 * 3600.0, "1D": 86400.0, "1W": 7 * 86400.0, "1M": 30 * 86400.0}


@dataclasses.dataclass(frozen=True)
class EventStream:
    """Timestamped interactions: ``src``, ``dst`` (int64 node ids) and ``t`` (float64 seconds)."""

    src: np.ndarray
    dst: np.ndarray
    t: np.ndarray

    def __post_init__(self):
        src, dst, t = (np.asarray(self.src), np.asarray(self.dst), np.asarray(self.t))
        if not (src.ndim == dst.ndim == t.ndim == 1 and len(src) == len(dst) == len(t)):
            raise ConfigError(
                f"EventStream: src, dst, t must be 1-D of one length; got shapes {src.shape}, {dst.shape}, {t.shape}"
            )
        if src.size and (src.min() < 0 or dst.min() < 0):
            raise ConfigError("EventStream: node ids must be >= 0")
        object.__setattr__(self, "src", src.astype(np.int64))
        object.__setattr__(self, "dst", dst.astype(np.int64))
        object.__setattr__(self, "t", t.astype(np.float64))

    def __len__(self) -> int:
        return len(self.src)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One undirected simple graph: global ``node_ids`` int64[N] (sorted) and each edge once as local indices
    ``senders`` < ``receivers`` (int32[E]), sorted lexicographically."""

    node_ids: np.ndarray
    senders: np.ndarray
    receivers: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def n_edges(self) -> int:
        return len(self.senders)

    def edges_global(self) -> np.ndarray:
        """int64[E, 2] edges in global ids (u < v)."""
        return np.stack([self.node_ids[self.senders], self.node_ids[self.receivers]], axis=1).reshape(-1, 2)

    def degrees(self) -> np.ndarray:
        """int64[N] degree of each node."""
        return np.bincount(np.concatenate([self.senders, self.receivers]), minlength=self.n_nodes).astype(np.int64)


def snapshot_from_edges(u: np.ndarray, v: np.ndarray, nodes: np.ndarray | None = None) -> Snapshot:
    """Builds a :class:`Snapshot` from global endpoint arrays: drops self-loops and merges duplicates.

    ``nodes`` (optional) adds isolated nodes (a decoded graph keeps its whole predicted node set).
    """
    u, v = np.asarray(u, np.int64).ravel(), np.asarray(v, np.int64).ravel()
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    pairs = np.unique(np.stack([a, b], axis=1), axis=0) if a.size else np.zeros((0, 2), np.int64)
    ids = np.unique(pairs.ravel()) if nodes is None else np.unique(np.concatenate([pairs.ravel(), nodes]))
    local = np.searchsorted(ids, pairs)
    return Snapshot(ids.astype(np.int64), local[:, 0].astype(np.int32), local[:, 1].astype(np.int32))


def to_snapshots(stream: EventStream, freq: str | float | int = "1D") -> list[Snapshot]:
    """Bins events into snapshots with contiguous indices 0..T−1.

    ``freq``: a name (``"10min"``, ``"8h"``, ``"1D"``, ``"1W"``, ``"1M"`` = 30 days), a float window length in
    seconds, or an int n: n bins holding equal numbers of events ("equal-edge bins"). Windows start at the first
    event's time floored to a multiple of the window length.
    """
    n = len(stream)
    if isinstance(freq, bool):
        raise ConfigError(f"freq={freq!r} is not allowed; choose {sorted(_FREQS)}, seconds (float) or a bin count")
    if isinstance(freq, int):
        check_range("freq", freq, 1)
        order = np.argsort(stream.t, kind="stable")
        index = np.empty(n, np.int64)
        index[order] = (np.arange(n) * freq) // max(n, 1)
        n_bins = freq
    else:
        if isinstance(freq, str):
            if freq not in _FREQS:
                raise ConfigError(f"freq={freq!r} is not allowed; choose {sorted(_FREQS)}, seconds or a bin count")
            width = _FREQS[freq]
        else:
            width = float(freq)
            check_range("freq", width, 0.0, lo_open=True)
        if n == 0:
            return []
        origin = np.floor(stream.t.min() / width) * width
        index = np.floor((stream.t - origin) / width).astype(np.int64)
        n_bins = int(index.max()) + 1
    order = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[order], np.arange(n_bins + 1))
    snaps = []
    for i in range(n_bins):
        sel = order[bounds[i] : bounds[i + 1]]
        snaps.append(snapshot_from_edges(stream.src[sel], stream.dst[sel]))
    return snaps


def relabel_by_first_appearance(snaps: list[Snapshot]) -> list[Snapshot]:
    """The same snapshots with node ids 0, 1, 2, … in order of first appearance (ties by the old id)."""
    mapping: dict[int, int] = {}
    for s in snaps:
        for v in s.node_ids.tolist():
            if v not in mapping:
                mapping[v] = len(mapping)
    out = []
    for s in snaps:
        e = s.edges_global()
        new = np.array([mapping[v] for v in s.node_ids.tolist()], np.int64)
        m = dict(zip(s.node_ids.tolist(), new.tolist(), strict=True))
        ee = np.array([[m[a], m[b]] for a, b in e.tolist()], np.int64).reshape(-1, 2)
        out.append(snapshot_from_edges(ee[:, 0], ee[:, 1], nodes=new))
    return out
