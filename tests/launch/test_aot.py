"""Ahead-of-time lowering (core/train/aot.py) of a train step for meshes this CPU does not have:
exact bytes per device from the shardings, the step's global FLOPs, compiled memory where possible."""

import jax
import jax.numpy as jnp
import pytest

from jaxpapers.core.train import OptimConfig, make_optimizer
from jaxpapers.core.train.aot import abstract_mesh, lower_train_step
from jaxpapers.example.model import TinyLM, TinyLMConfig
from jaxpapers.example.train import make_loss_fn
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.launch import rules as rules_lib
from jaxpapers.launch import topologies

CFG = TinyLMConfig(vocab_size=512, dim=256, depth=2, num_heads=4, mlp_dim=1024)
SEQ, BATCH = 256, 64


def lower(mesh, strategy="fsdp", platform="tpu", cfg=CFG, **kw):
    model = TinyLM(cfg)
    example = jnp.zeros((1, SEQ - 1), jnp.int32)
    batch = {
        "tokens": jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32),
        "loss_mask": jax.ShapeDtypeStruct((BATCH, SEQ - 1), jnp.float32),
    }
    return lower_train_step(
        lambda k: model.init(k, example)["params"],
        make_loss_fn(model),
        make_optimizer(OptimConfig(), 100),
        batch,
        mesh=mesh,
        rules=rules_lib.get("transformer", strategy),
        platform=platform,
        **kw,
    )


@pytest.fixture(scope="module")
def tpu64():
    topo = topologies.get("v5e-64")
    return topo, lower(abstract_mesh(topo.mesh))


def test_a_64_chip_tpu_step_lowers_on_this_cpu_with_exact_bytes_per_device(tpu64):
    topo, report = tpu64
    assert report.num_devices == 64 and report.mesh["data"] * report.mesh["fsdp"] == 64
    replicated = lower(abstract_mesh(topo.mesh), strategy="dp")
    # dp keeps a full copy per device; fsdp splits the parameters with an embed axis (all but ~2 % of the
    # bytes here: RoPE-free norms and biases stay whole) over the 16-way fsdp axis.
    assert replicated.param_bytes == report.param_count * 4
    split = report.param_count * 4 / topo.mesh["fsdp"]
    assert split <= report.param_bytes <= 1.03 * split
    # AdamW keeps two moments per parameter (plus a few scalar counters).
    assert 2 * report.param_bytes <= report.opt_state_bytes <= 2 * report.param_bytes + 64
    # The batch splits over data x fsdp = all 64 devices: (64 x 256 int32 + 64 x 255 f32) / 64.
    assert report.batch_bytes == (SEQ * 4 + (SEQ - 1) * 4)
    assert "mesh data=4 x fsdp=16 (64 devices)" in report.summary()


def test_the_step_flops_are_global_and_match_the_closed_form(tpu64):
    """6 N D for the dense layers (N parameters in matmuls, D tokens) plus causal attention's
    QK^T and AV (2 matmuls, forward + 2x backward), computed over the whole square."""
    _, report = tpu64
    tokens = BATCH * (SEQ - 1)
    dense = 6 * report.param_count * tokens
    attention = 3 * 2 * 2 * CFG.depth * BATCH * (SEQ - 1) ** 2 * CFG.dim
    assert dense <= report.flops <= 1.15 * (dense + attention)
    assert not report.flops_lower_bound  # TinyLM unrolls its layers: no loop in the step


def test_an_8_gpu_host_lowers_for_cuda():
    topo = topologies.get("h200-8")
    report = lower(abstract_mesh(topo.mesh), platform="cuda")
    assert report.num_devices == 8 and report.mesh["fsdp"] == 8
    assert report.param_count * 4 / 8 <= report.param_bytes <= 1.03 * report.param_count * 4 / 8
    assert report.hlo_bytes > 0 and report.compiled is None


def test_compiling_here_on_8_cpu_devices_reports_memory_per_device():
    mesh = mesh_lib.make_mesh({"fsdp": 8}, devices=jax.devices()[:8])
    report = lower(
        mesh, platform="cpu", cfg=TinyLMConfig(vocab_size=64, dim=64, depth=1, mlp_dim=128), compile_here=True
    )
    mem = report.compiled
    assert mem is not None and mem["temporaries"] > 0
    # The compiled step's arguments are exactly the sharded state plus the batch shard (+ the step counter/key).
    assert report.state_bytes + report.batch_bytes <= mem["arguments"] <= report.state_bytes + report.batch_bytes + 64


def test_bytes_per_device_equal_a_real_sharded_init_on_8_cpu_devices():
    """The abstract computation against real arrays: init_state on a concrete fsdp=8 mesh, then the
    bytes of each array's shard on device 0."""
    from jaxpapers.core.train import init_state

    cfg = TinyLMConfig(vocab_size=64, dim=64, depth=1, mlp_dim=128)
    model = TinyLM(cfg)
    mesh = mesh_lib.make_mesh({"fsdp": 8}, devices=jax.devices()[:8])
    init = lambda k: model.init(k, jnp.zeros((1, SEQ - 1), jnp.int32))["params"]  # noqa: E731
    state, _ = init_state(
        init,
        make_optimizer(OptimConfig(), 100),
        jax.random.key(0),
        mesh=mesh,
        rules=rules_lib.get("transformer", "fsdp"),
    )

    def on_device0(tree):
        return sum(x.addressable_shards[0].data.nbytes for x in jax.tree.leaves(tree))

    report = lower(abstract_mesh({"fsdp": 8}), platform="cpu", cfg=cfg)
    assert report.param_bytes == on_device0(state.params)
    assert report.opt_state_bytes == on_device0(state.opt_state)


def test_manual_regions_counts_shard_map_and_nothing_else():
    """A step the compiler partitions has no manual region; a shard_map'd function lowered on the same
    8-device mesh has one per shard_map call (the report of every lowering carries the count)."""
    from jax.sharding import PartitionSpec as P

    from jaxpapers.core.train.aot import manual_regions

    mesh = mesh_lib.make_mesh({"fsdp": 8}, devices=jax.devices()[:8])
    x = jnp.arange(64.0).reshape(8, 8)
    per_shard = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("fsdp"), out_specs=P("fsdp"))
    assert manual_regions(jax.jit(lambda a: a * 2).lower(x).as_text()) == 0
    assert manual_regions(jax.jit(per_shard).lower(x).as_text()) == 1
    assert manual_regions(jax.jit(lambda a: per_shard(per_shard(a))).lower(x).as_text()) == 2
    report = lower(mesh, platform="cpu", cfg=TinyLMConfig(vocab_size=64, dim=64, depth=1, mlp_dim=128))
    assert report.manual_regions == 0  # TinyLM's attention is left to the compiler
