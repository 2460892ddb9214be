"""UniALM language model, claims U6, U7 and U9 of "UniAudio 2.0" (arXiv 2602.04683), toy scale.

U6 text behaviour is untouched by the experts (bit-identical text logits, zero expert gradients, the
understanding expert blind to text), U7 the four-stage recipe, sequence construction and CFG drop, U9 the
paper-shaped model's parameter count, sharding rules and one executed 8-device step.

    jaxpapers verify unialm                          # quick (U6, U7 seconds; U9 ≈ 45 CPU-s, subprocess)
    jaxpapers verify unialm --preset tiny            # smaller toy model, 2 + 2 + 1 layer sharded step
    jaxpapers verify unialm --preset full            # U9 full (paper config on one accelerator) is not built yet

Expected quick numbers: U6 all three maxima exactly 0; U7 frozen leaves changed 0, insertion difference 0,
mask mismatches 0, CFG drop rate 0.1 ± 0.012; U9 count difference 0, no violation, sharded/single-device
differences ≈ 1e-7.
"""

import dataclasses

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.unialm.config import UniALMConfig

_BATCH = ("batch", ("data", "fsdp"))
# launch/rules/unialm.py's tables, written out because claims never import launch (tests check equality).
RULES = {
    "dp": (_BATCH, ("length", None), ("frames", None), ("embed", None), ("mlp", None), ("heads", None),
           ("kv", None), ("vocab", None), ("layers", None), ("patch", None)),
    "fsdp": (_BATCH, ("length", None), ("frames", None), ("embed", "fsdp"), ("mlp", None), ("heads", None),
             ("kv", None), ("vocab", None), ("layers", None), ("patch", None)),
    "fsdp_tp": (_BATCH, ("length", None), ("frames", None), ("embed", "fsdp"), ("mlp", "tensor"),
                ("heads", "tensor"), ("kv", None), ("vocab", "tensor"), ("layers", None), ("patch", None)),
    "fsdp_tp_cp": (_BATCH, ("length", "sequence"), ("frames", None), ("embed", "fsdp"), ("mlp", "tensor"),
                   ("heads", "tensor"), ("kv", None), ("vocab", "tensor"), ("layers", None), ("patch", None)),
}  # fmt: skip
MESHES = ({"fsdp": 8}, {"fsdp": 4, "tensor": 2}, {"data": 2, "fsdp": 2, "tensor": 2})

# U9(c): the paper topology (3 + 28 + 2 layers, depth 4, Q = 8, scanned, remat) at d 128, text vocabulary 4,096,
# K_a = K_r = 256 (spec table). GQA 2:1 in both stacks, so heads and KV groups split over tensor 2.
SHARDED_MODEL = UniALMConfig.paper(
    dim=128, num_heads=16, num_kv_heads=8, mlp_dim=256, text_vocab=4096, analysis_codes=256, recon_codes=256,
    depth_dim=64, depth_heads=8, depth_kv_heads=4, depth_mlp_dim=128, remat=True,
)  # fmt: skip


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.cache_dir = ""  # unused here (nothing is cached on disk); accepted like every unialm config's
    cfg.model = ml_collections.ConfigDict(dataclasses.asdict(UniALMConfig()))  # the toy UniALM (d 64)
    cfg.u6 = ml_collections.ConfigDict(dict(seeds=3, length=32))
    # U7: 4 AdamW steps per stage (lr 3e-3, weight decay 0.05: a frozen leaf that moved would show it),
    # batch 4 × 40 frames, stage 4 packs 2 examples per sequence; CFG drop over 10k generation examples.
    cfg.u7 = ml_collections.ConfigDict(
        dict(steps=4, batch_size=4, length=40, packed=2, lr=3e-3, weight_decay=0.05, cfg_examples=10_000, cfg_p=0.1)
    )
    cfg.u9 = ml_collections.ConfigDict()
    cfg.u9.rules = ml_collections.ConfigDict({k: list(v) for k, v in RULES.items()})
    cfg.u9.meshes = [dict(m) for m in MESHES]
    cfg.u9.strategy = "fsdp_tp"
    cfg.u9.mesh = ml_collections.ConfigDict({"data": 2, "fsdp": 2, "tensor": 2})
    cfg.u9.num_devices = 8
    cfg.u9.model = ml_collections.ConfigDict(dataclasses.asdict(SHARDED_MODEL))
    cfg.u9.batch_size = 4
    cfg.u9.length = 64
    cfg.u9.lr = 1e-3
    cfg.u9.timeout_s = 600

    if a.preset == "tiny":
        cfg.model.update(dim=32, mlp_dim=64, text_vocab=128, analysis_codes=16, recon_codes=16, depth_dim=16,
                         depth_layers=1, depth_mlp_dim=32)  # fmt: skip
        cfg.u6.update(seeds=2, length=12)
        cfg.u7.update(steps=2, batch_size=2, cfg_examples=2_000)
        cfg.u9.model.update(backbone_layers=2, understanding_layers=1, generation_layers=1, depth_layers=1)
        cfg.u9.update(batch_size=4, length=40)
    return cfg
