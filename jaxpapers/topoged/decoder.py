"""The edge decoder: GCN trunk with cold start, four type heads, degree caps and the guided four-phase decoder
(spec, "Edge decoder" and "Decoding (Algorithm 1)"; paper §4.4, App. D.3).

Phases in type order z = 0 oo-bank, 1 oo-nobank, 2 on, 3 nn. In each phase the trunk re-encodes the partial
graph, candidates are scored once, and edges are added greedily in descending adjusted score
s′ = log p̂ − γ_f·1[r_ℓ ≤ 0] − γ_c·1[deg(u) ≥ cap(u) ∨ deg(v) ≥ cap(v)] until c_z edges are in (penalties only
grow as edges are added, so a lazy max-heap gives the exact greedy order). The unguided decoder (T3's
comparison) takes the top c_z by log p̂ with no caps and no level penalty. Budget left over when a phase runs
out of candidates is filled at the end from every phase's remaining candidates (our choice, as the reference
fills shortfalls with its best capped-out pairs).

The Flax modules train under ``jax.jit`` (``training.py``); decoding runs the same network in NumPy
(:func:`forward_numpy`, checked equal to the Flax module in the tests) so that graphs of any size need no
compilation.
"""

from __future__ import annotations

import dataclasses
import heapq

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.nn.graph import GCNLayer, GraphBatch
from jaxpapers.topoged.data.events import Snapshot, snapshot_from_edges
from jaxpapers.topoged.descriptor import node_levels
from jaxpapers.topoged.edge_types import pair_keys
from jaxpapers.topoged.forecast import Budgets
from jaxpapers.topoged.memory import WindowStats, node_features, reappearance_logits, sample_old_nodes


def cold_start(h: Float[Array, "N D"], is_new: Bool[Array, " N"], bins: Int[Array, " N"], mask: Bool[Array, " N"],
               n_levels: int) -> Float[Array, "N D"]:
    """Each new node's embedding := mean embedding of the old nodes in its bin (nearest non-empty bin; global
    old mean if there is none; zeros if there is no old node)."""
    old = (mask & ~is_new).astype(h.dtype)
    sums = jax.ops.segment_sum(h * old[:, None], bins, n_levels)
    cnt = jax.ops.segment_sum(old, bins, n_levels)
    lv = jnp.arange(n_levels)
    dist = jnp.where(cnt[None, :] > 0, jnp.abs(lv[:, None] - lv[None, :]).astype(h.dtype), jnp.inf)
    near = jnp.argmin(dist, axis=1)
    mean = sums[near] / jnp.maximum(cnt[near], 1.0)[:, None]
    rep = mean[bins]
    return jnp.where((is_new & mask)[:, None], rep, h)


class GCNTrunk(nn.Module):
    """One GCN layer (``core.nn.GCNLayer``, Â = D̃^{-1/2}(A+I)D̃^{-1/2}), ReLU, dropout, then cold start."""

    hidden: int = 128
    dropout: float = 0.1
    n_levels: int = 10

    @nn.compact
    def __call__(self, graph: GraphBatch, is_new: Bool[Array, " N"], bins: Int[Array, " N"], *,
                 train: bool = False) -> Float[Array, "N D"]:
        h = nn.relu(GCNLayer(self.hidden, name="gcn")(graph.nodes, graph))
        h = nn.Dropout(self.dropout, deterministic=not train)(h)
        return cold_start(h, is_new, bins, graph.node_mask, self.n_levels)


class EdgeHeads(nn.Module):
    """Four MLP heads concat(h_u, h_v) → 32 → 16 → 1 (ReLU); logits symmetrised by averaging (u,v) and (v,u)."""

    def setup(self):
        self.heads = [nn.Sequential([nn.Dense(32), nn.relu, nn.Dense(16), nn.relu, nn.Dense(1)]) for _ in range(4)]

    def __call__(self, h: Float[Array, "N D"], pairs: Int[Array, "P 2"], z: int) -> Float[Array, " P"]:
        mlp = self.heads[z]
        hu, hv = h[pairs[:, 0]], h[pairs[:, 1]]
        a = mlp(jnp.concatenate([hu, hv], -1))[..., 0]
        b = mlp(jnp.concatenate([hv, hu], -1))[..., 0]
        return 0.5 * (a + b)


class Decoder(nn.Module):
    """Trunk + heads on one padded snapshot: node features ``x`` [N, F] and one partial graph per phase
    (``senders``/``receivers``/``edge_mask`` [Z = 4, E], directed both ways); returns logits [Z, P]."""

    hidden: int = 128
    dropout: float = 0.1
    n_levels: int = 10

    def setup(self):
        self.trunk = GCNTrunk(self.hidden, self.dropout, self.n_levels)
        self.heads = EdgeHeads()

    def __call__(self, x, senders, receivers, node_mask, edge_mask, is_new, bins, pairs, *,
                 train: bool = False) -> Float[Array, "Z P"]:
        n = x.shape[0]
        logits = []
        for z in range(4):
            g = GraphBatch(x, senders[z], receivers[z], node_mask, edge_mask[z], jnp.zeros(n, jnp.int32),
                           jnp.ones(1, bool))
            logits.append(self.heads(self.trunk(g, is_new, bins, train=train), pairs[z], z))
        return jnp.stack(logits)


# ---------------------------------------------------------------------------------------------- NumPy mirror


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def forward_numpy(params, x: np.ndarray, edges: np.ndarray, is_new: np.ndarray, bins: np.ndarray,
                  n_levels: int) -> np.ndarray:
    """The trunk (eval mode) in NumPy: x float32[N, F], ``edges`` int[E, 2] undirected (each once)."""
    p = params["trunk"]["gcn"]
    n = len(x)
    deg = np.bincount(edges.ravel(), minlength=n).astype(np.float32) if len(edges) else np.zeros(n, np.float32)
    inv = 1.0 / np.sqrt(deg + 1.0)
    hw = x @ np.asarray(p["linear"]["kernel"])
    out = (inv**2)[:, None] * hw
    if len(edges):
        c = (inv[edges[:, 0]] * inv[edges[:, 1]])[:, None]
        np.add.at(out, edges[:, 1], c * hw[edges[:, 0]])
        np.add.at(out, edges[:, 0], c * hw[edges[:, 1]])
    h = _relu(out + np.asarray(p["bias"]))
    old = ~is_new
    if is_new.any():
        if old.any():
            sums = np.zeros((n_levels, h.shape[1]), np.float32)
            np.add.at(sums, bins[old], h[old])
            cnt = np.bincount(bins[old], minlength=n_levels).astype(np.float32)
            lv = np.arange(n_levels)
            dist = np.where(cnt[None, :] > 0, np.abs(lv[:, None] - lv[None, :]), np.inf)
            near = np.argmin(dist, axis=1)
            mean = sums[near] / np.maximum(cnt[near], 1.0)[:, None]
            h[is_new] = mean[bins[is_new]]
        else:
            h[is_new] = 0.0
    return h


def head_logits_numpy(params, z: int, h: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Symmetrised logits of head z on pairs int[P, 2]."""
    p = params["heads"][f"heads_{z}"]

    def mlp(a):
        for i, last in ((0, False), (2, False), (4, True)):
            a = a @ np.asarray(p[f"layers_{i}"]["kernel"]) + np.asarray(p[f"layers_{i}"]["bias"])
            a = a if last else _relu(a)
        return a[:, 0]

    hu, hv = h[pairs[:, 0]], h[pairs[:, 1]]
    return 0.5 * (mlp(np.concatenate([hu, hv], 1)) + mlp(np.concatenate([hv, hu], 1)))


# ---------------------------------------------------------------------------------------------- caps


def assign_caps(last_degree: np.ndarray, n_new: int, x_hat: np.ndarray, thresholds: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(caps float[N_old + n_new], bins int[N_old + n_new]) from bin sizes b_i = x̂_i − x̂_{i−1} (App. D.3).

    Old nodes, in ascending last degree, take the smallest level with ε ≥ their degree and capacity left (else
    the highest level with capacity, else the last level); new nodes take a uniform level among those with
    capacity left (else a uniform level).
    """
    n = len(thresholds)
    cap_left = np.diff(np.concatenate([[0], np.asarray(x_hat, np.int64)])).clip(0)
    start = node_levels(last_degree, thresholds)
    bins_old = np.zeros(len(last_degree), np.int64)
    for i in np.argsort(last_degree, kind="stable"):
        free = np.nonzero(cap_left > 0)[0]
        ok = free[free >= start[i]]
        b = int(ok[0]) if ok.size else (int(free[-1]) if free.size else n - 1)
        bins_old[i] = b
        cap_left[b] -= 1
    bins_new = np.zeros(n_new, np.int64)
    for j in range(n_new):
        free = np.nonzero(cap_left > 0)[0]
        b = int(free[rng.integers(len(free))]) if free.size else int(rng.integers(n))
        bins_new[j] = b
        cap_left[b] -= 1
    bins = np.concatenate([bins_old, bins_new])
    return np.asarray(thresholds, np.float64)[bins], bins


# ---------------------------------------------------------------------------------------------- decoding


@dataclasses.dataclass(frozen=True)
class History:
    """What the decoder sees at a forecast: the last k snapshots (oldest first), their stats and the bank."""

    window: list[Snapshot]
    stats: WindowStats
    bank: np.ndarray  # int64[B, 2] global edges of the window


def make_history(window: list[Snapshot]) -> History:
    from jaxpapers.topoged.memory import window_stats

    edges = [s.edges_global() for s in window]
    e = np.unique(np.concatenate(edges), axis=0) if edges else np.zeros((0, 2), np.int64)
    return History(window, window_stats(window), e.reshape(-1, 2))


@dataclasses.dataclass(frozen=True)
class DecodeSettings:
    n_levels: int
    k: int
    mem: tuple[float, float, float]
    mem_degree: str = "last"
    partners: int = 20
    pool_factor: float = 10.0
    gamma_f: float = 2.0
    gamma_c: float = 2.0
    guided: bool = True
    reencode: bool = True


def _candidates(z, old, new, bank_local, m, rng, taken):
    if z == 0:
        c = bank_local
    else:
        src, dst = (old, old) if z == 1 else (new, old) if z == 2 else (new, new)
        if len(src) == 0 or len(dst) == 0:
            return np.zeros((0, 2), np.int64)
        u = np.repeat(src, m)
        v = dst[rng.integers(len(dst), size=len(u))]
        c = np.stack([np.minimum(u, v), np.maximum(u, v)], 1)
        c = c[c[:, 0] != c[:, 1]]
    if len(c) == 0:
        return np.zeros((0, 2), np.int64)
    c = np.unique(c, axis=0)
    keys = c[:, 0] * (1 << 31) + c[:, 1]
    keep = ~np.isin(keys, taken)
    if z == 1:  # not in the bank
        bk = bank_local[:, 0] * (1 << 31) + bank_local[:, 1] if len(bank_local) else np.zeros(0, np.int64)
        keep &= ~np.isin(keys, bk)
    return c[keep]


def decode_snapshot(params, hist: History, budgets: Budgets, thresholds: np.ndarray, rng: np.random.Generator,
                    s: DecodeSettings) -> tuple[Snapshot, dict]:
    """Ĝ_{t+1}: sampled old nodes (global ids), N̂_new new nodes with ids −1, −2, … (disjoint from every true id)
    and the decoded edges. Returns the snapshot and per-phase details (added edges per type, shortfall)."""
    logits = reappearance_logits(hist.stats, *s.mem, degree=s.mem_degree)
    pick = sample_old_nodes(rng, logits, budgets.n_old)
    old_ids = hist.stats.node_ids[pick]
    n_new = budgets.V - len(old_ids)  # if the window holds fewer old nodes than asked, new ones fill |V̂|
    ids = np.concatenate([old_ids, -1 - np.arange(n_new)])
    n = len(ids)
    is_new = np.arange(n) >= len(old_ids)
    caps, bins = assign_caps(hist.stats.last_degree[pick], n_new, budgets.phi_hat[0::2], thresholds, rng)
    x = node_features(hist.stats, ids, is_new, bins, s.n_levels, s.k, s.mem[2])
    y_hat = budgets.phi_hat[1::2].astype(np.int64)
    resid = np.diff(np.concatenate([[0], y_hat])).astype(np.float64)
    pos = {v: i for i, v in enumerate(old_ids.tolist())}
    bl = [(pos[a], pos[b]) for a, b in hist.bank.tolist() if a in pos and b in pos]
    bank_local = np.array(sorted((min(a, b), max(a, b)) for a, b in bl), np.int64).reshape(-1, 2)
    old, new = np.nonzero(~is_new)[0], np.nonzero(is_new)[0]
    deg = np.zeros(n, np.int64)
    edges: list[tuple[int, int]] = []
    taken = np.zeros(0, np.int64)
    leftovers = []
    added = np.zeros(4, np.int64)
    h = None

    def adjusted(lp, u, v):
        if not s.guided:
            return lp
        pen = s.gamma_f * (resid[max(bins[u], bins[v])] <= 0)
        pen += s.gamma_c * (deg[u] >= caps[u] or deg[v] >= caps[v])
        return lp - pen

    def take(u, v, z):
        edges.append((u, v))
        deg[u] += 1
        deg[v] += 1
        resid[max(bins[u], bins[v])] -= 1
        added[z] += 1

    for z in range(4):
        if h is None or s.reencode:
            h = forward_numpy(params, x, np.array(edges, np.int64).reshape(-1, 2), is_new, bins, s.n_levels)
        cand = _candidates(z, old, new, bank_local, s.partners, rng, taken)
        if len(cand) == 0:
            continue
        lp = -np.logaddexp(0.0, -head_logits_numpy(params, z, h, cand))  # log sigmoid
        order = np.argsort(-lp, kind="stable")[: int(max(s.pool_factor * budgets.c_z[z], 1))]
        cand, lp = cand[order], lp[order]
        budget = int(budgets.c_z[z])
        used = np.zeros(len(cand), bool)
        if budget >= len(cand):  # every candidate is taken: the greedy order cannot change the edge set
            for i in range(len(cand)):
                take(int(cand[i, 0]), int(cand[i, 1]), z)
            used[:] = True
        elif s.guided:
            heap = [(-adjusted(lp[i], *cand[i]), i) for i in range(len(cand))]
            heapq.heapify(heap)
            while heap and added[z] < budget:
                neg, i = heapq.heappop(heap)
                cur = adjusted(lp[i], *cand[i])
                if cur < -neg - 1e-12:
                    heapq.heappush(heap, (-cur, i))
                    continue
                take(int(cand[i, 0]), int(cand[i, 1]), z)
                used[i] = True
        else:
            for i in range(min(budget, len(cand))):
                take(int(cand[i, 0]), int(cand[i, 1]), z)
                used[i] = True
        taken = np.concatenate([taken, cand[used, 0] * (1 << 31) + cand[used, 1]])
        leftovers.append((z, cand[~used], lp[~used]))
    short = int(budgets.E - len(edges))
    if short > 0 and leftovers:
        cz = np.concatenate([np.full(len(c), z) for z, c, _ in leftovers])
        cc = np.concatenate([c for _, c, _ in leftovers])
        cl = np.concatenate([lp for _, _, lp in leftovers])
        keys = cc[:, 0] * (1 << 31) + cc[:, 1]
        _, first = np.unique(keys, return_index=True)
        first = first[~np.isin(keys[first], taken)]
        cz, cc, cl = cz[first], cc[first], cl[first]
        if s.guided:  # the penalties at the start of the fill, vectorised (same values as ``adjusted``)
            lvl = np.maximum(bins[cc[:, 0]], bins[cc[:, 1]])
            full = (deg[cc[:, 0]] >= caps[cc[:, 0]]) | (deg[cc[:, 1]] >= caps[cc[:, 1]])
            adj = cl - s.gamma_f * (resid[lvl] <= 0) - s.gamma_c * full
        else:
            adj = cl
        for i in np.argsort(-adj, kind="stable")[:short]:
            take(int(cc[i, 0]), int(cc[i, 1]), int(cz[i]))
    e = np.array(edges, np.int64).reshape(-1, 2)
    snap = snapshot_from_edges(ids[e[:, 0]], ids[e[:, 1]], nodes=ids)
    return snap, {"added": added, "shortfall": int(budgets.E - len(edges)), "bins": bins, "ids": ids}


def edge_keys(snap: Snapshot) -> np.ndarray:
    """Sorted keys of a snapshot's edges (global ids, which may be negative for predicted new nodes)."""
    e = snap.edges_global()
    return np.sort(pair_keys(e + (1 << 20))) if len(e) else np.zeros(0, np.int64)
