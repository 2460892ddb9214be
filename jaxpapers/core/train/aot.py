"""Ahead-of-time lowering of a train step for a mesh this machine does not have.

"Will the full preset fit on a 64-chip slice?" is answered before a job is queued: the train step of
:func:`~jaxpapers.core.train.step.make_train_step` is traced with abstract inputs
(``jax.ShapeDtypeStruct`` carrying ``NamedSharding``s on a ``jax.sharding.AbstractMesh``) and lowered
for the target platform (``tpu``, ``cuda``, ``cpu``) on this CPU. Nothing is allocated and no device
of the target is needed.

What comes back (:class:`AotReport`):

* the state's bytes per device, exact: every leaf's shard shape under its sharding (params, optimizer
  state, step key), and the batch's bytes per device;
* the step's FLOPs from XLA's cost analysis of the lowered module (global, before partitioning). XLA
  counts a loop body once, so for a model that scans over its layers the number is a lower bound
  (``flops_lower_bound``; the summary says so): lower with ``scan_layers=False`` for the full count;
* when the target is the platform of this process and it has the mesh's devices (e.g. 8 emulated CPU
  devices), the compiled step's memory analysis per device: arguments, outputs, temporaries (the
  activations XLA keeps for the backward pass). Cross-platform lowerings cannot be compiled here:
  JAX gives no temporary sizes for them, and the report says so instead of guessing.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import flax.linen as nn
import jax
import optax
from jax.sharding import AbstractMesh, NamedSharding

from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.train.job import step_flops
from jaxpapers.core.train.state import TrainState
from jaxpapers.core.train.step import LossFn, make_train_step


@dataclasses.dataclass(frozen=True)
class AotReport:
    """What the lowering of one train step says about one mesh (bytes are per device)."""

    platform: str
    mesh: dict[str, int]
    num_devices: int
    param_count: int
    param_bytes: int  # largest over devices (shards of uneven leaves differ by at most one row)
    opt_state_bytes: int
    batch_bytes: int
    flops: float | None  # global FLOPs of one step (XLA cost analysis), None when XLA gives none
    flops_lower_bound: bool  # the step has loops (scan over layers) whose bodies XLA counted once
    compiled: dict[str, int] | None  # memory analysis of the compiled step, when compiled here
    hlo_bytes: int  # size of the lowered StableHLO text
    manual_regions: int  # shard_map regions in the lowered program (see :func:`manual_regions`)

    @property
    def state_bytes(self) -> int:
        return self.param_bytes + self.opt_state_bytes

    def _flops_line(self) -> str:
        if not self.flops:
            return "  step: FLOPs not reported"
        if self.flops_lower_bound:
            return f"  step: at least {self.flops / 1e12:.1f} TFLOP (global; XLA counts each loop body once)"
        return f"  step: {self.flops / 1e12:.1f} TFLOP (global)"

    def summary(self) -> str:
        """Lines for a person: the mesh, bytes per device, FLOPs and (when known) compiled memory."""
        from jaxpapers.core.train.job import human_bytes

        mesh = " x ".join(f"{k}={v}" for k, v in self.mesh.items() if v > 1) or "1 device"
        lines = [
            f"{self.platform}: mesh {mesh} ({self.num_devices} devices); {self.param_count / 1e6:.1f} M params",
            f"  per device: params {human_bytes(self.param_bytes)}, optimizer state "
            f"{human_bytes(self.opt_state_bytes)}, batch {human_bytes(self.batch_bytes)}",
            self._flops_line(),
        ]
        if self.compiled:
            lines.append(
                "  compiled here: "
                + ", ".join(f"{k} {human_bytes(v)}" for k, v in self.compiled.items())
                + " per device"
            )
        else:
            lines.append(f"  activations: compile on a {self.platform} host to measure (JAX reports none here)")
        return "\n".join(lines)


# How a shard_map region appears in lowered StableHLO (Shardy / GSPMD).
_MANUAL_MARKERS = ("sdy.manual_computation", "@SPMDFullToShardShape")


def manual_regions(stablehlo: str) -> int:
    """The number of manual-sharding (``shard_map``) regions in a lowered program's text: > 0 shows that
    a context-parallel (or other hand-partitioned) layer was lowered as such, not left to the compiler."""
    return sum(stablehlo.count(m) for m in _MANUAL_MARKERS)


def abstract_mesh(axis_sizes: Mapping[str, int]) -> AbstractMesh:
    """An ``AbstractMesh`` with the project's axes in order (sizes from ``launch.mesh``-style dicts)."""
    from jaxpapers.core.axes import MESH_AXES

    sizes = tuple(int(axis_sizes.get(name, 1)) for name in MESH_AXES)
    return AbstractMesh(sizes, MESH_AXES, axis_types=(jax.sharding.AxisType.Auto,) * len(MESH_AXES))


def shard_bytes(tree: Any) -> int:
    """Bytes of the largest shard of each ShapeDtypeStruct leaf (with a ``NamedSharding``), summed."""
    total = 0
    for leaf in jax.tree.leaves(tree):
        shape = leaf.sharding.shard_shape(leaf.shape) if isinstance(leaf.sharding, NamedSharding) else leaf.shape
        total += math.prod(shape) * leaf.dtype.itemsize
    return total


def lower_train_step(
    init_params: Callable[[jax.Array], Any],
    loss_fn: LossFn,
    tx: optax.GradientTransformation,
    batch: Mapping[str, jax.ShapeDtypeStruct],
    *,
    mesh: Any,
    rules: sharding_lib.Rules,
    platform: str,
    batch_logical: Mapping[str, tuple[str | None, ...]] | None = None,
    compile_here: bool = False,
) -> AotReport:
    """Lowers ``make_train_step(loss_fn, tx)`` for ``mesh`` (an ``AbstractMesh``, or a concrete mesh
    to compile on) and ``platform``; see the module docstring for what is reported.

    ``batch`` holds global shapes; its leading axis is the BATCH logical axis unless ``batch_logical``
    names each array's logical axes. ``compile_here`` compiles the lowered step in this process (the
    mesh must then be a concrete mesh of this process's devices and ``platform`` its backend).
    """
    key = jax.random.key(0)

    def make(k: jax.Array) -> TrainState:
        return TrainState.create(init_params(k), tx, k)

    boxed = jax.eval_shape(make, key)
    shardings = sharding_lib.tree_shardings(boxed, mesh, rules)
    state = jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), nn.unbox(boxed), shardings)
    logical = dict(batch_logical or {})
    batch_in = {
        name: jax.ShapeDtypeStruct(
            x.shape, x.dtype, sharding=sharding_lib.batch_sharding(mesh, rules, logical.get(name, ("batch",)))
        )
        for name, x in batch.items()
    }
    step = make_train_step(loss_fn, tx)
    with sharding_lib.mesh_context(mesh if isinstance(mesh, jax.sharding.Mesh) else None, rules):
        with nn.logical_axis_rules(tuple(rules)), jax.sharding.use_abstract_mesh(_abstract(mesh)):
            traced = jax.jit(step, out_shardings=(shardings, None)).trace(state, batch_in)
        lowered = traced.lower(lowering_platforms=(platform,))
    text = lowered.as_text()
    compiled = None
    if compile_here:
        mem = lowered.compile().memory_analysis()
        if mem is not None:
            compiled = {
                "arguments": int(mem.argument_size_in_bytes),
                "outputs": int(mem.output_size_in_bytes),
                "temporaries": int(mem.temp_size_in_bytes),
            }
    params = nn.unbox(boxed).params
    return AotReport(
        platform=platform,
        mesh=dict(_abstract(mesh).shape),
        num_devices=_abstract(mesh).size,
        param_count=sum(math.prod(x.shape) for x in jax.tree.leaves(params)),
        param_bytes=shard_bytes(state.params),
        opt_state_bytes=shard_bytes(state.opt_state),
        batch_bytes=shard_bytes(batch_in),
        flops=step_flops(lowered),
        flops_lower_bound="stablehlo.while" in text,
        compiled=compiled,
        hlo_bytes=len(text),
        manual_regions=manual_regions(text),
    )


def _abstract(mesh: Any) -> AbstractMesh:
    return mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh
