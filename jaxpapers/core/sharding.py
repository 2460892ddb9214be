"""From logical axis names to physical shardings (the Linen logical-partitioning pipeline).

Models name axes (``core.axes``); a rule table (``launch/rules/<model>.py``) maps names to mesh axes;
these helpers turn the Linen annotations of an abstract pytree into ``NamedSharding``s and set up
the context in which ``nn.with_logical_constraint`` resolves. Without a mesh everything is
replicated on the default device, so single-device code paths need no special casing. Meshes
themselves are built in ``launch/mesh.py`` only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import flax.linen as nn
import jax
import numpy as np
from jax.sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec

from jaxpapers.core import axes

Rules = Sequence[tuple[str, Any]]


@contextlib.contextmanager
def mesh_context(mesh: Mesh | None, rules: Rules | None) -> Iterator[None]:
    """Activates ``mesh`` and the logical-axis ``rules`` (both optional) for tracing and running."""
    with contextlib.ExitStack() as stack:
        if mesh is not None:
            set_mesh = getattr(jax, "set_mesh", None) or jax.sharding.use_mesh  # JAX 0.10 / 0.11
            stack.enter_context(set_mesh(mesh))
        if rules is not None:
            stack.enter_context(nn.logical_axis_rules(tuple(rules)))
        yield


def logical_specs(abstract_tree: Any) -> Any:
    """Logical PartitionSpecs of a (possibly boxed) abstract pytree; unannotated leaves get P()."""
    return nn.get_partition_spec(abstract_tree)


def tree_shardings(abstract_tree: Any, mesh: Mesh | AbstractMesh | None, rules: Rules | None) -> Any:
    """NamedShardings for every leaf of a boxed abstract tree (None without a mesh; an ``AbstractMesh``
    gives shardings for ahead-of-time lowering, ``core.train.aot``)."""
    if mesh is None:
        return None
    return nn.logical_to_mesh_sharding(logical_specs(abstract_tree), mesh, tuple(rules or ()))


def batch_sharding(
    mesh: Mesh | AbstractMesh | None, rules: Rules | None, logical: Sequence[str | None] = (axes.BATCH,)
) -> NamedSharding | None:
    """Sharding of a batch array whose leading dims carry the ``logical`` names (default: BATCH)."""
    if mesh is None:
        return None
    spec = nn.logical_to_mesh_axes(tuple(logical), tuple(rules or ()))
    return NamedSharding(mesh, spec)


def replicated(mesh: Mesh | None) -> NamedSharding | None:
    return None if mesh is None else NamedSharding(mesh, PartitionSpec())


def to_global(local_batch: Any, sharding: NamedSharding | None) -> Any:
    """Turns this process's slice of a batch (numpy pytree) into global jax Arrays.

    Each process reads only its own slice of the data; ``make_array_from_process_local_data``
    assembles the global array. Without a mesh the arrays are simply put on the default device.
    """
    if sharding is None:
        return jax.tree.map(jax.numpy.asarray, local_batch)

    def put(x: Any) -> jax.Array:
        x = np.asarray(x)
        spec = tuple(sharding.spec) + (None,) * (x.ndim - len(sharding.spec))
        return jax.make_array_from_process_local_data(NamedSharding(sharding.mesh, PartitionSpec(*spec[: x.ndim])), x)

    return jax.tree.map(put, local_batch)
