"""Shared Linen layers with logical axis names (see ``core.axes``).

from jaxpapers.core import nn as jpnn
block = jpnn.TransformerBlock(num_heads=4, head_dim=16, mlp_dim=128, attn_impl="xla")
"""

from jaxpapers.core.nn.attention import (
    ATTENTION_IMPLS,
    MultiHeadAttention,
    dot_product_attention,
    get_attention,
    register_attention,
    xla_attention,
)
from jaxpapers.core.nn.block import TransformerBlock, TransformerStack
from jaxpapers.core.nn.embed import PatchEmbed, TokenEmbed
from jaxpapers.core.nn.mlp import MlpBlock
from jaxpapers.core.nn.norm import layer_norm, rms_norm
from jaxpapers.core.nn.rotary import apply_rotary, rope_angles

__all__ = [
    "ATTENTION_IMPLS",
    "MlpBlock",
    "MultiHeadAttention",
    "PatchEmbed",
    "TokenEmbed",
    "TransformerBlock",
    "TransformerStack",
    "apply_rotary",
    "dot_product_attention",
    "get_attention",
    "layer_norm",
    "register_attention",
    "rms_norm",
    "rope_angles",
    "xla_attention",
]
