"""Message passing on padded graphs with ``jax.ops.segment_sum`` (no jraph: unmaintained since 2022).

A :class:`GraphBatch` holds one flattened graph of fixed size (N node slots, E directed-edge slots, G graph
slots): several small graphs are packed with node offsets, and unused slots are masked. Padded sizes are
fixed buckets, so jit compiles once per bucket; padding never changes a real node's output (tests check it).

Letters: N node slots, E edge slots, G graph slots, F input features, D output features, H attention heads.
An undirected graph lists each edge in both directions; messages flow sender -> receiver.

* :func:`pad_graphs` packs host-side (NumPy) graphs into a :class:`GraphBatch`; it refuses, never truncates,
  graphs that do not fit.
* :func:`degree`, :func:`aggregate_sum`, :func:`aggregate_mean`, :func:`segment_softmax`: the primitives.
* :class:`GCNLayer` (Kipf & Welling 2017), :class:`SAGELayer` (mean aggregator, Hamilton et al. 2017),
  :class:`GINLayer` (Xu et al. 2019), :class:`GATLayer` (Velickovic et al. 2018): one layer each, no residual
  or normalisation (the encoder that stacks them adds those).
* :func:`graph_mean_pool`: per-graph masked mean of node vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.errors import ConfigError


@flax.struct.dataclass
class GraphBatch:
    """One flattened, padded graph: real slots where the masks are True, the rest ignored.

    Padded edges point at node slot 0 and are masked; padded nodes belong to graph slot 0 and are masked.
    """

    nodes: Float[Array, "N F"]
    senders: Int[Array, " E"]
    receivers: Int[Array, " E"]
    node_mask: Bool[Array, " N"]
    edge_mask: Bool[Array, " E"]
    node_graph: Int[Array, " N"]  # graph slot of each node
    graph_mask: Bool[Array, " G"]

    @property
    def n_node(self) -> int:
        return self.nodes.shape[0]

    @property
    def n_graph(self) -> int:
        return self.graph_mask.shape[0]


def pad_graphs(
    graphs: Sequence[tuple[np.ndarray, np.ndarray]],
    n_pad: int,
    e_pad: int,
    g_pad: int | None = None,
) -> GraphBatch:
    """Packs ``[(nodes [n_i, F], edges [e_i, 2] as (sender, receiver)), ...]`` into one :class:`GraphBatch`.

    Node indices of graph i are offset by the nodes of the graphs before it. Raises one clear error when the
    graphs need more than ``n_pad`` nodes, ``e_pad`` edges or ``g_pad`` graphs (padding counts, never truncates),
    or when an edge names a node outside its graph.
    """
    g_pad = len(graphs) if g_pad is None else g_pad
    if not graphs:
        raise ConfigError("pad_graphs: graphs is empty; pass at least one (nodes, edges) pair")
    if len(graphs) > g_pad:
        raise ConfigError(f"pad_graphs: {len(graphs)} graphs do not fit g_pad={g_pad}; raise g_pad")
    feats = {np.asarray(x).shape[1:] for x, _ in graphs}
    if len(feats) != 1:
        raise ConfigError(f"pad_graphs: node feature shapes differ between graphs: {sorted(feats)}")
    n_total = sum(len(x) for x, _ in graphs)
    e_total = sum(len(e) for _, e in graphs)
    if n_total > n_pad:
        raise ConfigError(f"pad_graphs: the graphs have {n_total} nodes, more than n_pad={n_pad}; raise n_pad")
    if e_total > e_pad:
        raise ConfigError(f"pad_graphs: the graphs have {e_total} edges, more than e_pad={e_pad}; raise e_pad")
    first = np.asarray(graphs[0][0])
    nodes = np.zeros((n_pad, *first.shape[1:]), first.dtype)
    senders = np.zeros(e_pad, np.int32)
    receivers = np.zeros(e_pad, np.int32)
    node_graph = np.zeros(n_pad, np.int32)
    n_off = e_off = 0
    for g, (x, e) in enumerate(graphs):
        x, e = np.asarray(x), np.asarray(e, np.int64).reshape(-1, 2)
        if e.size and (e.min() < 0 or e.max() >= len(x)):
            bad = int(e.max()) if e.max() >= len(x) else int(e.min())
            raise ConfigError(f"pad_graphs: graph {g} has an edge to node {bad}; its nodes are 0..{len(x) - 1}")
        nodes[n_off : n_off + len(x)] = x
        node_graph[n_off : n_off + len(x)] = g
        senders[e_off : e_off + len(e)] = e[:, 0] + n_off
        receivers[e_off : e_off + len(e)] = e[:, 1] + n_off
        n_off, e_off = n_off + len(x), e_off + len(e)
    return GraphBatch(
        nodes=jnp.asarray(nodes),
        senders=jnp.asarray(senders),
        receivers=jnp.asarray(receivers),
        node_mask=jnp.asarray(np.arange(n_pad) < n_off),
        edge_mask=jnp.asarray(np.arange(e_pad) < e_off),
        node_graph=jnp.asarray(node_graph),
        graph_mask=jnp.asarray(np.arange(g_pad) < len(graphs)),
    )


def degree(graph: GraphBatch) -> Float[Array, " N"]:
    """In-degree of every node slot (real edges only): ``deg_v = |{e : receiver(e) = v}|``."""
    return jax.ops.segment_sum(graph.edge_mask.astype(jnp.float32), graph.receivers, num_segments=graph.n_node)


def aggregate_sum(messages: Float[Array, "E ..."], graph: GraphBatch) -> Float[Array, "N ..."]:
    """``Σ_{e: receiver(e)=v} m_e`` for every node v, padded edges contributing nothing."""
    mask = graph.edge_mask.reshape(-1, *([1] * (messages.ndim - 1)))
    return jax.ops.segment_sum(jnp.where(mask, messages, 0), graph.receivers, num_segments=graph.n_node)


def aggregate_mean(messages: Float[Array, "E ..."], graph: GraphBatch) -> Float[Array, "N ..."]:
    """``Σ_{e→v} m_e / max(deg_v, 1)``: the mean over real in-edges (zero for isolated nodes)."""
    deg = jnp.maximum(degree(graph), 1.0).reshape(-1, *([1] * (messages.ndim - 1)))
    return aggregate_sum(messages, graph) / deg


def segment_softmax(logits: Float[Array, "E ..."], graph: GraphBatch) -> Float[Array, "E ..."]:
    """Softmax of edge logits over each receiver's real in-edges (``segment_max`` subtracted first).

    Padded edges get weight 0; a receiver with no real in-edge has none to normalise.
    """
    mask = graph.edge_mask.reshape(-1, *([1] * (logits.ndim - 1)))
    masked = jnp.where(mask, logits, -jnp.inf)
    peak = jax.ops.segment_max(masked, graph.receivers, num_segments=graph.n_node)
    peak = jnp.where(jnp.isfinite(peak), peak, 0.0)
    weights = jnp.where(mask, jnp.exp(masked - peak[graph.receivers]), 0.0)
    total = jax.ops.segment_sum(weights, graph.receivers, num_segments=graph.n_node)
    return weights / jnp.maximum(total[graph.receivers], jnp.finfo(weights.dtype).tiny)


def graph_mean_pool(h: Float[Array, "N D"], graph: GraphBatch) -> Float[Array, "G D"]:
    """Per-graph mean of the real nodes' vectors (zero for an empty or padded graph slot)."""
    w = graph.node_mask.astype(h.dtype)
    total = jax.ops.segment_sum(h * w[:, None], graph.node_graph, num_segments=graph.n_graph)
    count = jax.ops.segment_sum(w, graph.node_graph, num_segments=graph.n_graph)
    return total / jnp.maximum(count, 1.0)[:, None]


def _dense(features: int, name: str, use_bias: bool, dtype: Any, param_dtype: Any) -> nn.Dense:
    return nn.Dense(features, use_bias=use_bias, dtype=dtype, param_dtype=param_dtype, name=name)


class GCNLayer(nn.Module):
    """``h' = Â h W + b`` with ``Â = D̃^{-1/2}(A + I)D̃^{-1/2}``, ``D̃ = diag(deg + 1)`` (Kipf & Welling 2017, eq. 2)."""

    features: int
    use_bias: bool = True
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, h: Float[Array, "N F"], graph: GraphBatch) -> Float[Array, "N D"]:
        hw = _dense(self.features, "linear", False, self.dtype, self.param_dtype)(h)
        inv_sqrt = jax.lax.rsqrt(degree(graph) + 1.0)
        coef = (inv_sqrt[graph.senders] * inv_sqrt[graph.receivers])[:, None]
        out = aggregate_sum(coef * hw[graph.senders], graph) + (inv_sqrt**2)[:, None] * hw
        if self.use_bias:
            out = out + self.param("bias", nn.initializers.zeros, (self.features,), self.param_dtype)
        return jnp.where(graph.node_mask[:, None], out, 0.0)


class SAGELayer(nn.Module):
    """GraphSAGE with the mean aggregator: ``h'_v = W_s h_v + W_n · mean_{u→v} h_u`` (Hamilton et al. 2017)."""

    features: int
    use_bias: bool = True
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, h: Float[Array, "N F"], graph: GraphBatch) -> Float[Array, "N D"]:
        neigh = aggregate_mean(h[graph.senders], graph)
        out = _dense(self.features, "self", self.use_bias, self.dtype, self.param_dtype)(h)
        out = out + _dense(self.features, "neigh", False, self.dtype, self.param_dtype)(neigh)
        return jnp.where(graph.node_mask[:, None], out, 0.0)


class GINLayer(nn.Module):
    """``h'_v = MLP((1 + ε) h_v + Σ_{u→v} h_u)``, ε learnable from 0, MLP ``F→D→D`` with ReLU (Xu et al. 2019)."""

    features: int
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, h: Float[Array, "N F"], graph: GraphBatch) -> Float[Array, "N D"]:
        eps = self.param("eps", nn.initializers.zeros, (), self.param_dtype)
        z = (1.0 + eps) * h + aggregate_sum(h[graph.senders], graph)
        z = nn.relu(_dense(self.features, "mlp_0", True, self.dtype, self.param_dtype)(z))
        out = _dense(self.features, "mlp_1", True, self.dtype, self.param_dtype)(z)
        return jnp.where(graph.node_mask[:, None], out, 0.0)


class GATLayer(nn.Module):
    """Graph attention (Velickovic et al. 2018, eqs. 1-4), ``heads`` heads concatenated into ``features``.

    ``e_uv = LeakyReLU(aᵀ[W h_u ‖ W h_v])``, ``α_uv`` the softmax over v's in-edges (a self-loop added per real
    node when ``self_loops``), ``h'_v = ‖_k Σ_u α^k_uv W^k h_u``.
    """

    features: int
    heads: int = 1
    self_loops: bool = True
    negative_slope: float = 0.2
    dtype: Any = jnp.float32
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, h: Float[Array, "N F"], graph: GraphBatch) -> Float[Array, "N D"]:
        if self.features % self.heads:
            raise ConfigError(f"GATLayer: features={self.features} is not divisible by heads={self.heads}")
        if self.self_loops:
            loops = jnp.arange(graph.n_node, dtype=graph.senders.dtype)
            graph = graph.replace(
                senders=jnp.concatenate([graph.senders, loops]),
                receivers=jnp.concatenate([graph.receivers, loops]),
                edge_mask=jnp.concatenate([graph.edge_mask, graph.node_mask]),
            )
        per_head = self.features // self.heads
        wh = _dense(self.features, "linear", False, self.dtype, self.param_dtype)(h)
        wh = wh.reshape(graph.n_node, self.heads, per_head)  # [N, H, D/H]
        a_src = self.param("att_src", nn.initializers.lecun_normal(), (self.heads, per_head), self.param_dtype)
        a_dst = self.param("att_dst", nn.initializers.lecun_normal(), (self.heads, per_head), self.param_dtype)
        logits = jnp.einsum("nhd,hd->nh", wh, a_src)[graph.senders] + jnp.einsum("nhd,hd->nh", wh, a_dst)[
            graph.receivers
        ]
        alpha = segment_softmax(nn.leaky_relu(logits, self.negative_slope), graph)  # [E, H]
        out = aggregate_sum(alpha[..., None] * wh[graph.senders], graph).reshape(graph.n_node, self.features)
        out = out + self.param("bias", nn.initializers.zeros, (self.features,), self.param_dtype)
        return jnp.where(graph.node_mask[:, None], out, 0.0)


GNN_LAYERS: dict[str, type[nn.Module]] = {"gcn": GCNLayer, "sage": SAGELayer, "gin": GINLayer, "gat": GATLayer}


def get_gnn_layer(name: str) -> type[nn.Module]:
    """The layer class for ``name`` (one of :data:`GNN_LAYERS`), with a clear error otherwise."""
    if name not in GNN_LAYERS:
        raise ConfigError(f"GNN layer {name!r} does not exist; choose one of {', '.join(sorted(GNN_LAYERS))}")
    return GNN_LAYERS[name]
