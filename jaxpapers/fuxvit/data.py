"""Data for FuxViT: synthetic video tasks, bundled images, packing, as grain sources (spec "Data").

Everything is generated with vectorised, seeded numpy (one broadcast over clips × frames × pixels
per shape slot; no Python loop per pixel or per clip). Clips are uint8 [n, frames, size, size, 3];
models take float pixels in [0, 1] (``to_float``).

* ``moving_shapes``: circles, squares and triangles in 6 colours on textured static backgrounds,
  moving with constant velocity in one of 4 directions (optionally position-coded: x, y ramps drawn
  inside the shape as channels 4-5). The start is uniform over the positions that
  keep the whole path inside the frame, so the *set* of frames carries no direction, only their order.
* ``needle_frames``: low-contrast distractor frames; one earlier frame holds a high-contrast marker
  (8 classes) on a patch-aligned tile; the last frame holds a query glyph. Label = marker class.
* ``scene_cuts``: piecewise-constant backgrounds with random cuts (routing diagnostics).
* images: scikit-learn ``digits`` and the scikit-image samples that ship inside the wheel.
* ``pack_clips``: images (one frame, own segment) and videos packed into rows of T frames.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jaxtyping import UInt8

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ClaimSkipped, ConfigError

COLOURS = np.array(  # 6 shape colours
    [[0.9, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.2, 0.9], [0.9, 0.9, 0.1], [0.8, 0.1, 0.8], [0.1, 0.8, 0.8]],
    np.float32,
)
MARKER_COLOURS = np.array(  # 8 high-contrast needle classes
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 0]], np.float32
)
DIRECTIONS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], np.float32)  # (dx, dy): right, left, down, up
SHAPES = ("circle", "square", "triangle")
# scikit-image samples stored inside the wheel (newer ones such as `kidney` or `lily` download on first
# use and fail offline).
BUNDLED_IMAGES = (
    "astronaut", "camera", "coffee", "chelsea", "rocket", "horse", "cat", "coins", "moon", "clock",
    "colorwheel", "immunohistochemistry", "brick", "grass", "gravel",
)  # fmt: skip


def to_float(video: np.ndarray) -> np.ndarray:
    """uint8 → float32 in [0, 1]."""
    return np.asarray(video, np.float32) / 255.0


def _to_uint8(x: np.ndarray) -> np.ndarray:
    """[0, 1] floats → uint8 (rounded), in place where possible."""
    x = np.asarray(x, np.float32)
    x = np.clip(x, 0.0, 1.0, out=x if x.flags.writeable and x.base is None else None)
    x *= 255.0
    x += 0.5
    return x.astype(np.uint8)


def _texture(rng: np.random.Generator, n: int, size: int, amplitude: float) -> np.ndarray:
    """Static textured backgrounds [n, size, size, 3]: grey base + two random gratings + fine noise."""
    yy, xx = np.meshgrid(np.arange(size, dtype=np.float32), np.arange(size, dtype=np.float32), indexing="ij")
    freq = rng.uniform(0.1, 0.6, (n, 2, 2)).astype(np.float32)
    phase = rng.uniform(0, 2 * np.pi, (n, 2)).astype(np.float32)
    waves = np.sin(freq[:, :, 0, None, None] * xx + freq[:, :, 1, None, None] * yy + phase[:, :, None, None]).sum(1)
    base = rng.uniform(0.3, 0.6, (n, 1, 1, 3)).astype(np.float32)
    tint = rng.uniform(0.5, 1.0, (n, 1, 1, 3)).astype(np.float32)
    noise = rng.uniform(-1, 1, (n, size, size, 1)).astype(np.float32)
    return (base + amplitude * (0.4 * waves[..., None] * tint + 0.2 * noise)).astype(np.float32)


def _shape_mask(kind: np.ndarray, dx: np.ndarray, dy: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Inside-shape mask for offsets (dx, dy) from the centre; ``kind`` 0 circle, 1 square, 2 triangle."""
    circle = dx**2 + dy**2 <= r**2
    square = np.maximum(np.abs(dx), np.abs(dy)) <= r
    triangle = (dy <= r) & (dy >= -r) & (np.abs(dx) <= (dy + r) / 2)
    return np.where(kind == 0, circle, np.where(kind == 1, square, triangle))


def moving_shapes(
    n: int,
    *,
    frames: int = 8,
    size: int = 32,
    max_shapes: int = 1,
    min_speed: float = 3.0,
    radius: tuple[int, int] = (3, 5),
    texture: float = 0.15,
    position_channels: bool = False,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Clips of shapes moving with constant velocity in one of 4 directions.

    With ``position_channels`` the clips have 5 channels: RGB, then x/(size−1) and y/(size−1) of each
    pixel drawn only inside the shape (0 outside), so a token states where the shape is; the set of
    frames still carries no direction. Returns ``video`` uint8 [n, frames, size, size, 3 or 5],
    ``direction`` (0 right, 1 left, 2 down, 3 up), ``count`` (shapes in the clip) and ``colour`` (of
    the first shape), int32 [n]. Every shape of a clip
    moves in the clip's direction at ≥ ``min_speed`` px/frame (3 px at 32 px keeps motion visible at
    patch 8); its start is uniform over the range that keeps the whole path inside the frame.
    """
    check_range("n", n, 1)
    check_range("frames", frames, 1)
    check_range("max_shapes", max_shapes, 1)
    r_lo, r_hi = radius
    check_range("radius[0]", r_lo, 1)
    travel_max = size - 2 * r_hi - 1
    if frames > 1 and min_speed * (frames - 1) > travel_max:
        raise ConfigError(
            f"min_speed={min_speed} px/frame over {frames} frames does not fit a {size}px frame with radius ≤ {r_hi}; "
            f"allowed min_speed ≤ {travel_max / (frames - 1):.3g}"
        )
    rng = np.random.default_rng(seed)
    s = max_shapes
    direction = rng.integers(0, 4, n)
    count = rng.integers(1, s + 1, n)
    kind = rng.integers(0, 3, (n, s))
    colour = rng.integers(0, 6, (n, s))
    r = rng.integers(r_lo, r_hi + 1, (n, s)).astype(np.float32)
    speed_max = (size - 2 * r - 1) / max(frames - 1, 1)
    speed = rng.uniform(min_speed, np.maximum(speed_max, min_speed)) if frames > 1 else np.zeros((n, s))
    travel = speed * (frames - 1)
    d = DIRECTIONS[direction][:, None, :]  # [n, 1, 2]
    # Along the motion axis the start leaves room for the whole path; across it, anywhere inside.
    lo = r[..., None] + np.where(d < 0, travel[..., None], 0.0)
    hi = (size - 1 - r)[..., None] - np.where(d > 0, travel[..., None], 0.0)
    start = (lo + rng.uniform(0, 1, (n, s, 2)) * (hi - lo)).astype(np.float32)  # [n, s, 2] (x, y)
    t = np.arange(frames, dtype=np.float32)
    velocity = (d * speed[..., None]).astype(np.float32)  # [n, s, 2]
    centre = start[:, :, None, :] + velocity[:, :, None, :] * t[None, None, :, None]  # [n, s, F, 2]
    video = np.broadcast_to(_texture(rng, n, size, texture)[:, None], (n, frames, size, size, 3)).copy()
    yy, xx = np.meshgrid(np.arange(size, dtype=np.float32), np.arange(size, dtype=np.float32), indexing="ij")
    if position_channels:
        ramps = np.stack([xx, yy], axis=-1) / max(size - 1, 1)  # [size, size, 2]
        video = np.concatenate([video, np.zeros((*video.shape[:-1], 2), np.float32)], axis=-1)
        colours = np.concatenate(
            [
                np.broadcast_to(COLOURS[:, None, None, :], (len(COLOURS), size, size, 3)),
                np.broadcast_to(ramps, (len(COLOURS), size, size, 2)),
            ],
            axis=-1,
        )  # [6, S, S, 5]
    else:
        colours = np.broadcast_to(COLOURS[:, None, None, :], (len(COLOURS), 1, 1, 3))
    for i in range(s):  # shape slots: a handful, each vectorised over clips × frames × pixels
        dx = xx[None, None] - centre[:, i, :, 0, None, None]
        dy = yy[None, None] - centre[:, i, :, 1, None, None]
        inside = _shape_mask(kind[:, i, None, None, None], dx, dy, r[:, i, None, None, None])
        inside &= (i < count)[:, None, None, None]
        video = np.where(inside[..., None], colours[colour[:, i]][:, None], video)
    return {
        "video": _to_uint8(video),
        "direction": direction.astype(np.int32),
        "count": count.astype(np.int32),
        "colour": colour[:, 0].astype(np.int32),
    }


def needle_frames(
    n: int,
    *,
    frames: int = 8,
    tubelet: int = 2,
    size: int = 32,
    patch: int = 8,
    num_classes: int = 8,
    style: str = "tile",
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """The needle task: read a marker shown in one random earlier frame from the last frame.

    ``frames`` tubelet frames (each repeated over ``tubelet`` raw frames, so the marker stays for
    both raw frames of its tubelet). Frames 0..T−2 hold low-contrast distractor shapes; frame
    ``needle_frame`` ∈ [0, T−2] also holds the marker: with ``style="tile"`` (quick) a whole
    patch-aligned tile in one of 8 high-contrast colours, with ``style="glyph"`` (full) a 6×6 glyph
    at a free position. The last frame holds a black/white checker "query" tile. Returns ``video``
    uint8 [n, tubelet·T, size, size, 3], ``label`` (marker class) and ``needle_frame`` int32 [n].
    """
    check_range("frames", frames, 2)
    check_range("num_classes", num_classes, 2, len(MARKER_COLOURS))
    check_choice("style", style, ("tile", "glyph"))
    if size % patch:
        raise ConfigError(f"size={size} is not divisible by patch={patch}")
    rng = np.random.default_rng(seed)
    label = rng.integers(0, num_classes, n)
    needle = rng.integers(0, frames - 1, n)
    tiles = size // patch
    yy, xx = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    # Low-contrast distractors: grey base, fine noise and two faint random squares per frame.
    video = (0.5 + 0.04 * rng.uniform(-1, 1, (n, frames, size, size))).astype(np.float32)
    for _ in range(2):
        c = rng.uniform(0, size, (n, frames, 2)).astype(np.float32)
        half = rng.uniform(2, 5, (n, frames)).astype(np.float32)
        inside = (np.abs(xx - c[..., 0, None, None]) <= half[..., None, None]) & (
            np.abs(yy - c[..., 1, None, None]) <= half[..., None, None]
        )
        video += inside * rng.uniform(-0.1, 0.1, (n, frames, 1, 1)).astype(np.float32)
    video = np.repeat(video[..., None], 3, axis=-1)
    frame_idx = np.arange(frames)
    if style == "tile":
        ty, tx = rng.integers(0, tiles, n), rng.integers(0, tiles, n)
        in_tile = ((yy // patch) == ty[:, None, None]) & ((xx // patch) == tx[:, None, None])
    else:
        gy, gx = rng.integers(0, size - 6, n), rng.integers(0, size - 6, n)
        in_tile = (
            (yy >= gy[:, None, None])
            & (yy < gy[:, None, None] + 6)
            & (xx >= gx[:, None, None])
            & (xx < gx[:, None, None] + 6)
        )
    marker = in_tile[:, None] & (frame_idx[None, :, None, None] == needle[:, None, None, None])
    video = np.where(marker[..., None], MARKER_COLOURS[label][:, None, None, None, :], video)
    qy, qx = rng.integers(0, tiles, n), rng.integers(0, tiles, n)
    in_query = ((yy // patch) == qy[:, None, None]) & ((xx // patch) == qx[:, None, None])
    checker = ((yy // 2 + xx // 2) % 2).astype(np.float32)
    last = frame_idx[None, :, None, None] == frames - 1
    video = np.where((in_query[:, None] & last)[..., None], checker[None, None, :, :, None], video)
    video = np.repeat(_to_uint8(video), tubelet, axis=1)
    return {"video": video, "label": label.astype(np.int32), "needle_frame": needle.astype(np.int32)}


def scene_cuts(n: int, *, frames: int = 8, size: int = 32, num_scenes: int = 3, seed: int = 0) -> dict[str, np.ndarray]:
    """Piecewise-constant clips: ``num_scenes`` textured scenes separated by random cuts.

    Returns ``video`` uint8 [n, frames, size, size, 3] and ``scene`` int32 [n, frames] (the scene
    index of each frame, 0..num_scenes−1, non-decreasing). Frames of one scene are identical.
    """
    check_range("num_scenes", num_scenes, 1, frames)
    rng = np.random.default_rng(seed)
    # num_scenes − 1 distinct cut positions in 1..frames−1 per clip (argsort of noise = random subset).
    cuts = np.sort(np.argsort(rng.uniform(size=(n, frames - 1)), axis=1)[:, : num_scenes - 1] + 1, axis=1)
    scene = (np.arange(frames)[None, :, None] >= cuts[:, None, :]).sum(-1)
    backgrounds = _texture(rng, n * num_scenes, size, 0.5).reshape(n, num_scenes, size, size, 3)
    video = np.take_along_axis(backgrounds, scene[:, :, None, None, None], axis=1)
    return {"video": _to_uint8(video), "scene": scene.astype(np.int32)}


# --------------------------------------------------------------------------------------------------
# Images shipped inside scikit-learn / scikit-image wheels
# --------------------------------------------------------------------------------------------------


def _need(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ClaimSkipped(f"{module} is not installed: pip install 'jaxpapers[data]'") from None


def digits_images(size: int = 32) -> dict[str, np.ndarray]:
    """scikit-learn's 1,797 8×8 digits, upsampled to ``size`` (nearest) as grey RGB uint8, with labels."""
    datasets = _need("sklearn.datasets")
    d = datasets.load_digits()
    img = d.images.astype(np.float32) / 16.0  # [n, 8, 8] in [0, 1]
    if size % 8:
        raise ConfigError(f"size={size} must be a multiple of 8 to upsample the 8×8 digits")
    img = np.repeat(np.repeat(img, size // 8, axis=1), size // 8, axis=2)
    return {"image": _to_uint8(np.repeat(img[..., None], 3, axis=-1)), "label": d.target.astype(np.int32)}


@functools.cache
def _bundled(name: str, short_side: int = 128) -> np.ndarray:
    """A bundled sample as float RGB in [0, 1], downscaled once so its short side is ``short_side``."""
    data, transform = _need("skimage.data"), _need("skimage.transform")
    img = np.asarray(getattr(data, name)())
    img = img.astype(np.float32) * (1.0 if img.dtype == bool else 1.0 / 255.0)
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=-1)
    img = img[..., :3]
    scale = short_side / min(img.shape[:2])
    if scale < 1:
        shape = (round(img.shape[0] * scale), round(img.shape[1] * scale))
        img = transform.resize(img, shape, anti_aliasing=True).astype(np.float32)
    return img


def bundled_images(n: int, *, size: int = 32, names: Sequence[str] = BUNDLED_IMAGES, seed: int = 0) -> np.ndarray:
    """``n`` random square crops (side 25-100% of the short edge) of bundled scikit-image samples,
    resized to ``size``×``size``: uint8 [n, size, size, 3]."""
    transform = _need("skimage.transform")
    for name in names:
        check_choice("image name", name, BUNDLED_IMAGES)
    rng = np.random.default_rng(seed)
    out = np.empty((n, size, size, 3), np.uint8)
    which = rng.integers(0, len(names), n)
    for i in range(n):  # one resize per image (skimage has no batched resize); pixels are vectorised
        img = _bundled(names[which[i]])
        short = min(img.shape[:2])
        side = int(rng.uniform(0.25, 1.0) * short)
        y0 = rng.integers(0, img.shape[0] - side + 1)
        x0 = rng.integers(0, img.shape[1] - side + 1)
        crop = img[y0 : y0 + side, x0 : x0 + side]
        out[i] = _to_uint8(transform.resize(crop, (size, size), anti_aliasing=True))
    return out


# --------------------------------------------------------------------------------------------------
# Packing images and videos into rows of T frames
# --------------------------------------------------------------------------------------------------


def pack_clips(clips: Sequence[np.ndarray], *, frames_per_row: int, tubelet: int) -> dict[str, np.ndarray]:
    """Packs clips [t_p·T_i, H, W, ch] (an image is one tubelet frame) into rows of ``frames_per_row``.

    Greedy next-fit in the given order: a clip that does not fit the current row starts a new one.
    Each clip is its own segment; unused frames are padding (``frame_valid`` False, segment −1).
    Returns ``pixels`` [R, t_p·T, H, W, ch], ``frame_seg`` int32 [R, T], ``frame_valid`` bool [R, T].
    """
    if not clips:
        raise ConfigError("pack_clips got no clips")
    shape = clips[0].shape[1:]
    rows: list[list[np.ndarray]] = [[]]
    used = [0]
    for clip in clips:
        if clip.shape[1:] != shape or clip.shape[0] % tubelet:
            raise ConfigError(
                f"clip of shape {clip.shape} does not match {shape} frames or is not a multiple of tubelet={tubelet}"
            )
        t = clip.shape[0] // tubelet
        if t > frames_per_row:
            raise ConfigError(f"a clip of {t} frames does not fit frames_per_row={frames_per_row}")
        if used[-1] + t > frames_per_row:
            rows.append([])
            used.append(0)
        rows[-1].append(clip)
        used[-1] += t
    n = len(rows)
    pixels = np.zeros((n, frames_per_row * tubelet, *shape), clips[0].dtype)
    seg = np.full((n, frames_per_row), -1, np.int32)
    valid = np.zeros((n, frames_per_row), bool)
    for r, row in enumerate(rows):
        t0 = 0
        for s, clip in enumerate(row):
            t = clip.shape[0] // tubelet
            pixels[r, t0 * tubelet : (t0 + t) * tubelet] = clip
            seg[r, t0 : t0 + t] = s
            valid[r, t0 : t0 + t] = True
            t0 += t
    return {"pixels": pixels, "frame_seg": seg, "frame_valid": valid}


@dataclasses.dataclass(frozen=True)
class PackRow:
    """grain map transform: ``k`` equally long clips [k, t_p·T_c, H, W, ch] → one packed row (a
    :func:`pack_clips` row of ``frames_per_row`` frames, the clips in order, then padding).

    The real sources of ``train`` group ``frames_per_row // T_c`` decoded clips per row with grain's
    ``batch`` and pack them here, so a row holds the same clips in the same places as
    :func:`pretraining_rows` would give them.
    """

    frames_per_row: int
    tubelet: int

    def __call__(self, clips: UInt8[np.ndarray, "k f h w c"]) -> dict[str, np.ndarray]:
        out = pack_clips(list(clips), frames_per_row=self.frames_per_row, tubelet=self.tubelet)
        if len(out["pixels"]) != 1:
            raise ConfigError(
                f"{len(clips)} clips of {clips.shape[1]} frames do not fit one row of {self.frames_per_row}"
            )
        return {k: v[0] for k, v in out.items()}


def pretraining_rows(
    n: int,
    *,
    frames_per_row: int,
    video_frames: int,
    tubelet: int = 2,
    size: int = 32,
    mix: str = "mixed",
    image_fraction: float = 0.5,
    images: Sequence[str] = ("digits", "bundled"),
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """``n`` packed rows for joint MAE pretraining: moving-shape videos of ``video_frames`` tubelet
    frames plus images (scikit-learn ``digits`` and/or ``bundled`` scikit-image crops), resized to the
    video resolution first.

    ``mix`` is ``"mixed"`` (about ``image_fraction`` of the frames are images), ``"videos"`` or
    ``"images"``. The token budget of a row is ``frames_per_row`` × P.
    """
    check_choice("mix", mix, ("mixed", "videos", "images"))
    if not images or any(s not in ("digits", "bundled") for s in images):
        raise ConfigError(f"images={tuple(images)!r} must name 'digits' and/or 'bundled'")
    check_range("image_fraction", image_fraction, 0.0, 1.0)
    rng = np.random.default_rng(seed)
    frac = {"mixed": image_fraction, "videos": 0.0, "images": 1.0}[mix]
    n_img = int(round(frac * frames_per_row)) if mix != "images" else frames_per_row
    n_vid = (frames_per_row - n_img) // video_frames if mix != "images" else 0
    if mix == "videos" and n_vid == 0:
        raise ConfigError(f"video_frames={video_frames} does not fit frames_per_row={frames_per_row}")
    if n_vid:
        videos = moving_shapes(
            n * n_vid,
            frames=video_frames * tubelet,
            size=size,
            max_shapes=2,
            min_speed=min(1.0, (size - 11) / max(video_frames * tubelet - 1, 1)),
            seed=int(rng.integers(2**31)),
        )["video"].reshape(n, n_vid, video_frames * tubelet, size, size, 3)
    if n_img:
        total = n * n_img
        n_bundled = 0 if "bundled" not in images else (total if "digits" not in images else total // 2)
        parts = [bundled_images(n_bundled, size=size, seed=int(rng.integers(2**31)))] if n_bundled else []
        if total > n_bundled:
            digits = digits_images(size)["image"]
            parts.append(digits[rng.integers(0, len(digits), total - n_bundled)])
        pool = np.concatenate(parts)
        image_clips = pool[rng.permutation(total)].reshape(n, n_img, 1, size, size, 3).repeat(tubelet, axis=2)
    rows = [  # one row each: n_vid·video_frames + n_img ≤ frames_per_row; videos first, then images
        pack_clips(
            [*(videos[r] if n_vid else []), *(image_clips[r] if n_img else [])],
            frames_per_row=frames_per_row,
            tubelet=tubelet,
        )
        for r in range(n)
    ]
    return {k: np.concatenate([r[k] for r in rows]) for k in rows[0]}


# --------------------------------------------------------------------------------------------------
# grain sources
# --------------------------------------------------------------------------------------------------

TASKS: dict[str, Callable[..., dict[str, np.ndarray]]] = {
    "moving_shapes": moving_shapes,
    "needle_frames": needle_frames,
    "scene_cuts": scene_cuts,
    "pretraining_rows": pretraining_rows,
}


class GeneratedSource(Sequence):
    """A random-access grain source of generated records: record i comes from block ``i // block``,
    generated vectorised with seed ``(seed, block)`` and cached, so any index is reproducible and
    memory stays at one block. Use with ``train_batches(..., shuffle=False)`` (records are i.i.d.).
    """

    def __init__(self, task: str, num_records: int, *, seed: int, block: int = 256, **kwargs: Any):
        check_choice("task", task, sorted(TASKS))
        check_range("num_records", num_records, 1)
        check_range("block", block, 1)
        self.fn = functools.partial(TASKS[task], **kwargs)
        self.task, self.num_records, self.seed, self.block = task, num_records, seed, block
        self._cache: tuple[int, dict[str, np.ndarray]] | None = None

    def __len__(self) -> int:
        return self.num_records

    def __getstate__(self) -> dict[str, Any]:  # grain workers get the recipe, not the cached block
        return {**self.__dict__, "_cache": None}

    def _block(self, b: int) -> dict[str, np.ndarray]:
        if self._cache is None or self._cache[0] != b:
            n = min(self.block, self.num_records - b * self.block)
            seed = int(np.random.SeedSequence([self.seed, b]).generate_state(1)[0])
            self._cache = (b, self.fn(n, seed=seed))
        return self._cache[1]

    def __getitem__(self, i: int) -> dict[str, np.ndarray]:  # type: ignore[override]
        if not 0 <= i < self.num_records:
            raise IndexError(f"record {i} out of range [0, {self.num_records})")
        data = self._block(i // self.block)
        return {k: v[i % self.block] for k, v in data.items()}
