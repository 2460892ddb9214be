"""The logical-axis vocabulary shared by every model.

Models name the dimensions of params and activations with these names only
(``nn.with_logical_partitioning(init, (EMBED, MLP))``, ``nn.with_logical_constraint(x, (BATCH,
LENGTH, EMBED))``); ``launch/rules/<model>.py`` maps them to mesh axes. Flax silently replicates a
name that no rule mentions, so ``tests/launch`` checks that every name a model uses is listed here and
has a rule in every strategy.
"""

from __future__ import annotations

BATCH = "batch"  # examples in a batch
LENGTH = "length"  # tokens of a sequence, or tokens within one video frame
FRAMES = "frames"  # temporal frames of a video (FuxViT's context-parallel axis)
EMBED = "embed"  # model width D
MLP = "mlp"  # hidden width of feed-forward layers
HEADS = "heads"  # attention heads
KV = "kv"  # per-head feature dimension
VOCAB = "vocab"  # token vocabulary
LAYERS = "layers"  # stacked layers under nn.scan
PATCH = "patch"  # flattened patch/tubelet input features

ALL: tuple[str, ...] = (BATCH, LENGTH, FRAMES, EMBED, MLP, HEADS, KV, VOCAB, LAYERS, PATCH)

# Mesh axis names, in the order meshes are built (launch/mesh.py).
MESH_AXES: tuple[str, ...] = ("data", "fsdp", "tensor", "sequence")
