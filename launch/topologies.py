"""Named hardware targets and their default mesh shapes.

A topology is the device count the job expects and a default ``{axis: size}``; the config's
``mesh`` overrides it. ``jaxpapers train --topology v5p-128`` checks the device count at start-up, so a
job launched on the wrong slice fails in one line instead of after compilation.
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.errors import UnknownNameError


@dataclasses.dataclass(frozen=True)
class Topology:
    name: str
    platform: str  # cpu | gpu | tpu
    num_devices: int
    mesh: dict[str, int]
    note: str = ""


TOPOLOGIES: dict[str, Topology] = {
    t.name: t
    for t in [
        Topology("cpu-1", "cpu", 1, {"data": 1}, "laptop / CI"),
        Topology("cpu-8", "cpu", 8, {"data": 2, "fsdp": 2, "tensor": 2}, "8 emulated CPU devices (tests)"),
        Topology("h200-1", "gpu", 1, {"data": 1}, "one H200 (141 GB)"),
        Topology("h200-8", "gpu", 8, {"fsdp": 8}, "one 8×H200 host, NVLink"),
        Topology("h200-64", "gpu", 64, {"data": 8, "fsdp": 8}, "8 hosts × 8 H200; data across hosts"),
        Topology("v5e-8", "tpu", 8, {"fsdp": 8}, "one v5e host"),
        Topology("v5p-128", "tpu", 64, {"data": 4, "fsdp": 16}, "64 chips, 16 hosts"),
        Topology("v5p-512", "tpu", 256, {"data": 4, "fsdp": 32, "tensor": 2}, "256 chips"),
        Topology("v6e-256", "tpu", 256, {"data": 8, "fsdp": 32}, "256 chips"),
    ]
}


def get(name: str) -> Topology:
    if name not in TOPOLOGIES:
        raise UnknownNameError(f"topology {name!r} does not exist; known: {', '.join(TOPOLOGIES)}")
    return TOPOLOGIES[name]
