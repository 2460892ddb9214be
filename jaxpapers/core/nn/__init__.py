"""Shared Linen layers with logical axis names (see ``core.axes``).

    from jaxpapers.core import nn as jpnn
    block = jpnn.TransformerBlock(num_heads=4, head_dim=16, mlp_dim=128, attn_impl="xla")

* ``MultiHeadAttention(num_kv_heads=G)``: grouped-query attention; :class:`SwiGLU`: the gated MLP of Llama;
  :class:`DecoderBlock`: the Llama block (RMSNorm, GQA with RoPE, SwiGLU; optionally the identity at init).
* :class:`Einsum`: the one projection layer (kernel at its true shape, logical names, any input rank);
  ``MultiHeadAttention`` (``query``/``key``/``value``/``out``) and ``MlpBlock`` (``wi``/``wo``) use it.
* ``act_axes``: every layer constrains its activations with the logical names of its input's axes
  (default ``(BATCH, LENGTH, EMBED)``; FuxViT passes ``(BATCH, FRAMES, LENGTH, EMBED)``).
* :mod:`graph`: message passing on padded graphs (``GraphBatch``, ``pad_graphs``; GCN, SAGE, GIN and GAT
  layers written with ``jax.ops.segment_sum``).
* Repeated blocks are named ``layers_0..`` unrolled and ``layers`` scanned (params stacked along
  LAYERS, no wrapper level): :func:`stack_layers` does both for any block class (see ``block.py``).
"""

from jaxpapers.core.nn.attention import (
    ATTENTION_IMPLS,
    MultiHeadAttention,
    dot_product_attention,
    get_attention,
    register_attention,
    xla_attention,
)
from jaxpapers.core.nn.block import DecoderBlock, TransformerBlock, TransformerStack, stack_layers
from jaxpapers.core.nn.einsum import SEQUENCE_ACT, Einsum, constrain
from jaxpapers.core.nn.embed import PatchEmbed, TokenEmbed
from jaxpapers.core.nn.graph import (
    GNN_LAYERS,
    GATLayer,
    GCNLayer,
    GINLayer,
    GraphBatch,
    SAGELayer,
    get_gnn_layer,
    pad_graphs,
)
from jaxpapers.core.nn.mlp import MlpBlock, SwiGLU
from jaxpapers.core.nn.norm import layer_norm, rms_norm
from jaxpapers.core.nn.rotary import apply_rotary, rope_angles

__all__ = [
    "ATTENTION_IMPLS",
    "DecoderBlock",
    "GATLayer",
    "GCNLayer",
    "GINLayer",
    "GNN_LAYERS",
    "GraphBatch",
    "SAGELayer",
    "SwiGLU",
    "get_gnn_layer",
    "pad_graphs",
    "SEQUENCE_ACT",
    "Einsum",
    "MlpBlock",
    "MultiHeadAttention",
    "PatchEmbed",
    "TokenEmbed",
    "TransformerBlock",
    "TransformerStack",
    "apply_rotary",
    "constrain",
    "dot_product_attention",
    "get_attention",
    "layer_norm",
    "register_attention",
    "rms_norm",
    "rope_angles",
    "stack_layers",
    "xla_attention",
]
