"""Mesh construction and multi-host detection."""

import jax
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.launch import topologies


def test_mesh_has_all_axes_in_order_with_auto_types():
    mesh = mesh_lib.make_mesh({"fsdp": 2, "tensor": 2, "data": -1})
    assert mesh.axis_names == ("data", "fsdp", "tensor", "sequence")
    assert dict(mesh.shape) == {"data": 2, "fsdp": 2, "tensor": 2, "sequence": 1}
    assert all(t == jax.sharding.AxisType.Auto for t in mesh.axis_types)
    assert mesh_lib.make_mesh().shape["data"] == jax.device_count()


@pytest.mark.parametrize(
    ("sizes", "pattern"),
    [
        (
            {"data": 2, "fsdp": 2, "tensor": 4},
            r"mesh \{data: 2, fsdp: 2, tensor: 4, sequence: 1\} needs 16 devices, but 8 are available",
        ),
        ({"data": -1, "fsdp": -1}, "at most one mesh axis may be -1"),
        ({"data": -1, "fsdp": 3}, "8 devices are not divisible by 3"),
        ({"model": 8}, "mesh axis 'model' is unknown; mesh axes are 'data', 'fsdp', 'tensor' or 'sequence'"),
        ({"data": 0}, "must be a positive size or -1"),
    ],
)
def test_bad_meshes_fail_clearly(sizes, pattern):
    with pytest.raises(ConfigError, match=pattern):
        mesh_lib.make_mesh(sizes)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, False),
        ({"SLURM_NTASKS": "1"}, False),
        ({"SLURM_NTASKS": "16"}, True),
        ({"OMPI_COMM_WORLD_SIZE": "4"}, True),
        ({"JAX_COORDINATOR_ADDRESS": "10.0.0.1:1234"}, True),
        ({"TPU_WORKER_HOSTNAMES": "localhost"}, False),
        ({"TPU_WORKER_HOSTNAMES": "t1,t2,t3,t4"}, True),
    ],
)
def test_multiprocess_launcher_detection(env, expected):
    assert mesh_lib.under_multiprocess_launcher(env) is expected
    if not expected:
        assert mesh_lib.initialize_distributed(env) is False  # a no-op on one process


def test_topologies_resolve_to_valid_meshes():
    for topo in topologies.TOPOLOGIES.values():
        sizes = mesh_lib.resolve_axis_sizes(topo.mesh, topo.num_devices)
        assert sizes.keys() == {"data", "fsdp", "tensor", "sequence"}
    with pytest.raises(Exception, match="topology 'v9-1' does not exist"):
        topologies.get("v9-1")


def test_the_topology_decides_the_mesh_unless_the_command_line_overrides_it():
    """The README's scaling command on 8 (fake) devices: h200-8 gives its FSDP mesh; --config.mesh.* wins."""
    import jax

    from jaxpapers.launch import train

    assert jax.device_count() == 8
    readme_args = ["--config.strategy=fsdp_tp", "--config.mesh.fsdp=4", "--config.mesh.tensor=2"]
    sizes, rest = train.split_mesh_overrides(readme_args)
    assert sizes == {"fsdp": 4, "tensor": 2} and rest == ["--config.strategy=fsdp_tp"]
    shape = lambda m: {k: v for k, v in m.shape.items() if v > 1}  # noqa: E731
    assert shape(train.build_mesh("h200-8")) == {"fsdp": 8}
    assert shape(train.build_mesh("h200-8", sizes)) == {"fsdp": 4, "tensor": 2}
    assert shape(train.build_mesh(None)) == {"data": 8}
    with pytest.raises(ConfigError, match="must be an integer"):
        train.split_mesh_overrides(["--config.mesh.fsdp=four"])
    with pytest.raises(ConfigError, match="expects 64 devices, found 8"):
        train.build_mesh("h200-64")
