"""FuxViT's full preset (so400m, 64K-token rows, batch 64) lowered ahead of time on this CPU for an
8xH200 host and a 64-chip TPU slice (issue: "FuxViT's full preset can start"). Reports bytes per
device; the activations need a compile on the target (JAX gives no temporaries for a cross-platform
lowering). About 7 s per mesh: the 27 layers are scanned, so one layer is traced."""

import jax
import jax.numpy as jnp
import pytest

from jaxpapers.core import config
from jaxpapers.core.train.aot import abstract_mesh, lower_train_step
from jaxpapers.fuxvit.config import MAEConfig, encoder_config
from jaxpapers.fuxvit.mae import FuxViTMAE, visible_count
from jaxpapers.fuxvit.train import make_mae_loss_fn, optimizer, pixels_of
from jaxpapers.launch import rules as rules_lib
from jaxpapers.launch import topologies


def full_preset_report(topology: str, strategy: str = "fsdp"):
    cfg = config.load("fuxvit/pretrain:preset=full,variant=so400m")
    enc = encoder_config(cfg)
    model = FuxViTMAE(enc, config.to_dataclass(MAEConfig, cfg.mae))
    p = (cfg.data.size // enc.patch) ** 2
    t = cfg.data.token_budget // p  # tubelet frames per row: the 64K tokens are T x P
    b, frames = cfg.train.batch_size, t * enc.tubelet
    batch = {
        "pixels": jax.ShapeDtypeStruct((b, frames, cfg.data.size, cfg.data.size, 3), jnp.uint8),
        "frame_valid": jax.ShapeDtypeStruct((b, t), jnp.bool_),
        "frame_seg": jax.ShapeDtypeStruct((b, t), jnp.int32),
    }

    def init(key):
        pixels = jnp.zeros((1, frames, cfg.data.size, cfg.data.size, 3), jnp.float32)
        visible = jnp.arange(visible_count(p, model.mae.mask_ratio), dtype=jnp.int32)[None]
        valid, seg = jnp.ones((1, t), bool), jnp.zeros((1, t), jnp.int32)
        return model.init(key, pixels_of({"pixels": pixels}), visible, valid, seg)["params"]

    topo = topologies.get(topology)
    report = lower_train_step(
        init,
        make_mae_loss_fn(model),
        optimizer(cfg),
        batch,
        mesh=abstract_mesh(topo.mesh),
        rules=rules_lib.get("fuxvit", strategy),
        platform={"gpu": "cuda"}.get(topo.platform, topo.platform),
        batch_logical={
            "pixels": ("batch", "frames"),
            "frame_valid": ("batch", "frames"),
            "frame_seg": ("batch", "frames"),
        },
    )
    return cfg, t * p, report


@pytest.mark.parametrize("topology", ["h200-8", "v5e-64"])
def test_the_so400m_64k_train_step_lowers_for_the_target_mesh(topology):
    cfg, tokens, report = full_preset_report(topology)
    topo = topologies.get(topology)
    print(f"\n{topology}: {tokens} tokens per row, batch {cfg.train.batch_size}\n{report.summary()}")
    assert tokens == 65_536
    assert report.num_devices == topo.num_devices
    assert 350e6 < report.param_count < 500e6  # so400m with its MAE decoder
    fsdp = topo.mesh.get("fsdp", 1)
    split = report.param_count * 4 / fsdp
    assert split <= report.param_bytes <= 1.05 * split  # float32 master params, split over fsdp
    assert report.opt_state_bytes >= 2 * report.param_bytes  # AdamW moments
    # uint8 pixels, split over the batch axes (data x fsdp)
    assert report.batch_bytes >= cfg.train.batch_size * (tokens * 14 * 14 * 3 * 2) // topo.num_devices
    # The full preset scans its 27 layers: XLA counts the loop body once, and the report says the
    # FLOPs are a lower bound (unrolled, the step is 2.2 PFLOP, 2.05x 6 N D over the 10 % visible tokens).
    assert report.flops_lower_bound and report.flops > 0
    assert "at least" in report.summary()
