"""Device meshes and multi-host start-up — the only place meshes are built.

    mesh = make_mesh({"data": -1, "fsdp": 2, "tensor": 2})   # -1: the rest of the devices

Every mesh has the project's four axes in a fixed order (``data, fsdp, tensor, sequence``; unnamed
axes get size 1), so every rule table is valid on every mesh. JAX 0.10's ``jax.make_mesh`` defaults
to Explicit axis types, which breaks Linen's logical constraints: we always ask for Auto.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import jax
from jax.sharding import AxisType, Mesh

from jaxpapers.core.axes import MESH_AXES
from jaxpapers.core.checks import choices_text
from jaxpapers.core.errors import ConfigError


def resolve_axis_sizes(axis_sizes: Mapping[str, int], num_devices: int) -> dict[str, int]:
    """Fills in the one ``-1`` and unnamed axes (size 1); checks the product equals ``num_devices``."""
    sizes = {k: int(v) for k, v in axis_sizes.items()}
    unknown = [k for k in sizes if k not in MESH_AXES]
    if unknown:
        raise ConfigError(f"mesh axis {unknown[0]!r} is unknown; mesh axes are {choices_text(MESH_AXES)}")
    free = [k for k, v in sizes.items() if v == -1]
    bad = [k for k, v in sizes.items() if v == 0 or v < -1]
    if bad:
        raise ConfigError(f"mesh axis {bad[0]}={sizes[bad[0]]} must be a positive size or -1")
    if len(free) > 1:
        raise ConfigError(f"at most one mesh axis may be -1; got {', '.join(free)}")
    fixed = math.prod(v for v in sizes.values() if v != -1)
    if free:
        if num_devices % fixed:
            raise ConfigError(f"mesh {_fmt(sizes)}: {num_devices} devices are not divisible by {fixed}")
        sizes[free[0]] = num_devices // fixed
    full = {name: sizes.get(name, 1) for name in MESH_AXES}
    if math.prod(full.values()) != num_devices:
        raise ConfigError(
            f"mesh {_fmt(full)} needs {math.prod(full.values())} devices, "
            f"but {num_devices} are available ({jax.default_backend()})"
        )
    return full


def make_mesh(axis_sizes: Mapping[str, int] | None = None, *, devices: Sequence[Any] | None = None) -> Mesh:
    """Builds a ``Mesh`` over ``devices`` (default: all) with axes ``data, fsdp, tensor, sequence``."""
    devices = list(devices) if devices is not None else jax.devices()
    sizes = resolve_axis_sizes(axis_sizes or {"data": -1}, len(devices))
    shape = tuple(sizes[n] for n in MESH_AXES)
    return jax.make_mesh(shape, MESH_AXES, axis_types=(AxisType.Auto,) * len(MESH_AXES), devices=devices)


_LAUNCHER_VARS = {
    "JAX_COORDINATOR_ADDRESS": None,  # explicit jax.distributed set-up
    "SLURM_NTASKS": 1,  # srun with more than one task
    "OMPI_COMM_WORLD_SIZE": 1,  # mpirun
    "MEGASCALE_COORDINATOR_ADDRESS": None,  # multi-slice TPU
    "TPU_WORKER_HOSTNAMES": None,  # multi-host TPU VM (comma-separated hostnames)
}


def under_multiprocess_launcher(env: Mapping[str, str] | None = None) -> bool:
    """True when the process was started by a multi-process launcher (SLURM, MPI, a TPU pod)."""
    env = os.environ if env is None else env
    for var, min_count in _LAUNCHER_VARS.items():
        value = env.get(var)
        if not value:
            continue
        if var == "TPU_WORKER_HOSTNAMES":
            if len([h for h in value.split(",") if h]) > 1:
                return True
        elif min_count is None or (value.isdigit() and int(value) > min_count):
            return True
    return False


def needs_distributed(env: Mapping[str, str] | None = None, *, platform: str | None = None, hosts: int = 1) -> bool:
    """Whether this process is one of several of a job: a multi-host topology (``hosts > 1``: on Cloud
    TPU VMs and GKE, ``jax.distributed.initialize()`` finds the coordinator itself), or a launcher
    (SLURM with several tasks, MPI, an explicit ``JAX_COORDINATOR_ADDRESS``, GKE's TPU variables)."""
    del platform  # the rule is the same on TPU and GPU: several hosts, one process each
    return hosts > 1 or under_multiprocess_launcher(env)


def initialize_distributed(
    env: Mapping[str, str] | None = None, *, platform: str | None = None, hosts: int = 1
) -> bool:
    """Calls ``jax.distributed.initialize()`` when :func:`needs_distributed`; a no-op otherwise.

    Must run before any other JAX call touches the devices. With no arguments JAX auto-detects the
    cluster (Cloud TPU VM metadata, GKE, SLURM, Open MPI) or reads ``JAX_COORDINATOR_ADDRESS``,
    ``JAX_NUM_PROCESSES`` and ``JAX_PROCESS_ID``. Returns whether it initialised.
    """
    if not needs_distributed(env, platform=platform, hosts=hosts):
        return False
    jax.distributed.initialize()
    return True


def _fmt(sizes: Mapping[str, int]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sizes.items()) + "}"
