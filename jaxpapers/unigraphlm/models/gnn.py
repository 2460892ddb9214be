"""The multi-domain, multi-task GNN encoder f_θ (spec, GNN encoder) on the core message-passing layers.

``x_v = [x_text ; RWSE ; log(1+deg)] W_in + ρ(r_v)``; then ``layers`` pre-norm residual blocks
``h ← h + GELU(layer(LayerNorm(h)))`` with ``layer`` one of :data:`jaxpapers.core.nn.graph.GNN_LAYERS`
(SAGE-mean by default); padded nodes stay zero. Three readouts ``z ∈ R^{3×d_g}``: ``z_0`` the mean over the
nodes of interest, ``z_1`` the mean over their 1-hop ring, ``z_2`` attention pooling over the whole subgraph
with a learned query. One sample at a time; callers ``jax.vmap`` over the sample axis.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.nn.graph import GraphBatch, get_gnn_layer

N_ROLES = 4


def masked_mean(h: Float[Array, "N D"], mask: Bool[Array, " N"]) -> Float[Array, " D"]:
    w = mask.astype(h.dtype)
    return (h * w[:, None]).sum(0) / jnp.maximum(w.sum(), 1.0)


class GraphEncoder(nn.Module):
    """``(graph, role, noi, ring) -> z [3, d_g]`` for one padded subgraph."""

    layer: str = "sage"
    d_g: int = 64
    layers: int = 2

    @nn.compact
    def __call__(
        self, graph: GraphBatch, role: Int[Array, " N"], noi: Bool[Array, " N"], ring: Bool[Array, " N"]
    ) -> Float[Array, "3 D"]:
        cls = get_gnn_layer(self.layer)
        h = nn.Dense(self.d_g, name="w_in")(graph.nodes) + nn.Embed(N_ROLES, self.d_g, name="role")(role)
        h = jnp.where(graph.node_mask[:, None], h, 0.0)
        for i in range(self.layers):
            y = nn.LayerNorm(name=f"ln_{i}")(h)
            h = h + nn.gelu(cls(self.d_g, name=f"layers_{i}")(y, graph))
            h = jnp.where(graph.node_mask[:, None], h, 0.0)
        h = nn.LayerNorm(name="ln_out")(h)
        query = self.param("query", nn.initializers.normal(1.0), (self.d_g,))
        logits = jnp.where(graph.node_mask, h @ query / jnp.sqrt(self.d_g), -jnp.inf)
        att = jax.nn.softmax(logits)
        att = jnp.where(graph.node_mask, att, 0.0)
        return jnp.stack([masked_mean(h, noi & graph.node_mask), masked_mean(h, ring & graph.node_mask), att @ h])
