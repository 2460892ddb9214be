"""Context-parallel FSA inside the model (``kernels/fsa/context_parallel.py`` wired into ``FSAttention``).

On the 8 CPU devices conftest provides: the model switches to ``shard_map`` exactly when the active
mesh context splits FRAMES over a mesh axis of size > 1, and then gives the single-device tokens,
selections and gradients (the single-device model is the independent reference: it runs the
plain routing and fine/coarse branches of ``attention.py``, checked against NumPy in test_reference.py).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AbstractMesh

from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train.aot import manual_regions
from jaxpapers.fuxvit.config import FuxViTConfig
from jaxpapers.fuxvit.experiments.exactness import rel_error
from jaxpapers.fuxvit.kernels.fsa import context_parallel
from jaxpapers.fuxvit.model import FuxViT
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.launch import rules as rules_lib

CP_MESH = {"fsdp": 2, "tensor": 2, "sequence": 2}


def _abstract(sizes):
    names = ("data", "fsdp", "tensor", "sequence")
    return AbstractMesh(tuple(sizes.get(n, 1) for n in names), names)


def test_context_layout_follows_the_mesh_and_the_rules():
    cp = rules_lib.get("fuxvit", "fsdp_tp_cp")
    assert context_parallel.context_layout() is None  # no mesh context
    layout = context_parallel.context_layout(_abstract(CP_MESH), cp)
    assert (layout.sequence, layout.batch, layout.heads) == ("sequence", ("data", "fsdp"), "tensor")
    assert context_parallel.context_layout(_abstract({"fsdp": 8}), cp) is None  # sequence axis of size 1
    for strategy in ("dp", "fsdp", "fsdp_tp"):
        assert context_parallel.context_layout(_abstract(CP_MESH), rules_lib.get("fuxvit", strategy)) is None
    with sharding_lib.mesh_context(mesh_lib.make_mesh(CP_MESH), cp):  # what the model reads at trace time
        assert context_parallel.context_layout().sequence == "sequence"
    two_axes = tuple((n, ("sequence", "tensor") if n == "frames" else a) for n, a in cp)
    with pytest.raises(ConfigError, match="context parallelism takes one mesh axis"):
        context_parallel.context_layout(_abstract(CP_MESH), two_axes)


def _case(cfg):
    model = FuxViT(cfg)
    pixels = jax.random.uniform(jax.random.key(1), (4, 16, 16, 16, 3))  # T = 8 frames of 4 tokens
    seg = jnp.asarray([[0] * 5 + [1] * 3] * 2 + [[0] * 8] * 2, jnp.int32)  # packed rows
    valid = jnp.asarray([[True] * 8] * 3 + [[True] * 7 + [False]])  # and a padding frame
    params = model.init(jax.random.key(0), pixels, valid, seg)
    w = jax.random.normal(jax.random.key(2), (4, 8, 4, cfg.dim))

    def loss(p, x):
        out = model.apply(p, x, valid, seg)
        return jnp.sum(out["tokens"] * w), out

    return jax.value_and_grad(loss, argnums=(0, 1), has_aux=True), params, pixels


def _run(fn, params, pixels, mesh, rules):
    with sharding_lib.mesh_context(mesh, rules):
        # A fresh function object per rule table: jit's trace cache does not see Linen's rule context.
        lowered = jax.jit(lambda p, x: fn(p, x)).lower(params, pixels)
        (_, out), grads = lowered.compile()(params, pixels)
    return jax.device_get(out), jax.device_get(grads), manual_regions(lowered.as_text())


@pytest.mark.slow
@pytest.mark.parametrize(
    "model_kw",
    [
        dict(fsa_mode="gated"),
        dict(fsa_mode="plain", force_first=True, share_routing_across_heads=True, query_chunk=2),
    ],
    ids=["gated", "plain-shared-chunked"],
)
def test_model_under_context_parallel_equals_single_device(model_kw):
    """FuxViT (1 layer, k = 2) with frames over sequence=2, heads over tensor=2, batch over fsdp=2: the
    same selections, tokens and gradients (params and pixels) as one device, through shard_map; the
    rule tables without FRAMES compile no manual region."""
    cfg = FuxViTConfig.tiny(depth=1, k_frames=2, patch=8, **model_kw)
    fn, params, pixels = _case(cfg)
    out1, g1, regions1 = _run(fn, params, pixels, None, None)
    mesh = mesh_lib.make_mesh(CP_MESH)
    out8, g8, regions8 = _run(fn, params, pixels, mesh, rules_lib.get("fuxvit", "fsdp_tp_cp"))
    assert regions1 == 0 and regions8 >= 1  # the context-parallel path ran
    np.testing.assert_array_equal(out8["sel"], out1["sel"])
    np.testing.assert_allclose(out8["tokens"], out1["tokens"], atol=2e-5)
    assert rel_error(g8, g1) <= 1e-5
    with sharding_lib.mesh_context(mesh, rules_lib.get("fuxvit", "fsdp_tp")):
        assert manual_regions(jax.jit(lambda p, x: fn(p, x)).lower(params, pixels).as_text()) == 0


# The so400m 64K-token train step ahead of time: (topology, mesh with a sequence axis, global batch).
AOT_CASES = [("h200-8", {"fsdp": 4, "sequence": 2}, 4), ("v5p-128", {"fsdp": 16, "sequence": 4}, 16)]


@pytest.mark.slow
@pytest.mark.parametrize("topology,mesh,batch", AOT_CASES, ids=[c[0] for c in AOT_CASES])
def test_so400m_64k_train_step_compiles_ahead_of_time_with_context_parallelism(topology, mesh, batch):
    """so400m (414M params), 256 frames × 256 tokens per row, bf16, remat, scanned layers, AdamW, with
    the fsdp_tp_cp rules on the topology's device count (8 or 64 emulated CPU devices; ~2 min each on
    2 loaded cores, < 1 GB RAM): the program goes through shard_map, and XLA's per-device arguments are
    the fp32 params + two Adam moments split over fsdp plus one row of uint8 pixels (closed form, 2 %).
    Temp bytes are XLA:CPU's buffer assignment, reported in the README, not judged."""
    from jaxpapers.core.multidevice import run_with_devices
    from jaxpapers.launch import topologies

    devices = topologies.get(topology).num_devices
    assert math.prod(mesh.values()) == devices
    kwargs = dict(mesh=mesh, rules=rules_lib.get("fuxvit", "fsdp_tp_cp"), batch_size=batch)
    res = run_with_devices("jaxpapers.fuxvit.sharded:aot_train_step", num_devices=devices, kwargs=kwargs)
    print(topology, res)
    assert res["tokens_per_row"] == 65536 and res["manual_regions"] >= 1
    rows_per_device = batch // (mesh["fsdp"] * mesh.get("data", 1))
    expected = 12 * res["param_count"] / mesh["fsdp"] + rows_per_device * 512 * 224 * 224 * 3
    assert abs(res["compiled"]["arguments"] / expected - 1) < 0.02, (res, expected)
    # the shared report's own accounting: fp32 params + two moments, and the batch shard
    assert res["param_bytes"] * 3 <= res["param_bytes"] + res["opt_state_bytes"] <= res["param_bytes"] * 3.01
