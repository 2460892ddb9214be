"""Frame Selective Attention kernels.

``reference.py`` (pure JAX, float32 softmax: the ground truth), ``bench.py`` (FLOP and memory
counting). The Pallas GPU/TPU kernels, their custom VJP and the ``shard_map`` context-parallel
wrapper belong to the kernel issue and are not built yet.
"""

from jaxpapers.fuxvit.kernels.fsa.reference import (
    dense_block_causal,
    dense_full,
    frame_local_attention,
    fsa_fine_reference,
)

__all__ = ["dense_block_causal", "dense_full", "frame_local_attention", "fsa_fine_reference"]
