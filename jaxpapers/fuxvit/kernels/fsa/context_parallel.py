"""Context-parallel FSA over the ``sequence`` mesh axis (spec "Scale-up", FSA under context parallelism).

Letters: B batch, N heads, T frames (global; T_l = T / |sequence| local), S key frames, K selection
slots, P tokens per frame, H head dim, R summary features.

:func:`sharded_fsa_layer` is one layer's routed attention (routing, fine branch and, in ``gated`` mode,
the coarse branch) under ``jax.shard_map``, with the frames of every row split over the ``sequence``
axis (a frame's tokens are never split: T must be divisible by the axis size), the batch over the
batch axes and the heads over the tensor axis:

1. each device pools the summaries of its own frames; the key summaries K̄ [B, N, T_l, R] (and, gated,
   the value summaries V̄) are all-gathered along ``sequence`` (tiny) and each device routes its local
   query frames against all T key frames (global frame indices, so causality and segments are exactly
   the single-device ones);
2. K and V are all-gathered along ``sequence`` (as MaxText's context parallelism does);
3. the fine branch runs locally: the local query frames against the gathered K/V (``reference`` or the
   ``pallas`` kernel, which both take S ≠ T key frames);
4. the backward pass is autodiff's transpose of the all-gathers, a reduce-scatter (``psum_scatter``)
   of dK/dV along ``sequence``.

Where it is used: ``model.FSAttention`` asks :func:`context_layout` at trace time; when the active mesh
(``core.sharding.mesh_context``: ``jax.set_mesh`` + Linen's logical-axis rules) maps FRAMES to a mesh
axis of size > 1 (the ``fsdp_tp_cp`` rules), the layer goes through :func:`sharded_fsa_layer`;
otherwise (no mesh, ``dp``/``fsdp``/``fsdp_tp``, streaming with a cache) it runs the single-device
code, which the compiler partitions. :func:`shard_fsa` is the parameter-free ``fsa_attention``
(plain mode) on an explicit mesh.

Per-frame cost is nearly constant ((k+1)·P keys), so there is no causal load imbalance to rebalance.
Not built: gathering only the selected frames (a later optimisation).
"""

from __future__ import annotations

import functools
import math
import typing
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, Mesh
from jax.sharding import PartitionSpec as PS
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core import axes
from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import attention, routing

AxisSpec = str | tuple[str, ...] | None


class Layout(typing.NamedTuple):
    """Where a layer's tensors live: the mesh, the mesh axis of the frames and those of batch and heads."""

    mesh: Mesh | AbstractMesh
    sequence: str
    batch: AxisSpec = None
    heads: AxisSpec = None


def context_layout(mesh: Mesh | AbstractMesh | None = None, rules: Any = None) -> Layout | None:
    """The context-parallel layout of the active mesh and logical-axis rules (or of those given), or None
    when FRAMES is not split (no mesh, FRAMES unmapped, or its mesh axis has size 1).

    Read at trace time: ``core.sharding.mesh_context`` sets both (``jax.set_mesh`` and
    ``nn.logical_axis_rules``). The batch and heads axes are the rules' BATCH and HEADS axes.
    """
    mesh = jax.sharding.get_abstract_mesh() if mesh is None else mesh
    if mesh is None or mesh.empty:
        return None
    rules = tuple(nn.get_logical_axis_rules() if rules is None else rules)
    batch, frames, heads = nn.logical_to_mesh_axes((axes.BATCH, axes.FRAMES, axes.HEADS), rules)
    if isinstance(frames, tuple):
        if len(frames) != 1:
            raise ConfigError(f"FRAMES maps to the mesh axes {frames}; context parallelism takes one mesh axis")
        frames = frames[0]
    if frames is None or mesh.shape.get(frames, 1) == 1:
        return None
    if frames not in mesh.shape:
        raise ConfigError(f"FRAMES maps to {frames!r}, which is not a mesh axis; mesh axes: {tuple(mesh.shape)}")
    return Layout(mesh, frames, batch, heads)


def _axes_size(mesh: Mesh | AbstractMesh, spec: AxisSpec) -> int:
    """The number of devices along the mesh axes ``spec`` (1 for None)."""
    names = () if spec is None else (spec,) if isinstance(spec, str) else spec
    return math.prod(mesh.shape[n] for n in names)


def _local_layer(qs, ks, vs, q_frames, seg_q, seg_k, valid_k, *, P, axis, pool, coarse, **kw):
    """One device: its query frames [B, T_l·P, N, H] against the gathered keys of all T frames."""
    gather = functools.partial(jax.lax.all_gather, axis_name=axis, axis=1, tiled=True)
    kbar = jax.lax.all_gather(routing.frame_summaries(ks, P, pool), axis, axis=2, tiled=True)  # [B, N, T, R]
    vbar = jax.lax.all_gather(attention.value_summaries(vs, P), axis, axis=2, tiled=True) if coarse else None
    out, sel, cmp = attention.routed_attention(
        qs,
        gather(ks),
        gather(vs),
        kbar,
        vbar,
        P=P,
        q_frames=q_frames,
        seg_q=seg_q,
        seg_k=gather(seg_k),
        valid_k=gather(valid_k),
        pool=pool,
        coarse=coarse,
        **kw,
    )
    return (out, sel, cmp) if coarse else (out, sel)


def sharded_fsa_layer(
    qs: Float[Array, "B TP N H"],
    ks: Float[Array, "B TP N H"],
    vs: Float[Array, "B TP N H"],
    *,
    layout: Layout,
    P: int,
    k_frames: int,
    q_frames: Int[Array, "B T"],
    seg_q: Int[Array, "B T"],
    seg_k: Int[Array, "B T"],
    valid_k: Bool[Array, "B T"],
    force_first: bool = False,
    force_prev: bool = False,
    share_across_heads: bool = False,
    impl: str = "reference",
    pool: str = "mean",
    chunk: int | None = None,
    coarse: bool = False,
) -> tuple[Float[Array, "B TP N H"], Int[Array, "B N T K"], Float[Array, "B N T H"] | None]:
    """One layer's routed FSA with frames split over ``layout.sequence`` (self-attention: keys = queries).

    Returns (O_fine [B, T·P, N, H], sel [B, N, T, K], O_cmp [B, N, T, H] with ``coarse``, else None),
    each equal to the single-device result. The batch and the heads are split over their axes only
    where the axis size divides them; with ``share_across_heads`` the heads stay whole on every device
    (the routing logits are summed over all heads).
    """
    check_choice("impl", impl, attention.FSA_IMPLS)
    b, n_tok = qs.shape[:2]
    t = n_tok // P
    size = layout.mesh.shape[layout.sequence]
    if n_tok % P or t % size:
        raise ConfigError(
            f"{n_tok} tokens = {t} frames of P={P} cannot be split over {layout.sequence}={size}: "
            "the number of frames must be divisible by the sequence axis (a frame is never split)"
        )
    # Batch and heads are split only where they divide (e.g. a batch of 1 at init stays whole).
    batch = layout.batch if b % _axes_size(layout.mesh, layout.batch) == 0 else None
    heads = None if share_across_heads or qs.shape[2] % _axes_size(layout.mesh, layout.heads) else layout.heads
    tokens, frames = PS(batch, layout.sequence, heads, None), PS(batch, layout.sequence)
    per_frame = PS(batch, heads, layout.sequence, None)  # sel [B, N, T, K], O_cmp [B, N, T, H]
    body = functools.partial(
        _local_layer,
        P=P,
        axis=layout.sequence,
        impl=impl,
        pool=pool,
        chunk=chunk,
        coarse=coarse,
        k_frames=k_frames,
        force_first=force_first,
        force_prev=force_prev,
        share_across_heads=share_across_heads,
    )
    sharded = jax.shard_map(
        body,
        mesh=layout.mesh,
        in_specs=(tokens, tokens, tokens, frames, frames, frames, frames),
        out_specs=(tokens, per_frame, per_frame) if coarse else (tokens, per_frame),
        check_vma=impl == "reference",  # Pallas calls carry no varying-axis annotations
    )
    out, sel, *cmp = sharded(qs, ks, vs, q_frames, seg_q, seg_k, valid_k)
    return out, sel, cmp[0] if coarse else None


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
    heads_axis: str | None = None,
) -> tuple[Float[Array, "B TP N H"], Int[Array, "B N T K"]]:
    """``fsa_attention`` (plain mode) with frames split over ``sequence_axis``: returns (out, sel), equal to
    the single-device result. ``batch_axes`` shard the batch and ``heads_axis`` the heads (None: whole)."""
    check_choice("impl", impl, attention.FSA_IMPLS)
    if sequence_axis not in mesh.shape:
        raise ConfigError(f"sequence_axis={sequence_axis!r} is not a mesh axis; mesh axes: {tuple(mesh.shape)}")
    b, n_tok = q.shape[:2]
    t = n_tok // P
    seg, valid = routing.default_seg_valid(b, t, seg, valid)
    frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
    out, sel, _ = sharded_fsa_layer(
        q,
        k,
        v,
        layout=Layout(mesh, sequence_axis, batch_axes, heads_axis),
        P=P,
        k_frames=k_frames,
        q_frames=frames,
        seg_q=seg,
        seg_k=seg,
        valid_k=valid,
        force_first=force_first,
        force_prev=force_prev,
        impl=impl,
        pool=pool,
    )
    return out, sel
