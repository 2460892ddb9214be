"""Context-parallel FSA over the ``sequence`` mesh axis (spec "Scale-up", FSA under context parallelism).

Letters: B batch, N heads, T frames (global; T_l = T / |sequence| local), S key frames, K selection
slots, P tokens per frame, H head dim, R summary features.

``shard_fsa`` is ``fsa_attention`` (plain mode) under ``jax.shard_map``, with the frames of every row
split over ``sequence`` (a frame's tokens are never split: T must be divisible by the axis size):

1. each device pools the summaries of its own frames; the key summaries K̄ [B, N, T_l, R] are
   all-gathered along ``sequence`` (tiny) and each device routes its local query frames against all T
   key frames (global frame indices, so causality and segments are exactly the single-device ones);
2. K and V are all-gathered along ``sequence`` (as MaxText's context parallelism does);
3. the fine branch runs locally: the local query frames against the gathered K/V (``reference`` or the
   ``pallas`` kernel, which both take S ≠ T key frames);
4. the backward pass is autodiff's transpose of the all-gathers, a reduce-scatter (``psum_scatter``)
   of dK/dV along ``sequence``.

Per-frame cost is nearly constant ((k+1)·P keys), so there is no causal load imbalance to rebalance.
Not built: gathering only the selected frames (a later optimisation) and the ``fsdp_tp_cp`` rule
table's use of it inside the model (``launch/rules/fuxvit.py``).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as PS
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import attention, routing
from jaxpapers.fuxvit.kernels.fsa.dispatch import fsa_fine_pallas
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference


def _local_fsa(q, k, v, seg, valid, *, P, k_frames, axis, force_first, force_prev, impl, pool):
    """One device: local query frames [B, T_l·P, N, H] against the gathered keys of all T frames."""
    b, n_tok = q.shape[:2]
    t_local = n_tok // P
    first = jax.lax.axis_index(axis) * t_local
    q_frames = jnp.broadcast_to(first + jnp.arange(t_local, dtype=jnp.int32), (b, t_local))
    gather = functools.partial(jax.lax.all_gather, axis_name=axis, axis=1, tiled=True)
    kbar = jax.lax.all_gather(routing.frame_summaries(k, P, pool), axis, axis=2, tiled=True)  # [B, N, T, R]
    k_all, v_all, seg_all, valid_all = gather(k), gather(v), gather(seg), gather(valid)
    r = attention.route(
        routing.frame_summaries(q, P, pool),
        kbar,
        head_dim=q.shape[-1],
        k_frames=k_frames,
        q_frames=q_frames,
        seg_q=seg,
        seg_k=seg_all,
        valid_k=valid_all,
        force_first=force_first,
        force_prev=force_prev,
    )
    if impl == "pallas":
        out = fsa_fine_pallas(q, k_all, v_all, r.sel, r.num_sel, P)
    else:
        out = fsa_fine_reference(q, k_all, v_all, r.sel, P)
    return out, r.sel


def shard_fsa(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B TP N H"],
    v: Float[Array, "B TP N H"],
    *,
    P: int,
    k_frames: int,
    mesh: Mesh,
    seg: Int[Array, "B T"] | None = None,
    valid: Bool[Array, "B T"] | None = None,
    force_first: bool = False,
    force_prev: bool = False,
    impl: str = "reference",
    pool: str = "mean",
    sequence_axis: str = "sequence",
    batch_axes: tuple[str, ...] | str | None = ("data", "fsdp"),
) -> tuple[Float[Array, "B TP N H"], Int[Array, "B N T K"]]:
    """``fsa_attention`` (plain mode) with frames split over ``sequence_axis``: returns (out, sel), equal to
    the single-device result. ``batch_axes`` shard the batch (None: replicated)."""
    check_choice("impl", impl, attention.FSA_IMPLS)
    if sequence_axis not in mesh.shape:
        raise ConfigError(f"sequence_axis={sequence_axis!r} is not a mesh axis; mesh axes: {tuple(mesh.shape)}")
    b, n_tok = q.shape[:2]
    t = n_tok // P
    size = mesh.shape[sequence_axis]
    if n_tok % P or t % size:
        raise ConfigError(
            f"{n_tok} tokens = {t} frames of P={P} cannot be split over {sequence_axis}={size}: "
            "the number of frames must be divisible by the sequence axis (a frame is never split)"
        )
    seg, valid = routing.default_seg_valid(b, t, seg, valid)
    tokens, frames = PS(batch_axes, sequence_axis, None, None), PS(batch_axes, sequence_axis)
    body = functools.partial(
        _local_fsa,
        P=P,
        k_frames=k_frames,
        axis=sequence_axis,
        force_first=force_first,
        force_prev=force_prev,
        impl=impl,
        pool=pool,
    )
    sharded = jax.shard_map(
        body,
        mesh=mesh,
        in_specs=(tokens, tokens, tokens, frames, frames),
        out_specs=(tokens, PS(batch_axes, None, sequence_axis, None)),
        check_vma=impl == "reference",  # Pallas calls carry no varying-axis annotations
    )
    return sharded(q, k, v, seg, valid)
