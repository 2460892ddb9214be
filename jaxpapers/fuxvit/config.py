"""FuxViT's typed configs: the model (:class:`FuxViTConfig`, :class:`MAEConfig`, named sizes) and the
experiment groups of ``configs/fuxvit/*.py`` (:class:`ClassifyData`, the F1-F6/F11 shape groups).

Named sizes are constructors here (``FuxViTConfig.tiny()``, ``.b16()``, ``.l14()``, ``.so400m()``);
run presets (tiny/quick/full and data geometry) live in ``configs/fuxvit/``. Models and experiments
never read a ConfigDict field by field: they build these frozen dataclasses with
``core.config.to_dataclass`` (:func:`encoder_config` for ``cfg.model``), and every field is validated
here with one clear error naming the field. This module imports no JAX.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_collections
import ml_dtypes
import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError

FSA_MODES: tuple[str, ...] = ("plain", "gated")
ATTN_IMPLS: tuple[str, ...] = ("reference", "pallas", "dense_causal", "dense_full", "static")
ROUTED_IMPLS: tuple[str, ...] = ("reference", "pallas")  # impls with routing (and, gated, a coarse branch)
ROUTER_POOLS: tuple[str, ...] = ("mean", "mean+max")
DTYPES: tuple[str, ...] = ("float32", "bfloat16")


def _dtype(name: str) -> np.dtype:
    """``float32`` / ``bfloat16`` as a NumPy dtype (the same object ``jnp.dtype`` returns)."""
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def rope_split(head_dim: int) -> tuple[int, int, int]:
    """Channels of the head dim rotated by (time, row, col): d_h = d_w = 2⌊3d/16⌋, d_t = d − 2·d_h.

    Spec "Positions": d = 64 → (16, 24, 24); d = 72 → (20, 26, 26); d = 16 → (4, 6, 6). Every part is
    even because RoPE rotates channel pairs.
    """
    if head_dim % 2 or head_dim < 8:
        raise ConfigError(f"head_dim={head_dim} must be even and ≥ 8 to split into 3-D RoPE channel pairs")
    d_s = 2 * ((3 * head_dim) // 16)
    return head_dim - 2 * d_s, d_s, d_s


@dataclasses.dataclass(frozen=True)
class FuxViTConfig:
    """The encoder (spec "Definitions and method").

    Attributes:
      dim, depth, num_heads, mlp_dim: D, L, H and the MLP hidden width.
      patch, tubelet: spatial patch p and temporal tubelet t_p (a tubelet is t_p × p × p pixels).
      channels: input colour channels.
      k_frames: k, the number of routed history frames per query frame.
      force_first, force_prev: always select the segment's first frame ("sink") / frame i−1
        ("local"), on top of k (our choice, default off).
      fsa_mode: ``plain`` (fine branch only, MoBA-like) or ``gated`` (fine + coarse, NSA-like).
      attn_impl: ``reference`` (pure-JAX FSA), ``pallas`` (the Pallas kernel: Triton on a GPU, Mosaic
        on a TPU, interpret mode on a CPU), ``dense_causal`` (dense frame-causal), ``dense_full``
        (dense bidirectional), ``static`` (own frame only: a per-frame ViT).
      router_pool: frame summaries for routing: ``mean`` or ``mean+max`` (FlashMoBA SNR pitfall).
      share_routing_across_heads: one selection per frame for all heads (logits summed over heads).
      qk_norm: per-head RMSNorm of q and k before RoPE (spec: on, for stability at 64K tokens).
      query_chunk: query frames per ``lax.map`` step of the reference (None: one chunk, no loop).
      dtype, param_dtype: computation and parameter dtypes (``float32`` or ``bfloat16``).
      remat, scan_layers: rematerialise blocks / ``nn.scan`` over layers.
    """

    dim: int = 64
    depth: int = 2
    num_heads: int = 4
    mlp_dim: int = 256
    patch: int = 8
    tubelet: int = 2
    channels: int = 3
    k_frames: int = 2
    force_first: bool = False
    force_prev: bool = False
    fsa_mode: str = "gated"
    attn_impl: str = "reference"
    router_pool: str = "mean"
    share_routing_across_heads: bool = False
    qk_norm: bool = True
    query_chunk: int | None = None
    dtype: str = "float32"
    param_dtype: str = "float32"
    remat: bool = False
    scan_layers: bool = False

    def __post_init__(self):
        for name in ("dim", "depth", "num_heads", "mlp_dim", "patch", "tubelet", "channels"):
            check_range(f"model.{name}", getattr(self, name), 1)
        check_range("model.k_frames", self.k_frames, 0)
        if self.query_chunk is not None:
            check_range("model.query_chunk", self.query_chunk, 1)
        check_choice("model.fsa_mode", self.fsa_mode, FSA_MODES)
        check_choice("model.attn_impl", self.attn_impl, ATTN_IMPLS)
        check_choice("model.router_pool", self.router_pool, ROUTER_POOLS)
        check_choice("model.dtype", self.dtype, DTYPES)
        check_choice("model.param_dtype", self.param_dtype, DTYPES)
        if self.dim % self.num_heads:
            raise ConfigError(f"model.dim={self.dim} is not divisible by model.num_heads={self.num_heads}")
        rope_split(self.head_dim)

    @property
    def head_dim(self) -> int:
        return self.dim // self.num_heads

    @property
    def num_forced(self) -> int:
        return int(self.force_first) + int(self.force_prev)

    @property
    def routed(self) -> bool:
        return self.attn_impl in ROUTED_IMPLS

    @property
    def jnp_dtype(self) -> np.dtype:
        return _dtype(self.dtype)

    @property
    def jnp_param_dtype(self) -> np.dtype:
        return _dtype(self.param_dtype)

    def replace(self, **changes: Any) -> FuxViTConfig:
        return dataclasses.replace(self, **changes)

    # Named model sizes (ViT/SigLIP geometry; the tubelet and k are our choice).
    @classmethod
    def tiny(cls, **kw: Any) -> FuxViTConfig:
        """D=64, L=2, H=4 (d=16), patch 8: unit tests and the quick claims."""
        return cls(**{**dict(dim=64, depth=2, num_heads=4, mlp_dim=256, patch=8), **kw})

    @classmethod
    def b16(cls, **kw: Any) -> FuxViTConfig:
        """ViT-B/16: D=768, L=12, H=12 (d=64)."""
        return cls(**{**dict(dim=768, depth=12, num_heads=12, mlp_dim=3072, patch=16, k_frames=8), **kw})

    @classmethod
    def l14(cls, **kw: Any) -> FuxViTConfig:
        """ViT-L/14: D=1024, L=24, H=16 (d=64)."""
        return cls(**{**dict(dim=1024, depth=24, num_heads=16, mlp_dim=4096, patch=14, k_frames=8), **kw})

    @classmethod
    def so400m(cls, **kw: Any) -> FuxViTConfig:
        """SigLIP so400m/14: D=1152, L=27, H=16 (d=72), MLP 4304."""
        return cls(**{**dict(dim=1152, depth=27, num_heads=16, mlp_dim=4304, patch=14, k_frames=8), **kw})


MODEL_SIZES = {
    "tiny": FuxViTConfig.tiny,
    "b16": FuxViTConfig.b16,
    "l14": FuxViTConfig.l14,
    "so400m": FuxViTConfig.so400m,
}


@dataclasses.dataclass(frozen=True)
class MAEConfig:
    """Masked-autoencoder pretraining head (spec "Joint spatiotemporal pretraining", our choice).

    Attributes:
      decoder_dim, decoder_depth, decoder_heads: the decoder (default width D/2, 4 layers).
      decoder_attn_impl: ``dense_causal`` (tiny/quick) or the encoder's FSA impl at full scale.
      mask_ratio: tube-mask ratio ρ (0.9 for video and mixed rows, 0.75 for image-only batches).
      norm_pix_loss: regress per-patch-normalised pixels (VideoMAE).
    """

    decoder_dim: int = 32
    decoder_depth: int = 4
    decoder_heads: int = 2
    decoder_attn_impl: str = "dense_causal"
    mask_ratio: float = 0.9
    norm_pix_loss: bool = True

    def __post_init__(self):
        check_range("mae.decoder_dim", self.decoder_dim, 1)
        check_range("mae.decoder_depth", self.decoder_depth, 1)
        check_range("mae.decoder_heads", self.decoder_heads, 1)
        check_choice("mae.decoder_attn_impl", self.decoder_attn_impl, ATTN_IMPLS)
        check_range("mae.mask_ratio", self.mask_ratio, 0.0, 1.0, hi_open=True)
        if self.decoder_dim % self.decoder_heads:
            raise ConfigError(
                f"mae.decoder_dim={self.decoder_dim} is not divisible by mae.decoder_heads={self.decoder_heads}"
            )
        rope_split(self.decoder_dim // self.decoder_heads)


def visible_count(tokens_per_frame: int, mask_ratio: float) -> int:
    """P_vis = P − round(ρ·P), at least 1: the static number of visible tokens per frame."""
    return max(1, tokens_per_frame - int(round(mask_ratio * tokens_per_frame)))


def encoder_config(cfg: ml_collections.ConfigDict) -> FuxViTConfig:
    """The encoder config of an experiment or training config (``cfg.model``, every field validated)."""
    return to_dataclass(FuxViTConfig, cfg.model)


# --------------------------------------------------------------------------------------------------
# Experiment groups (configs/fuxvit/*.py)
# --------------------------------------------------------------------------------------------------

DATA_SOURCES: tuple[str, ...] = ("generated", "kinetics", "ssv2", "imagenet", "captions")
VIDEO_SOURCES: tuple[str, ...] = ("kinetics", "ssv2", "captions")
DEFAULT_INDEX: dict[str, str] = {"kinetics": "train.csv", "ssv2": "train.json", "captions": "captions.tsv"}


@dataclasses.dataclass(frozen=True)
class PretrainData:
    """The ``data`` group of ``configs/fuxvit/pretrain.py`` (spec "Data").

    Attributes:
      source: ``generated`` (moving shapes + bundled images, made lazily by index), ``kinetics``
        (CSV ``label,youtube_id,time_start,time_end,split`` + ``{id}_{start:06d}_{end:06d}.mp4``),
        ``ssv2`` (Something-Something v2 JSON list + ``{id}.webm``), ``imagenet`` (``root/<class>/<image>``)
        or ``captions`` (TSV ``video_path<TAB>caption``). A video may be a folder of PNG/JPEG frames
        named like the file without its extension; video files need PyAV (``jaxpapers[video]``).
      root: the folder of the videos / class folders (real sources only; required there).
      index: the CSV/JSON/TSV file (real video sources); a relative path is under ``root``;
        empty means :data:`DEFAULT_INDEX` (``train.csv``, ``train.json``, ``captions.tsv``).
      labels: SSv2 labels JSON (template → id); empty: the sorted templates. split: Kinetics rows
        whose ``split`` column equals it (empty: every row).
      fps: frames per second sampled from real videos (None: every source frame); source_fps: the rate
        assumed for frame folders.
      size: frame side in pixels (real frames are resized to size × size); token_budget: tokens per
        row on the unmasked T·P grid; video_frames: tubelet frames per video clip; num_rows: rows of
        the generated source (real sources repeat their records, reshuffled every epoch).
      mix, image_fraction, images: what the generated source packs (``mixed`` | ``videos`` | ``images``).
      worker_count, worker_buffer_size: grain ``MultiprocessingOptions`` (0: read in the training
        process); read_threads, read_buffer_size: grain ``ReadOptions`` (threads and prefetched batches).
    """

    source: str = "generated"
    root: str = ""
    index: str = ""
    labels: str = ""
    split: str = ""
    fps: float | None = None
    source_fps: float = 30.0
    size: int = 32
    token_budget: int = 4096
    video_frames: int = 16
    num_rows: int = 32
    mix: str = "mixed"
    image_fraction: float = 0.5
    images: tuple[str, ...] = ("digits", "bundled")
    worker_count: int = 0
    worker_buffer_size: int = 1
    read_threads: int = 1
    read_buffer_size: int = 2

    def __post_init__(self):
        check_choice("data.source", self.source, DATA_SOURCES)
        check_choice("data.mix", self.mix, ("mixed", "videos", "images"))
        for name in ("size", "token_budget", "video_frames", "num_rows", "worker_buffer_size"):
            check_range(f"data.{name}", getattr(self, name), 1)
        for name in ("worker_count", "read_threads", "read_buffer_size"):
            check_range(f"data.{name}", getattr(self, name), 0)
        check_range("data.image_fraction", self.image_fraction, 0.0, 1.0)
        check_range("data.source_fps", self.source_fps, 0.0, lo_open=True)
        if self.fps is not None:
            check_range("data.fps", self.fps, 0.0, lo_open=True)
        if self.source != "generated" and not self.root:
            raise ConfigError(
                f"data.root is empty; data.source={self.source!r} needs the folder of its "
                + ("class folders" if self.source == "imagenet" else "videos")
                + " (--config.data.root=/path)"
            )


CLASSIFY_TASKS: tuple[str, ...] = ("needle_frames", "moving_shapes")
POOLS: tuple[str, ...] = ("all", "last_frame")


@dataclasses.dataclass(frozen=True)
class ClassifyData:
    """The ``data`` group of the classification tasks (F7 needle, F8 motion).

    Attributes:
      task: ``needle_frames`` or ``moving_shapes``.
      frames, tubelet, size, patch: tubelet frames T, raw frames per tubelet, pixels, patch size.
      style: the needle marker (``tile`` or ``glyph``; needle task only).
      num_classes, pool: classes and the token pooling of the classifier head (``all`` | ``last_frame``).
      num_train, num_eval: training clips and held-out clips (the held-out seed is ``seed + 1``).
      min_speed, radius: moving shapes: px per frame and the (min, max) shape radius.
      position_channels: moving shapes: add x and y ramps drawn only inside the shape (5 channels).
    """

    task: str = "moving_shapes"
    frames: int = 8
    tubelet: int = 1
    size: int = 32
    patch: int = 8
    style: str = "tile"
    num_classes: int = 4
    pool: str = "all"
    num_train: int = 2048
    num_eval: int = 256
    min_speed: float = 3.0
    radius: tuple[int, int] = (3, 5)
    position_channels: bool = False

    def __post_init__(self):
        check_choice("data.task", self.task, CLASSIFY_TASKS)
        check_choice("data.pool", self.pool, POOLS)
        check_choice("data.style", self.style, ("tile", "glyph"))
        for name in ("frames", "tubelet", "size", "patch", "num_train", "num_eval"):
            check_range(f"data.{name}", getattr(self, name), 1)
        check_range("data.num_classes", self.num_classes, 2)
        if len(self.radius) != 2 or not 1 <= self.radius[0] <= self.radius[1]:
            raise ConfigError(f"data.radius={tuple(self.radius)} must be (lo, hi) with 1 ≤ lo ≤ hi")
        if self.position_channels and self.task != "moving_shapes":
            raise ConfigError("data.position_channels applies to task='moving_shapes' only")

    @property
    def channels(self) -> int:
        return 5 if self.position_channels else 3


def classify_data(**fields: Any) -> dict[str, Any]:
    """The ``data`` group of a classification config as a plain dict (validated), for
    ``ml_collections.ConfigDict(classify_data(task=..., ...))`` in ``configs/fuxvit/*.py``."""
    return dataclasses.asdict(ClassifyData(**fields))


@dataclasses.dataclass(frozen=True)
class AttentionShapes:
    """Random q, k, v [batch, frames·tokens_per_frame, heads, head_dim] (F1 ``exactness``, F4 ``inert``).

    ``chunk``: query frames per ``lax.map`` step of the reference (F1); ``k``: routed frames (F4).
    """

    batch: int = 1
    heads: int = 2
    frames: int = 8
    tokens_per_frame: int = 16
    head_dim: int = 16
    chunk: int | None = None
    k: int = 2

    def __post_init__(self):
        for name in ("batch", "heads", "frames", "tokens_per_frame", "head_dim"):
            check_range(f"{name}", getattr(self, name), 1)
        check_range("k", self.k, 0)
        if self.chunk is not None:
            check_range("chunk", self.chunk, 1)


@dataclasses.dataclass(frozen=True)
class ImageCheck:
    """F2 ``image``: ``num_images`` bundled images of ``size`` pixels (T = 1)."""

    num_images: int = 3
    size: int = 32

    def __post_init__(self):
        check_range("image.num_images", self.num_images, 1)
        check_range("image.size", self.size, 1)


@dataclasses.dataclass(frozen=True)
class StreamingCheck:
    """F3 ``streaming``: clips of ``frames`` tubelet frames of ``size`` px, streamed ``chunk`` frames at a time."""

    batch: int = 1
    frames: int = 8
    size: int = 32
    chunk: int = 2

    def __post_init__(self):
        check_range("streaming.frames", self.frames, 2)
        for name in ("batch", "size", "chunk"):
            check_range(f"streaming.{name}", getattr(self, name), 1)


@dataclasses.dataclass(frozen=True)
class ScalingSweep:
    """F6/F11 ``scaling``: one attention layer compiled for every T in ``frames`` at fixed P and k."""

    frames: tuple[int, ...] = (8, 16, 32, 64, 128)
    tokens_per_frame: int = 16
    k: int = 2
    batch: int = 1
    heads: int = 2
    head_dim: int = 32

    def __post_init__(self):
        if len(self.frames) < 2 or any(t < 1 for t in self.frames):
            raise ConfigError(f"scaling.frames={tuple(self.frames)} needs at least two positive frame counts")
        for name in ("tokens_per_frame", "batch", "heads", "head_dim"):
            check_range(f"scaling.{name}", getattr(self, name), 1)
        check_range("scaling.k", self.k, 0)
