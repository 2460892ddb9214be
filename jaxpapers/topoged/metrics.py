"""Forecast metrics: node/edge P/R/F1 under both ID protocols, structure statistics and "wins" (spec, Metrics and
Pitfalls "New-node ID protocol").

``protocol="strict"``: predicted new nodes carry ids disjoint from every true id, so they never match; node F1 is
over all nodes and edge F1 counts only identifiable matches. ``protocol="reference"`` (the paper's evaluator):
the true new nodes of G_t and the predicted new nodes are both numbered C_t, C_t+1, … — the truth's in order of
filtration level (lowest first, then id), the prediction's by bin — so new-node TP = min(n̂_new, n_new) whatever
the model does, and old–new / new–new edges match whenever the same-rank new node is attached alike.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from jaxpapers.core.checks import check_choice
from jaxpapers.topoged.config import PROTOCOLS
from jaxpapers.topoged.data.events import Snapshot
from jaxpapers.topoged.descriptor import node_levels

STRUCTURE = ("assortativity", "clustering", "avg_degree", "density", "triangles",
             "extra_nodes", "missing_nodes", "extra_edges", "missing_edges")
_NEW_BASE = 1 << 29


def _f1(tp: float, n_pred: float, n_true: float) -> tuple[float, float, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_true if n_true else 0.0
    return p, r, (2 * tp / (n_pred + n_true) if n_pred + n_true else 0.0)


def _keys(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    a, b = np.minimum(u, v), np.maximum(u, v)
    return a.astype(np.int64) * (1 << 31) + b


def reference_ids(truth: Snapshot, truth_is_new: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Truth node ids with the new ones renumbered _NEW_BASE + rank (rank by filtration level, then id)."""
    ids = truth.node_ids.copy()
    new = np.nonzero(truth_is_new)[0]
    lev = node_levels(truth.degrees()[new], thresholds)
    order = new[np.lexsort((truth.node_ids[new], lev))]
    ids[order] = _NEW_BASE + np.arange(len(order))
    return ids


def predicted_ids(pred: Snapshot, new_bins: dict[int, int] | None, protocol: str) -> np.ndarray:
    """Predicted node ids in the evaluation space: new ids (< 0) stay disjoint (strict) or become
    _NEW_BASE + rank by (bin, order of creation) (reference)."""
    ids = pred.node_ids.copy()
    new = np.nonzero(ids < 0)[0]
    if protocol == "reference" and len(new):
        created = -1 - ids[new]
        bins = np.array([(new_bins or {}).get(int(c), 0) for c in created])
        order = new[np.lexsort((created, bins))]
        ids[order] = _NEW_BASE + np.arange(len(order))
    elif len(new):
        ids[new] = -1 - np.arange(len(new)) - (1 << 30)  # never equal to a true id
    return ids


def forecast_scores(pred: Snapshot, truth: Snapshot, truth_is_new: np.ndarray, thresholds: np.ndarray,
                    protocol: str = "strict", new_bins: dict[int, int] | None = None) -> dict[str, float]:
    """Node F1 (all / old), new-node TP, edge P/R/F1 (all, and old–old) of one forecast."""
    check_choice("protocol", protocol, PROTOCOLS)
    t_ids = reference_ids(truth, truth_is_new, thresholds) if protocol == "reference" else truth.node_ids
    p_ids = predicted_ids(pred, new_bins, protocol)
    tp = float(np.isin(p_ids, t_ids).sum())
    out = dict(zip(("node_p", "node_r", "node_f1"), _f1(tp, len(p_ids), len(t_ids)), strict=True))
    p_old = pred.node_ids[pred.node_ids >= 0]
    t_old = truth.node_ids[~truth_is_new]
    out["node_f1_old"] = _f1(float(np.isin(p_old, t_old).sum()), len(p_old), len(t_old))[2]
    p_new, t_new = p_ids[pred.node_ids < 0], t_ids[truth_is_new]
    out["new_tp"] = float(np.isin(p_new, t_new).sum())
    out["n_new_pred"], out["n_new_true"] = float(len(p_new)), float(len(t_new))
    pk = _keys(p_ids[pred.senders], p_ids[pred.receivers])
    tk = _keys(t_ids[truth.senders], t_ids[truth.receivers])
    out.update(zip(("edge_p", "edge_r", "edge_f1"), _f1(float(np.isin(pk, tk).sum()), len(pk), len(tk)), strict=True))
    return out


def structure(snap: Snapshot) -> dict[str, float]:
    """Degree assortativity (NaN on regular or edgeless graphs), mean clustering, average degree, density and
    the number of triangles."""
    n, e = snap.n_nodes, snap.n_edges
    deg = snap.degrees().astype(np.float64)
    if e:
        a = sp.coo_matrix((np.ones(2 * e), (np.r_[snap.senders, snap.receivers], np.r_[snap.receivers, snap.senders])),
                          shape=(n, n)).tocsr()
        tri_node = np.asarray((a @ a).multiply(a).sum(1)).ravel() / 2.0
    else:
        tri_node = np.zeros(n)
    pairs = deg * (deg - 1) / 2
    clust = np.where(pairs > 0, tri_node / np.maximum(pairs, 1), 0.0)
    if e:
        x = np.r_[deg[snap.senders], deg[snap.receivers]]
        y = np.r_[deg[snap.receivers], deg[snap.senders]]
        sx, sy = x.std(), y.std()
        assort = float(np.mean((x - x.mean()) * (y - y.mean())) / (sx * sy)) if sx > 0 and sy > 0 else float("nan")
    else:
        assort = float("nan")
    return dict(assortativity=assort, clustering=float(clust.mean()) if n else 0.0,
                avg_degree=2 * e / n if n else 0.0, density=2 * e / (n * (n - 1)) if n > 1 else 0.0,
                triangles=float(tri_node.sum() / 3.0))


def structure_errors(pred: Snapshot, truth: Snapshot) -> np.ndarray:
    """float64[9] in :data:`STRUCTURE` order: signed relative errors (f̂ − f)/(|f| + 1e−6) of the five statistics
    (NaN where assortativity is undefined) and the extra/missing node and edge counts."""
    a, b = structure(pred), structure(truth)
    rel = [(a[k] - b[k]) / (abs(b[k]) + 1e-6) for k in STRUCTURE[:5]]
    dv, de = pred.n_nodes - truth.n_nodes, pred.n_edges - truth.n_edges
    return np.array([*rel, max(dv, 0), max(-dv, 0), max(de, 0), max(-de, 0)], np.float64)


def wins(errors: dict[str, np.ndarray]) -> tuple[dict[str, float], int]:
    """Per metric, the model with the smallest pooled mean |error| wins (ties split); NaN entries are skipped.
    ``errors``: model → float[snapshots, 9]. Returns (wins per model, number of skipped NaN entries)."""
    names = list(errors)
    skipped = int(sum(np.isnan(e).sum() for e in errors.values()))
    score = np.array([[np.nanmean(np.abs(errors[m][:, j])) if np.isfinite(errors[m][:, j]).any() else np.inf
                       for j in range(len(STRUCTURE))] for m in names])
    out = dict.fromkeys(names, 0.0)
    for j in range(score.shape[1]):
        col = score[:, j]
        if not np.isfinite(col).any():
            continue
        best = np.nonzero(np.isclose(col, col.min(), rtol=1e-9, atol=1e-12))[0]
        for i in best:
            out[names[i]] += 1.0 / len(best)
    return out, skipped
