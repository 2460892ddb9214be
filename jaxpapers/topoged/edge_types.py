"""Old/new nodes, the four inductive edge types and the count vector (spec, "Node identity" and "Edge types").

Edge types (int8): 0 = oo-bank (both old, in the bank B_t = edges of the previous k snapshots), 1 = oo-nobank,
2 = on (exactly one endpoint new), 3 = nn (both new). They partition E_t. ``history="all"``: old = seen in any
earlier snapshot (the paper's tables); ``"window"``: seen in one of the previous k snapshots.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.topoged.config import HISTORIES
from jaxpapers.topoged.data.events import Snapshot

OO_BANK, OO_NOBANK, ON, NN = 0, 1, 2, 3
TYPE_NAMES = ("oo_bank", "oo_nobank", "on", "nn")


@dataclasses.dataclass(frozen=True)
class CountVector:
    """c_t in the reference code's order (n_old, n_new, e_oobank, e_nn, e_on, e_oonobank)."""

    n_old: int
    n_new: int
    e_oobank: int
    e_nn: int
    e_on: int
    e_oonobank: int

    def as_array(self) -> np.ndarray:
        return np.array(dataclasses.astuple(self), np.float64)

    @property
    def type_counts(self) -> np.ndarray:
        """Edge counts in type order (oo-bank, oo-nobank, on, nn)."""
        return np.array([self.e_oobank, self.e_oonobank, self.e_on, self.e_nn], np.int64)


def pair_keys(edges: np.ndarray) -> np.ndarray:
    """int64 key u·2^31 + v of each undirected edge (u < v after sorting the pair)."""
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    a, b = np.minimum(e[:, 0], e[:, 1]), np.maximum(e[:, 0], e[:, 1])
    return a * (1 << 31) + b


def bank_keys(snaps: list[Snapshot], t: int, k: int | None) -> np.ndarray:
    """Sorted unique keys of the edges of snapshots t−k..t−1 (all earlier ones when ``k`` is None)."""
    lo = 0 if k is None else max(0, t - k)
    keys = [pair_keys(s.edges_global()) for s in snaps[lo:t]]
    return np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)


def classify(snaps: list[Snapshot], k: int = 5, history: str = "all") -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(node_is_new bool[N_t], edge_type int8[E_t]) for every snapshot."""
    check_choice("history", history, HISTORIES)
    check_range("k", k, 1)
    seen: dict[int, int] = {}  # node -> last snapshot index
    is_new_all, types_all = [], []
    for t, s in enumerate(snaps):
        if history == "all":
            is_new = np.array([v not in seen for v in s.node_ids.tolist()], bool)
        else:
            is_new = np.array([v not in seen or t - seen[v] > k for v in s.node_ids.tolist()], bool)
        e = s.edges_global()
        inbank = np.isin(pair_keys(e), bank_keys(snaps, t, k))
        nu, nv = is_new[s.senders], is_new[s.receivers]
        types = np.where(nu & nv, NN, np.where(nu | nv, ON, np.where(inbank, OO_BANK, OO_NOBANK))).astype(np.int8)
        for v in s.node_ids.tolist():
            seen[v] = t
        is_new_all.append(is_new)
        types_all.append(types)
    return is_new_all, types_all


def count_vector(is_new: np.ndarray, types: np.ndarray) -> CountVector:
    """The count vector of one snapshot from its classification."""
    c = np.bincount(np.asarray(types, np.int64), minlength=4)
    n_new = int(np.sum(is_new))
    return CountVector(len(is_new) - n_new, n_new, int(c[OO_BANK]), int(c[NN]), int(c[ON]), int(c[OO_NOBANK]))


def type_mix(snaps: list[Snapshot], k: int = 5, history: str = "all") -> dict[str, float]:
    """Table-2 statistics averaged over snapshots 1..T−1: mean |V|, |E|, old % and the four edge-type %."""
    is_new, types = classify(snaps, k, history)
    rows = []
    for s, nn_, ty in list(zip(snaps, is_new, types, strict=True))[1:]:
        if s.n_edges == 0:
            continue
        c = np.bincount(ty.astype(np.int64), minlength=4) / s.n_edges
        rows.append([s.n_nodes, s.n_edges, 100 * (1 - nn_.mean()), *(100 * c)])
    m = np.mean(rows, axis=0)
    return dict(zip(("nodes", "edges", "old", *TYPE_NAMES), m.tolist(), strict=True))
