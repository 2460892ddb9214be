"""Named hardware targets and their default mesh shapes.

A topology is the device count the job expects, how many hosts (processes) it spans, a default
``{axis: size}`` (``--config.mesh.<axis>=N`` overrides it for one run) and the dense bf16 peak of one
device (for model FLOP utilisation). ``jaxpapers train --topology v5p-128`` checks the device count
at start-up, so a job launched on the wrong slice fails in one line instead of after compilation, and
starts multi-host JAX on multi-host TPU slices. TPU names follow Cloud TPU: v4 and v5p count
TensorCores (v5p-128 is 64 chips), v5e and v6e count chips.
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
    hosts: int = 1
    peak_flops: float | None = None  # dense bf16 FLOP/s of one device (vendor peak), for MFU


# vendor dense bf16 peaks per chip
_H200 = _H100 = 989e12
_V4, _V5E, _V5P, _V6E = 275e12, 197e12, 459e12, 918e12


TOPOLOGIES: dict[str, Topology] = {
    t.name: t
    for t in [
        Topology("cpu-1", "cpu", 1, {"data": 1}, "laptop / CI"),
        Topology("cpu-8", "cpu", 8, {"data": 2, "fsdp": 2, "tensor": 2}, "8 emulated CPU devices (tests)"),
        Topology("h100-8", "gpu", 8, {"fsdp": 8}, "one 8×H100 host, NVLink", peak_flops=_H100),
        Topology("h200-1", "gpu", 1, {"data": 1}, "one H200 (141 GB)", peak_flops=_H200),
        Topology("h200-8", "gpu", 8, {"fsdp": 8}, "one 8×H200 host, NVLink", peak_flops=_H200),
        Topology("h200-64", "gpu", 64, {"data": 8, "fsdp": 8}, "8 hosts × 8 H200; data across hosts", 8, _H200),
        Topology("v4-8", "tpu", 4, {"fsdp": 4}, "one v4 host, 4 chips", peak_flops=_V4),
        Topology("v5e-8", "tpu", 8, {"fsdp": 8}, "one v5e host", peak_flops=_V5E),
        Topology("v5e-64", "tpu", 64, {"data": 4, "fsdp": 16}, "64 chips, 16 hosts", 16, _V5E),
        Topology("v5p-128", "tpu", 64, {"data": 4, "fsdp": 16}, "64 chips, 16 hosts", 16, _V5P),
        Topology("v5p-512", "tpu", 256, {"data": 4, "fsdp": 32, "tensor": 2}, "256 chips, 64 hosts", 64, _V5P),
        Topology("v6e-64", "tpu", 64, {"data": 4, "fsdp": 16}, "64 chips, 16 hosts", 16, _V6E),
        Topology("v6e-256", "tpu", 256, {"data": 8, "fsdp": 32}, "256 chips, 64 hosts", 64, _V6E),
    ]
}


def get(name: str) -> Topology:
    if name not in TOPOLOGIES:
        raise UnknownNameError(f"topology {name!r} does not exist; known: {', '.join(TOPOLOGIES)}")
    return TOPOLOGIES[name]
