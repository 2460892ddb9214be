"""Rules for the shared transformer layers (``core.nn``) and the worked example's TinyLM.

Mesh axes: data (pure data parallel), fsdp (data parallel + parameter/optimizer sharding), tensor
(Megatron-style heads/MLP split), sequence (context parallelism over tokens).
"""

from jaxpapers.core import axes

_BATCH = (axes.BATCH, ("data", "fsdp"))

STRATEGIES = {
    "dp": (
        _BATCH,
        (axes.LENGTH, None),
        (axes.FRAMES, None),
        (axes.EMBED, None),
        (axes.MLP, None),
        (axes.HEADS, None),
        (axes.KV, None),
        (axes.VOCAB, None),
        (axes.LAYERS, None),
        (axes.PATCH, None),
    ),
    "fsdp": (
        _BATCH,
        (axes.LENGTH, None),
        (axes.FRAMES, None),
        (axes.EMBED, "fsdp"),
        (axes.MLP, None),
        (axes.HEADS, None),
        (axes.KV, None),
        (axes.VOCAB, None),
        (axes.LAYERS, None),
        (axes.PATCH, None),
    ),
    "fsdp_tp": (
        _BATCH,
        (axes.LENGTH, None),
        (axes.FRAMES, None),
        (axes.EMBED, "fsdp"),
        (axes.MLP, "tensor"),
        (axes.HEADS, "tensor"),
        (axes.KV, None),
        (axes.VOCAB, "tensor"),
        (axes.LAYERS, None),
        (axes.PATCH, None),
    ),
    "fsdp_tp_cp": (
        _BATCH,
        (axes.LENGTH, "sequence"),
        (axes.FRAMES, None),
        (axes.EMBED, "fsdp"),
        (axes.MLP, "tensor"),
        (axes.HEADS, "tensor"),
        (axes.KV, None),
        (axes.VOCAB, "tensor"),
        (axes.LAYERS, None),
        (axes.PATCH, None),
    ),
}
