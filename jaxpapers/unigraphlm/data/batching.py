"""Nodes-of-interest subgraphs (OFA-style task unification), their features, and padded per-sample batches.

A sample's subgraph is padded to ``n_max`` nodes and ``e_max`` directed edges (quick 48/256) in the slot layout of
:func:`jaxpapers.core.nn.graph.pad_graphs` (one graph per sample, stacked along a sample axis, vmapped); a
subgraph that does not fit is refused, never truncated. Node input features are
``[x_text ; RWSE ; log(1+deg)]`` with ``x_text = mean_{w ∈ s_v} R[w]`` (the seeded word-code table, not the LM's
embeddings), ``RWSE_v = (diag(P^k))_{k=1..K}``, ``P = D^{-1}A`` on the subgraph. Roles: 0 context, 1 target,
2 endpoint-a, 3 endpoint-b. ``noi`` marks the nodes of interest, ``ring`` their 1-hop ring outside them.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn.graph import GraphBatch

ROLE_CONTEXT, ROLE_TARGET, ROLE_A, ROLE_B = range(4)
FIELDS = ("nodes", "senders", "receivers", "node_mask", "edge_mask", "role", "noi", "ring")


def rwse(n: int, edges: np.ndarray, steps: int) -> np.ndarray:
    """``[n, steps]`` random-walk return probabilities ``diag(P^k)``, ``P = D^{-1}A`` (isolated nodes: 0)."""
    a = np.zeros((n, n))
    if len(edges):
        np.add.at(a, (edges[:, 0], edges[:, 1]), 1.0)
    deg = a.sum(1, keepdims=True)
    p = np.divide(a, deg, out=np.zeros_like(a), where=deg > 0)
    out = np.zeros((n, steps))
    m = np.eye(n)
    for k in range(steps):
        m = m @ p
        out[:, k] = np.diag(m)
    return out


def ego_nodes(adj: list[np.ndarray], seeds: list[int], fanout: tuple[int, int], rng: np.random.Generator) -> list[int]:
    """Seeds, then up to ``fanout[0]`` sampled neighbours of each seed, then up to ``fanout[1]`` of each of those."""
    order = list(dict.fromkeys(seeds))
    frontier = list(seeds)
    for f in fanout:
        nxt = []
        for v in frontier:
            nb = adj[v]
            pick = nb if len(nb) <= f else rng.choice(nb, f, replace=False)
            nxt += [int(u) for u in pick]
        for u in nxt:
            if u not in order:
                order.append(u)
        frontier = nxt
    return order


def induced_edges(adj: list[np.ndarray], nodes: list[int], drop: tuple[int, int] | None = None) -> np.ndarray:
    """Directed edges among ``nodes`` in local indices; ``drop`` (a queried link) removed in both directions."""
    local = {v: i for i, v in enumerate(nodes)}
    out = []
    for v in nodes:
        for u in adj[v]:
            u = int(u)
            if u in local and (drop is None or {u, v} != set(drop)):
                out.append((local[u], local[v]))
    return np.array(out, np.int64).reshape(-1, 2)


def node_features(x_text: np.ndarray, edges: np.ndarray, steps: int) -> np.ndarray:
    """``[x_text ; RWSE ; log(1 + deg)]`` for one subgraph (float32)."""
    n = len(x_text)
    deg = np.bincount(edges[:, 1], minlength=n) if len(edges) else np.zeros(n)
    return np.concatenate([x_text, rwse(n, edges, steps), np.log1p(deg)[:, None]], 1).astype(np.float32)


def to_graph_batch(sample: dict) -> GraphBatch:
    """The :class:`~jaxpapers.core.nn.graph.GraphBatch` of one packed sample (or a batch of them: leading axes)."""
    return GraphBatch(
        nodes=sample["nodes"],
        senders=sample["senders"],
        receivers=sample["receivers"],
        node_mask=sample["node_mask"],
        edge_mask=sample["edge_mask"],
        node_graph=jnp.zeros(sample["node_mask"].shape, jnp.int32),
        graph_mask=jnp.ones(sample["node_mask"].shape[:-1] + (1,), bool),
    )


def pack_sample(
    feats: np.ndarray, edges: np.ndarray, role: np.ndarray, noi: np.ndarray, n_max: int, e_max: int
) -> dict[str, np.ndarray]:
    """One padded sample: the :class:`~jaxpapers.core.nn.graph.GraphBatch` fields plus ``role``, ``noi``, ``ring``."""
    n = len(feats)
    if n > n_max:
        raise ConfigError(f"a subgraph has {n} nodes, more than data.n_max={n_max}; raise n_max (padding counts)")
    if len(edges) > e_max:
        raise ConfigError(f"a subgraph has {len(edges)} edges, more than data.e_max={e_max}; raise e_max")
    e = len(edges)
    out = {
        "nodes": np.zeros((n_max, feats.shape[1]), np.float32),
        "senders": np.zeros(e_max, np.int32),
        "receivers": np.zeros(e_max, np.int32),
        "node_mask": np.arange(n_max) < n,
        "edge_mask": np.arange(e_max) < e,
    }
    out["nodes"][:n] = feats
    if e:
        out["senders"][:e], out["receivers"][:e] = edges[:, 0], edges[:, 1]
    ring = np.zeros(n, bool)
    if len(edges):
        ring[edges[noi[edges[:, 0]], 1]] = True
    ring &= ~noi
    for name, x, dt in (("role", role, np.int32), ("noi", noi, bool), ("ring", ring, bool)):
        full = np.zeros(n_max, dt)
        full[:n] = x
        out[name] = full
    return out


def stack_samples(samples: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Stacks packed samples along a leading sample axis."""
    return {k: np.stack([s[k] for s in samples]) for k in FIELDS}
