"""Frame Selective Attention kernels.

``reference.py`` (pure JAX, float32 softmax: the ground truth), ``pallas_gpu.py`` (the fine branch as a
Triton kernel, forward + backward, ``jax.custom_vjp``), ``pallas_tpu.py`` (the scalar-prefetch TPU
variant; checked in TPU interpret mode and by lowering, never run on a TPU), ``compat.py`` (every Pallas
version/backend difference), ``dispatch.py`` (``attn_impl="pallas"``: the platform's kernel),
``context_parallel.py`` (``sharded_fsa_layer``, which the model uses when the mesh context splits
frames, and ``shard_fsa``: FSA with frames split over the ``sequence`` mesh axis under
``jax.shard_map``), ``bench.py`` (FLOP and memory counting) and ``speed.py`` (fwd+bwd timing against
dense attention, F10).
"""

from jaxpapers.fuxvit.kernels.fsa.reference import (
    dense_block_causal,
    dense_full,
    fsa_fine_reference,
)

__all__ = ["dense_block_causal", "dense_full", "fsa_fine_reference"]
