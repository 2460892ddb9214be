"""FuxViT joint image/video masked-autoencoder pretraining (spec "Joint spatiotemporal pretraining").

What is trained: the FuxViT encoder with Frame Selective Attention (reference implementation) and a
light decoder, VideoMAE-style, on rows that pack moving-shape videos and images (scikit-learn digits
and bundled scikit-image samples, resized to the video resolution) as separate segments up to a
token budget counted on the unmasked T·P grid. Tube masking: ρ = 0.9 for mixed/video rows (0.75 may
be set for image-only batches with ``--config.data.mix=images --config.mae.mask_ratio=0.75``). No
claim depends on this run; it shows the full pipeline (packing, tube masking, FSA, shared trainer).

    jaxpapers train --config configs/fuxvit/pretrain.py:preset=tiny --workdir /tmp/fux_tiny   # seconds
    jaxpapers train --config configs/fuxvit/pretrain.py --workdir /tmp/fux_quick              # ~1-2 min, 2 CPUs
    jaxpapers train --config configs/fuxvit/pretrain.py:preset=full,variant=so400m --workdir $W  # accelerator

Presets: ``tiny`` (tests: 2 steps, 256-token rows), ``quick`` (tiny model, 4K-token rows of 256
frames, 60 steps: the MAE loss falls from ≈ 1.0, the variance of normalised pixels, to ≈ 0.6-0.8),
``full`` (variants ``b16`` | ``l14`` | ``so400m`` at 224 px, 16-frame clips, 64K-token rows;
``clip``: so400m with T = 256, P = 256; ``hour``: so400m with T = 1024, P = 64, i.e. 0.5 fps × 1 h at
224 px with 28-px patches standing in for 14-px patches + 2×2 merging). Full presets use the spec's
optimiser (AdamW β = (0.9, 0.95), wd 0.05, lr 1.5e-4·batch/256, warm-up 5 %, cosine, clip 1.0); the
quick preset raises lr to 1e-3 because batch 2 would give lr ≈ 1e-6.

Data (``--config.data.*``, validated by ``jaxpapers.fuxvit.config.PretrainData``):

    source=generated|kinetics|ssv2|imagenet|captions   what the rows pack (default: generated)
    root=/path        the videos (kinetics, ssv2, captions) or class folders (imagenet); required for real sources
    index=train.csv   the Kinetics CSV / SSv2 JSON / caption TSV (relative: under root; default train.csv,
                      train.json, captions.tsv); labels= (SSv2 labels JSON), split= (Kinetics split column)
    fps=None          frames per second sampled from videos (None: every frame); source_fps=30 for frame folders
    size, token_budget, video_frames   frame side (real frames are resized to size × size), tokens per row,
                      tubelet frames per clip; a row packs token_budget / P frames
    worker_count=0, worker_buffer_size=1   grain worker processes that decode, resize and pack batches
    read_threads=1, read_buffer_size=2     grain ReadOptions (threads, prefetched batches per process/worker)

    jaxpapers train --config configs/fuxvit/pretrain.py --workdir $W \
        --config.data.source=kinetics --config.data.root=/data/k400/train --config.data.index=/data/k400/train.csv \
        --config.data.fps=8 --config.data.worker_count=8

A video is a file (PyAV: ``pip install 'jaxpapers[video]'``) or a folder of PNG/JPEG frames named like
the file without its extension. Real records are shuffled with ``seed`` every epoch and repeated;
``num_rows``, ``mix``, ``image_fraction`` and ``images`` apply to the generated rows only.
"""

import dataclasses

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.fuxvit.config import MODEL_SIZES

VARIANTS = ("b16", "l14", "so400m", "clip", "hour")


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg, variants=VARIANTS, default_variant="so400m")
    cfg = ml_collections.ConfigDict()
    cfg.preset, cfg.variant = a.preset, a.variant
    cfg.seed = 0
    cfg.task = "pretrain"
    cfg.rules_family = "fuxvit"
    cfg.strategy = "fsdp"  # launch/rules/fuxvit.py: dp | fsdp | fsdp_tp | fsdp_tp_cp

    size = "tiny" if a.preset != "full" else {"clip": "so400m", "hour": "so400m"}.get(a.variant, a.variant)
    model = MODEL_SIZES[size]()
    cfg.model = ml_collections.ConfigDict(dataclasses.asdict(model))
    cfg.mae = ml_collections.ConfigDict(
        dict(
            decoder_dim=32,
            decoder_depth=4,
            decoder_heads=2,
            decoder_attn_impl="reference",
            mask_ratio=0.9,
            norm_pix_loss=True,
        )
    )
    cfg.data = ml_collections.ConfigDict(
        dict(
            size=32,
            token_budget=4096,
            video_frames=16,
            num_rows=32,
            mix="mixed",
            image_fraction=0.5,
            images=("digits", "bundled"),
            source="generated",
            root="",
            index="",
            labels="",
            split="",
            fps=None,
            source_fps=30.0,
            worker_count=0,
            worker_buffer_size=1,
            read_threads=1,
            read_buffer_size=2,
        )
    )
    cfg.train = ml_collections.ConfigDict(dict(steps=60, batch_size=2, log_every=10, eval_every=None, ckpt_every=60))
    cfg.optim = ml_collections.ConfigDict(
        dict(lr=1e-3, schedule="warmup_cosine", warmup_frac=0.05, b1=0.9, b2=0.95, weight_decay=0.05, clip=1.0)
    )

    if a.preset == "tiny":
        cfg.mae.update(decoder_depth=1)
        cfg.data.update(token_budget=256, video_frames=4, num_rows=4)
        cfg.train.update(steps=2, batch_size=2, log_every=1, ckpt_every=2)
    elif a.preset == "full":
        d = model.dim
        cfg.model.update(remat=True, scan_layers=True, dtype="bfloat16")
        cfg.mae.update(decoder_dim=d // 2, decoder_heads=max(1, d // 128), decoder_attn_impl="reference")
        cfg.data.update(size=224, token_budget=65_536, video_frames=8, num_rows=100_000)
        cfg.data.update(fps=8.0, worker_count=8, worker_buffer_size=1, read_threads=2, read_buffer_size=1)
        if a.variant == "clip":
            cfg.data.update(video_frames=256, image_fraction=0.0, mix="videos")  # P = (224/14)² = 256
        elif a.variant == "hour":
            cfg.model.update(patch=28)  # P = 64 per frame at 224 px
            cfg.data.update(video_frames=1024, image_fraction=0.0, mix="videos")
        batch = 64
        cfg.train.update(steps=100_000, batch_size=batch, log_every=100, ckpt_every=2000)
        cfg.optim.update(lr=1.5e-4 * batch / 256)
    return cfg
