"""Baselines under the paper's threshold-and-cap protocol (App. D.5), all in one global ID space.

* :func:`copy_last` — Ĝ_{t} = G_{t−1} (score 1 on its edges, τ = 0.5).
* :func:`edgebank_scores` — EdgeBank over the last k snapshots with recency, plus a degree term (our scorer).
* :class:`GCNGRU` — identity node features (an embedding table), one GCN layer (``core.nn.GCNLayer``) per
  snapshot, a GRU over time per node, dot-product link scores (a GC-LSTM-lite, the paper's identity setup).

Protocol: score every pair of the universe (nodes seen before t by default; ``"all_time"`` = every node of the
series, the paper's leaky option), keep p ≥ τ*, cap at ``cap_factor``·|E_{t−1}| by top-k; the predicted node
set is the set of endpoints. τ* maximises validation F1 on the *sampled* set (every positive plus as many
uniform pairs, the reference's choice) or on all pairs.
* :class:`EvolveGCNO` — EvolveGCN-O (Pareja et al. 2020): the GCN weight matrix is evolved over snapshots by a
  matrix GRU whose input and hidden state are both W_{τ−1}; identity node features (an embedding table), the
  same dot-product scores and training as GCNGRU (full preset: T6's "+ EvolveGCN-O").
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.nn.graph import GCNLayer, GraphBatch
from jaxpapers.core.sim import fast_compile_options
from jaxpapers.core.train import OptimConfig, make_optimizer, make_seed_trainer
from jaxpapers.topoged.config import BaselineConfig
from jaxpapers.topoged.data.events import Snapshot, snapshot_from_edges


def universe_before(snaps: list[Snapshot], t: int, universe: str = "seen") -> np.ndarray:
    """Sorted node ids of the scoring universe at target t."""
    chosen = snaps[:t] if universe == "seen" else snaps
    ids = [s.node_ids for s in chosen]
    return np.unique(np.concatenate(ids)) if ids else np.zeros(0, np.int64)


def threshold_and_cap(scores: np.ndarray, ids: np.ndarray, tau: float, cap: int) -> Snapshot:
    """Keeps pairs (i < j) with score ≥ τ, at most ``cap`` of them by top score; nodes = endpoints."""
    iu, ju = np.triu_indices(len(ids), 1)
    s = scores[iu, ju]
    keep = np.nonzero(s >= tau)[0]
    if len(keep) > cap:
        keep = keep[np.argsort(-s[keep], kind="stable")[:cap]]
    return snapshot_from_edges(ids[iu[keep]], ids[ju[keep]])


def sampled_f1_tau(pos_scores: list[np.ndarray], neg_scores: list[np.ndarray], grid: tuple[float, ...]) -> float:
    """τ in ``grid`` maximising the pooled F1 on positives + sampled negatives (first maximiser)."""
    p, q = np.concatenate(pos_scores), np.concatenate(neg_scores)
    best, best_f1 = grid[0], -1.0
    for tau in grid:
        tp, fp = float((p >= tau).sum()), float((q >= tau).sum())
        f1 = 2 * tp / max(2 * tp + fp + (len(p) - tp), 1.0)
        if f1 > best_f1 + 1e-12:
            best, best_f1 = tau, f1
    return float(best)


def _pair_score(scores: np.ndarray, ids: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Scores of global-id pairs (0 where an endpoint is outside the universe)."""
    if len(edges) == 0:
        return np.zeros(0)
    pos = np.searchsorted(ids, edges)
    pos = np.clip(pos, 0, len(ids) - 1)
    ok = (ids[pos[:, 0]] == edges[:, 0]) & (ids[pos[:, 1]] == edges[:, 1])
    return np.where(ok, scores[pos[:, 0], pos[:, 1]], 0.0)


def copy_last_scores(snaps: list[Snapshot], t: int, ids: np.ndarray) -> np.ndarray:
    s = np.zeros((len(ids), len(ids)), np.float32)
    e = np.searchsorted(ids, snaps[t - 1].edges_global())
    s[e[:, 0], e[:, 1]] = s[e[:, 1], e[:, 0]] = 1.0
    return s


def copy_last(snaps: list[Snapshot], t: int) -> Snapshot:
    """Ĝ_t = G_{t−1} through the threshold-and-cap path (τ = 0.5; the cap never binds)."""
    ids = universe_before(snaps, t)
    return threshold_and_cap(copy_last_scores(snaps, t, ids), ids, 0.5, max(5 * snaps[t - 1].n_edges, 1))


def edgebank_scores(snaps: list[Snapshot], t: int, ids: np.ndarray, k: int = 5) -> np.ndarray:
    """0.6·exp(−(age−1)/2) on bank pairs (age = snapshots since last seen, ≤ k) + 0.4·d_u d_v / d_max² with d
    the degree in G_{t−1} (our EdgeBank-recency + degree scorer)."""
    n = len(ids)
    s = np.zeros((n, n), np.float32)
    for age, snap in enumerate(reversed(snaps[max(0, t - k) : t]), 1):
        e = np.searchsorted(ids, snap.edges_global())
        val = 0.6 * np.exp(-(age - 1) / 2.0)
        s[e[:, 0], e[:, 1]] = np.maximum(s[e[:, 0], e[:, 1]], val)
        s[e[:, 1], e[:, 0]] = s[e[:, 0], e[:, 1]]
    d = np.zeros(n, np.float32)
    last = snaps[t - 1]
    d[np.searchsorted(ids, last.node_ids)] = last.degrees()
    return s + 0.4 * np.outer(d, d) / max(float(d.max()) ** 2, 1.0)


# ---------------------------------------------------------------------------------------------- GCNGRU


class _GCNGRUStep(nn.Module):
    """One snapshot: h_τ = GRU(h_{τ−1}, ReLU(GCN(E, A_τ))) with E the identity embedding table."""

    n_nodes: int
    dim: int

    @nn.compact
    def __call__(self, h, xs):
        emb = self.param("embedding", nn.initializers.normal(0.1), (self.n_nodes, self.dim))
        senders, receivers, edge_mask = xs
        n = self.n_nodes
        g = GraphBatch(emb, senders, receivers, jnp.ones(n, bool), edge_mask, jnp.zeros(n, jnp.int32),
                       jnp.ones(1, bool))
        h, _ = nn.GRUCell(self.dim, name="gru")(h, nn.relu(GCNLayer(self.dim, name="gcn")(emb, g)))
        return h, h


class GCNGRU(nn.Module):
    """Embedding table (identity features) → GCN over A_τ → GRU over τ, per node; returns h_τ for every τ.

    The time loop is one ``nn.scan`` (parameters shared across snapshots), so the compile does not grow with T.
    """

    n_nodes: int
    dim: int = 16

    @nn.compact
    def __call__(self, senders, receivers, edge_mask):
        scan = nn.scan(_GCNGRUStep, variable_broadcast="params", split_rngs={"params": False}, in_axes=0,
                       out_axes=0)
        h0 = jnp.zeros((self.n_nodes, self.dim))
        _, hs = scan(self.n_nodes, self.dim, name="step")(h0, (senders, receivers, edge_mask))
        return hs


def gcn_propagate(x, senders, receivers, edge_mask):
    """D̃^{−1/2}(A + I)D̃^{−1/2} x on a directed edge list (each undirected edge both ways; masked slots ignored)."""
    n = x.shape[0]
    w = edge_mask.astype(x.dtype)
    deg = 1.0 + jax.ops.segment_sum(w, receivers, n)
    inv = jax.lax.rsqrt(deg)
    msg = (w * inv[senders])[:, None] * x[senders]
    return inv[:, None] * (jax.ops.segment_sum(msg, receivers, n) + inv[:, None] * x)


class _MatrixGRU(nn.Module):
    """EvolveGCN-O's matrix GRU on W [d_in, d_out] with input = hidden = W:
    Z = σ(W_Z W + U_Z W + B_Z), R = σ(W_R W + U_R W + B_R), W̃ = tanh(W_H W + U_H (R ⊙ W) + B_H),
    W' = (1 − Z) ⊙ W + Z ⊙ W̃ (gate matrices [d_in, d_in], biases [d_in, d_out])."""

    @nn.compact
    def __call__(self, w):
        d_in, d_out = w.shape
        init = nn.initializers.normal(1.0 / np.sqrt(d_in))
        g = {k: self.param(k, init, (d_in, d_in)) for k in ("wz", "uz", "wr", "ur", "wh", "uh")}
        b = {k: self.param(k, nn.initializers.zeros, (d_in, d_out)) for k in ("bz", "br", "bh")}
        z = jax.nn.sigmoid(g["wz"] @ w + g["uz"] @ w + b["bz"])
        r = jax.nn.sigmoid(g["wr"] @ w + g["ur"] @ w + b["br"])
        h = jnp.tanh(g["wh"] @ w + g["uh"] @ (r * w) + b["bh"])
        return (1 - z) * w + z * h


class _EvolveStep(nn.Module):
    n_nodes: int
    dim: int

    @nn.compact
    def __call__(self, w, xs):
        emb = self.param("embedding", nn.initializers.normal(0.1), (self.n_nodes, self.dim))
        senders, receivers, edge_mask = xs
        w = _MatrixGRU(name="evolve")(w)
        return w, nn.relu(gcn_propagate(emb, senders, receivers, edge_mask) @ w)


class EvolveGCNO(nn.Module):
    """Identity features → GCN whose weight W_τ = MatrixGRU(W_{τ−1}) evolves per snapshot; returns the node
    states H_τ [T, N, d] (one ``nn.scan``, parameters shared across snapshots)."""

    n_nodes: int
    dim: int = 16

    @nn.compact
    def __call__(self, senders, receivers, edge_mask):
        w0 = self.param("w0", nn.initializers.glorot_uniform(), (self.dim, self.dim))
        scan = nn.scan(_EvolveStep, variable_broadcast="params", split_rngs={"params": False}, in_axes=0,
                       out_axes=0)
        _, hs = scan(self.n_nodes, self.dim, name="step")(w0, (senders, receivers, edge_mask))
        return hs


GNN_BASELINES = {"gcngru": GCNGRU, "evolvegcn": EvolveGCNO}


def gcngru_data(snaps: list[Snapshot], n_train: int, n_pad: int) -> dict:
    """Padded sequence arrays: directed edges per snapshot, next-snapshot positives and seen counts."""
    t = len(snaps)
    e_pad = max(2 * max(s.n_edges for s in snaps), 1)
    p_pad = max(max(s.n_edges for s in snaps), 1)
    out = dict(senders=np.zeros((t, e_pad), np.int32), receivers=np.zeros((t, e_pad), np.int32),
               edge_mask=np.zeros((t, e_pad), bool), pos=np.zeros((t, p_pad, 2), np.int32),
               pos_mask=np.zeros((t, p_pad), bool), n_seen=np.zeros(t, np.int32), train=np.zeros(t, bool))
    seen = 0
    for i, s in enumerate(snaps):
        e = s.edges_global()
        d = np.concatenate([e, e[:, ::-1]])
        out["senders"][i, : len(d)], out["receivers"][i, : len(d)], out["edge_mask"][i, : len(d)] = d[:, 0], d[:, 1], 1
        seen = max(seen, int(s.node_ids.max()) + 1 if s.n_nodes else 0)
        out["n_seen"][i] = seen
        if i + 1 < t:
            nxt = snaps[i + 1].edges_global()
            out["pos"][i, : len(nxt)], out["pos_mask"][i, : len(nxt)] = nxt, True
            out["train"][i] = i + 1 < n_train
    if seen > n_pad:
        raise ValueError(f"the series has {seen} nodes, more than baseline.node_bucket padding {n_pad}")
    return out


def train_gcngru(data: dict, n_pad: int, cfg: BaselineConfig, keys: jax.Array, kind: str = "gcngru"):
    """One GCNGRU (or ``kind="evolvegcn"``: EvolveGCN-O) per seed (data leaves [seed, ...]); BCE on
    next-snapshot edges vs uniform seen pairs; returns (node states [seed, T, N, d], losses)."""
    model = GNN_BASELINES[kind](n_pad, cfg.dim)

    def init(key, d):
        return model.init(key, d["senders"], d["receivers"], d["edge_mask"])["params"]

    def loss_fn(params, d, key, *, train):
        h = model.apply({"params": params}, d["senders"], d["receivers"], d["edge_mask"])
        hu, hv = h[:, None, :, :], None
        del hu, hv
        tt = jnp.arange(h.shape[0])
        pos = jnp.einsum("tpd,tpd->tp", h[tt[:, None], d["pos"][..., 0]], h[tt[:, None], d["pos"][..., 1]])
        neg_idx = jax.random.randint(key, d["pos"].shape, 0, jnp.maximum(d["n_seen"], 2)[:, None, None])
        neg = jnp.einsum("tpd,tpd->tp", h[tt[:, None], neg_idx[..., 0]], h[tt[:, None], neg_idx[..., 1]])
        w = (d["pos_mask"] & d["train"][:, None]).astype(jnp.float32)
        bce = jax.nn.softplus(-pos) + jax.nn.softplus(neg)
        return (bce * w).sum() / jnp.maximum(w.sum(), 1.0), {}

    tx = make_optimizer(OptimConfig(lr=cfg.lr), cfg.epochs)
    run = make_seed_trainer(init, loss_fn, tx, lambda k, d: d, steps=cfg.epochs,
                            compiler_options=fast_compile_options(1))
    res = run(keys, jax.tree.map(jnp.asarray, data))
    emb = jax.jit(jax.vmap(lambda p, d: model.apply({"params": p}, d["senders"], d["receivers"], d["edge_mask"])))
    h = emb(res.params, jax.tree.map(jnp.asarray, data))
    return np.asarray(h), np.asarray(res.losses)


def gcngru_scores(h: np.ndarray, t: int, ids: np.ndarray) -> np.ndarray:
    """sigmoid(h_u · h_v) with h = the GRU state after G_{t−1}, on the universe ``ids``."""
    e = h[t - 1][ids]
    return 1.0 / (1.0 + np.exp(-(e @ e.T)))


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """ROC-AUC by ranks (ties count one half)."""
    allv = np.concatenate([pos, neg])
    order = np.argsort(allv, kind="stable")
    ranks = np.empty(len(allv))
    sv = allv[order]
    i = 0
    while i < len(sv):
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = 0.5 * (i + j) + 1
        i = j + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / max(len(pos) * len(neg), 1))


def validation_pairs(snaps: list[Snapshot], t: int, ids: np.ndarray, rng: np.random.Generator):
    """Positives of G_t and as many uniform universe pairs (global ids)."""
    pos = snaps[t].edges_global()
    a, b = rng.integers(len(ids), size=(2, len(pos)))
    return pos, np.stack([ids[a], ids[b]], 1)


def tune_tau(score_fn, snaps: list[Snapshot], val_targets: list[int], cfg: BaselineConfig, rng) -> tuple[float, float]:
    """(τ*, validation AUC) of a scorer ``score_fn(t, ids) -> [n, n]``."""
    ps, ns = [], []
    for t in val_targets:
        ids = universe_before(snaps, t, cfg.universe)
        sc = score_fn(t, ids)
        pos, neg = validation_pairs(snaps, t, ids, rng)
        ps.append(_pair_score(sc, ids, pos))
        ns.append(_pair_score(sc, ids, neg))
    if cfg.tau_objective == "sampled":
        tau = sampled_f1_tau(ps, ns, cfg.tau_grid)
    else:
        tau = _all_pairs_tau(score_fn, snaps, val_targets, cfg)
    return tau, auc(np.concatenate(ps), np.concatenate(ns))


def _all_pairs_tau(score_fn, snaps, val_targets, cfg) -> float:
    best, best_f1 = cfg.tau_grid[0], -1.0
    for tau in cfg.tau_grid:
        tp = fp = fn = 0.0
        for t in val_targets:
            ids = universe_before(snaps, t, cfg.universe)
            pred = threshold_and_cap(score_fn(t, ids), ids, tau, int(cfg.cap_factor * snaps[t - 1].n_edges))
            pk = set(map(tuple, pred.edges_global().tolist()))
            tk = set(map(tuple, snaps[t].edges_global().tolist()))
            tp += len(pk & tk)
            fp += len(pk - tk)
            fn += len(tk - pk)
        f1 = 2 * tp / max(2 * tp + fp + fn, 1.0)
        if f1 > best_f1 + 1e-12:
            best, best_f1 = tau, f1
    return float(best)
