"""U7: the core message-passing layers (``core.nn.graph``) meet a dense float64 reference, permute with the
nodes and ignore padding.

On ``graphs`` random directed graphs (n ∈ [3, max_nodes] nodes, distinct edges without self-loops, packed with
:func:`~jaxpapers.core.nn.graph.pad_graphs` into one bucket so each layer compiles once per bucket and runs
vmapped over the graphs), every layer (GCN, SAGE, GIN, GAT with 2 heads) with random parameters is compared with
a NumPy float64 re-implementation on the dense adjacency ``A[v, u] = 1`` for an edge u → v:

* GCN: ``D̃^{-1/2}(A + I)D̃^{-1/2} h W + b``, ``D̃ = diag(A·1 + 1)``; SAGE: ``h W_s + b + (A h / max(deg, 1)) W_n``;
  GIN: ``relu(((1+ε)h + A h) W_0 + b_0) W_1 + b_1``; GAT: per head ``α_vu = softmax_{u ∈ N(v) ∪ {v}}
  LeakyReLU(a_srcᵀ W h_u + a_dstᵀ W h_v)``, ``h'_v = ‖_k Σ_u α_vu W h_u + b``.
* Padding: every graph sits in a bucket of ``max_nodes + extra_nodes`` node and ``max_edges + extra_edges`` edge
  slots, so the dense comparison (at the graph's own size) already shows that padding changes nothing; a second
  copy fills every padded slot with random features and wires every padded edge at random (into real nodes too),
  all masked, and the real nodes' outputs must stay the same. Permutation: a random relabelling of the node slots
  and reordering of the edge slots; the outputs must be the relabelled outputs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.nn.graph import GraphBatch, get_gnn_layer, pad_graphs
from jaxpapers.unigraphlm import figures
from jaxpapers.unigraphlm.config import GNN_LAYER_NAMES, LayerCheckConfig

GAT_HEADS = 2


def random_graphs(cfg: LayerCheckConfig, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``cfg.graphs`` random (features [n, F], edges [e, 2]) pairs: distinct directed edges, no self-loops."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(cfg.graphs):
        n = int(rng.integers(3, cfg.max_nodes + 1))
        pairs = np.array([(u, v) for u in range(n) for v in range(n) if u != v])
        e = int(rng.integers(0, min(cfg.max_edges, len(pairs)) + 1))
        edges = pairs[rng.choice(len(pairs), e, replace=False)] if e else np.zeros((0, 2), np.int64)
        out.append((rng.standard_normal((n, cfg.features)).astype(np.float32), edges))
    return out


_FIELDS = ("nodes", "senders", "receivers", "node_mask", "edge_mask", "node_graph", "graph_mask")


def _stack(batches: list[GraphBatch]) -> dict[str, jax.Array]:
    """The fields of the graphs stacked along a leading axis (a plain dict: a GraphBatch holds one graph set)."""
    return {f: jnp.asarray(np.stack([np.asarray(getattr(b, f)) for b in batches])) for f in _FIELDS}


def _host(graph: GraphBatch) -> GraphBatch:
    return jax.tree.map(jnp.asarray, graph)


def _make_layer(name: str, out_features: int):
    cls = get_gnn_layer(name)
    return cls(out_features, heads=GAT_HEADS) if name == "gat" else cls(out_features)


def random_params(name: str, cfg: LayerCheckConfig, seed: int):
    """Parameters of layer ``name`` with every leaf (biases and ε too) drawn ~ N(0, 1/fan_in) by NumPy (no
    device program per leaf; the shapes come from ``eval_shape`` of the layer's ``init``)."""
    layer = _make_layer(name, cfg.out_features)
    g = pad_graphs([(np.zeros((2, cfg.features), np.float32), np.zeros((0, 2)))], 2, 1)
    shapes = jax.eval_shape(lambda k: layer.init(k, g.nodes, g), jax.random.key(0))["params"]
    leaves, tree = jax.tree.flatten(shapes)
    rng = np.random.default_rng(seed)
    fan = lambda s: s.shape[0] if len(s.shape) >= 2 else cfg.features  # noqa: E731
    new = [jnp.asarray(rng.standard_normal(s.shape) / np.sqrt(fan(s)), s.dtype) for s in leaves]
    return {"params": jax.tree.unflatten(tree, new)}


def dense_reference(name: str, params, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The layer's output on one graph in float64 NumPy from the dense adjacency (formulas in the module doc)."""
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), params["params"])
    x = np.asarray(x, np.float64)
    n = len(x)
    a = np.zeros((n, n))
    for u, v in np.asarray(edges).reshape(-1, 2):
        a[v, u] += 1.0
    deg = a.sum(1)
    if name == "gcn":
        d = 1.0 / np.sqrt(deg + 1.0)
        return (d[:, None] * (a + np.eye(n)) * d[None, :]) @ (x @ p["linear"]["kernel"]) + p["bias"]
    if name == "sage":
        mean = (a @ x) / np.maximum(deg, 1.0)[:, None]
        return x @ p["self"]["kernel"] + p["self"]["bias"] + mean @ p["neigh"]["kernel"]
    if name == "gin":
        z = (1.0 + p["eps"]) * x + a @ x
        z = np.maximum(z @ p["mlp_0"]["kernel"] + p["mlp_0"]["bias"], 0.0)
        return z @ p["mlp_1"]["kernel"] + p["mlp_1"]["bias"]
    if name == "gat":
        wh = (x @ p["linear"]["kernel"]).reshape(n, GAT_HEADS, -1)
        src = np.einsum("nhd,hd->nh", wh, p["att_src"])
        dst = np.einsum("nhd,hd->nh", wh, p["att_dst"])
        adj = (a + np.eye(n)) > 0
        out = np.zeros_like(wh)
        for h in range(GAT_HEADS):
            e = dst[:, h][:, None] + src[:, h][None, :]  # e[v, u]
            e = np.where(e > 0, e, 0.2 * e)
            e = np.where(adj, e, -np.inf)
            w = np.exp(e - e.max(1, keepdims=True))
            w = w / w.sum(1, keepdims=True)
            out[:, h] = w @ wh[:, h]
        return out.reshape(n, -1) + p["bias"]
    raise ValueError(f"no dense reference for layer {name!r}; choose one of {', '.join(GNN_LAYER_NAMES)}")


def permute(graph: GraphBatch, rng: np.random.Generator) -> tuple[GraphBatch, np.ndarray]:
    """The same graph with node slots relabelled by ``p`` (old slot i → p[i]) and edge slots shuffled."""
    n, e = graph.n_node, graph.senders.shape[0]
    p = rng.permutation(n)
    inv = np.argsort(p)
    eo = rng.permutation(e)
    s, r = np.asarray(graph.senders), np.asarray(graph.receivers)
    out = GraphBatch(
        nodes=jnp.asarray(np.asarray(graph.nodes)[inv]),
        senders=jnp.asarray(p[s][eo].astype(np.int32)),
        receivers=jnp.asarray(p[r][eo].astype(np.int32)),
        node_mask=jnp.asarray(np.asarray(graph.node_mask)[inv]),
        edge_mask=jnp.asarray(np.asarray(graph.edge_mask)[eo]),
        node_graph=jnp.asarray(np.asarray(graph.node_graph)[inv]),
        graph_mask=jnp.asarray(graph.graph_mask),
    )
    return out, p


def fill_padding(graph: GraphBatch, rng: np.random.Generator) -> GraphBatch:
    """The same graph with every padded node slot given random features and every padded edge slot wired at
    random (into real nodes too), all still masked: a real node's output must not change."""
    f = graph.nodes.shape[1]
    mask, em = np.asarray(graph.node_mask), np.asarray(graph.edge_mask)
    nodes = np.asarray(graph.nodes).copy()
    nodes[~mask] = rng.standard_normal(((~mask).sum(), f))
    s, r = np.asarray(graph.senders).copy(), np.asarray(graph.receivers).copy()
    s[~em] = rng.integers(0, graph.n_node, (~em).sum())
    r[~em] = rng.integers(0, graph.n_node, (~em).sum())
    return _host(graph).replace(
        nodes=jnp.asarray(nodes, jnp.float32), senders=jnp.asarray(s, jnp.int32), receivers=jnp.asarray(r, jnp.int32)
    )


def check_layers(cfg: LayerCheckConfig, seed: int = 0) -> dict[str, float]:
    """Max abs differences ``{layer}_{dense|perm|pad}`` over all graphs, and their maxima ``dense|perm|pad``."""
    rng = np.random.default_rng(seed + 1)
    graphs = random_graphs(cfg, seed)
    n_pad, e_pad = cfg.max_nodes + cfg.extra_nodes, cfg.max_edges + cfg.extra_edges  # one bucket for all
    base = [_host(pad_graphs([g], n_pad, e_pad)) for g in graphs]
    perms = [permute(b, rng) for b in base]
    padded = [fill_padding(b, rng) for b in base]
    stacked = _stack(base + [p for p, _ in perms] + padded)
    k = len(graphs)
    out: dict[str, float] = {}
    for i, name in enumerate(GNN_LAYER_NAMES):
        layer = _make_layer(name, cfg.out_features)
        params = random_params(name, cfg, seed * 100 + i)
        run = jax.jit(jax.vmap(lambda f, prm=params, lay=layer: lay.apply(prm, f["nodes"], GraphBatch(**f))))
        y_all = np.asarray(run(stacked))  # one compiled program per layer: [3k, N, D]
        y, y_perm, y_pad = y_all[:k], y_all[k : 2 * k], y_all[2 * k :]
        dense = perm = pad = 0.0
        for j, (x, e) in enumerate(graphs):
            n = len(x)
            ref = dense_reference(name, params, x, e)
            dense = max(dense, float(np.abs(y[j, :n] - ref).max()))
            perm = max(perm, float(np.abs(y_perm[j][perms[j][1]] - y[j]).max()))
            pad = max(pad, float(np.abs(y_pad[j, :n] - y[j, :n]).max()))
        out[f"{name}_dense"], out[f"{name}_perm"], out[f"{name}_pad"] = dense, perm, pad
    for kind in ("dense", "perm", "pad"):
        out[kind] = max(out[f"{n}_{kind}"] for n in GNN_LAYER_NAMES)
    return out


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U7: max abs differences (dense reference, permutation, padding) of the four core layers in float32."""
    del key
    c = to_dataclass(LayerCheckConfig, cfg.layers)
    diffs = check_layers(c, int(cfg.seed))
    return Measurement(
        measured={k: diffs[k] for k in ("dense", "perm", "pad")},
        n=c.graphs,
        details={k: v for k, v in diffs.items() if "_" in k},
        figures={"layers": figures.layer_errors({k: v for k, v in diffs.items() if "_" in k})},
        captions={"layers": figures.LAYERS_CAPTION},
    )
