"""FuxViT claim F9: one training step sharded over 8 devices equals the single-device step.

What is reproduced: the tiny FuxViT MAE (reference FSA, gated) takes one AdamW step through the
shared trainer (``core.train.init_state``/``make_train_step``, jitted as ``fit`` does) on one device and on a
(data 2, fsdp 2, sequence 2) mesh from ``launch.mesh.make_mesh`` with the ``fsdp_tp_cp`` rules of
``launch/rules/fuxvit.py`` (``cfg.rules``; frames split over ``sequence``, where the encoder's FSA layers run
under ``shard_map``: ``kernels/fsa/context_parallel.py``). The batch packs a video with images, so segments
and padding are exercised. On a CPU the 8 devices are emulated in a subprocess that sets the device count
before JAX starts.

    jaxpapers verify fuxvit/F9                 # quick: ~20 s on 2 CPU cores
    jaxpapers verify fuxvit/F9 --preset full   # the same step on 8 real GPU/TPU devices (needs 8 devices)

Expected: loss, gradients and updated params agree to float32 rounding (~1e-7 relative, in global
norm: Adam's first step is ≈ lr·sign(g), so element-wise comparison would flip on near-zero
gradients). Presets: ``tiny``/``quick`` (tiny model, T = 8, batch 4), ``full`` (the same on 8 devices).
"""

import dataclasses

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.fuxvit.config import FuxViTConfig


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.task = "pretrain"
    cfg.rules_family = "fuxvit"
    cfg.strategy = "fsdp_tp_cp"
    # The logical-axis rule table the F9 step is sharded with: launch/rules/fuxvit.py's `fsdp_tp_cp`,
    # written out because claims never import launch (tests/fuxvit/test_sharding.py checks that the
    # two are equal). Frames go to `sequence`, params' EMBED to `fsdp`, MLP and HEADS to `tensor`.
    cfg.rules = (
        ("batch", ("data", "fsdp")),
        ("frames", "sequence"),
        ("length", None),
        ("embed", "fsdp"),
        ("mlp", "tensor"),
        ("heads", "tensor"),
        ("kv", None),
        ("vocab", None),
        ("layers", None),
        ("patch", None),
    )
    cfg.mesh = ml_collections.ConfigDict({"data": 2, "fsdp": 2, "sequence": 2})
    cfg.num_devices = 8
    cfg.emulate_devices = True  # run in a subprocess with 8 emulated CPU devices (False: use real devices)
    cfg.model = ml_collections.ConfigDict(dataclasses.asdict(FuxViTConfig.tiny(k_frames=2)))
    cfg.mae = ml_collections.ConfigDict(
        dict(
            decoder_dim=32,
            decoder_depth=1,
            decoder_heads=2,
            decoder_attn_impl="dense_causal",
            mask_ratio=0.9,
            norm_pix_loss=True,
        )
    )
    # Rows of 8 frames × 16 tokens: one 4-frame video and 4 images each (packing with segments).
    cfg.data = ml_collections.ConfigDict(
        dict(size=32, token_budget=128, video_frames=4, num_rows=4, mix="mixed", image_fraction=0.5, images=("digits",))
    )
    cfg.train = ml_collections.ConfigDict(dict(steps=1, batch_size=4, log_every=1, eval_every=None, ckpt_every=1))
    cfg.optim = ml_collections.ConfigDict(
        dict(lr=1e-3, schedule="warmup_cosine", warmup_frac=0.05, b1=0.9, b2=0.95, weight_decay=0.05, clip=1.0)
    )
    if a.preset == "full":
        cfg.emulate_devices = False
    return cfg
