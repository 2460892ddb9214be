"""Video decoding shared by the video papers: a video file (PyAV) or a folder of image frames.

A video may be stored as a folder of PNG/JPEG frames named like the file without its extension
(``clip.mp4`` -> ``clip/00000.jpg``); such folders decode without PyAV. A real video file needs the
optional PyAV dependency (``pip install 'jaxpapers[video]'``). Frames are sampled at a fixed ``fps``
(:func:`frame_indices`) up to ``max_frames``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class MissingExtraError(ConfigError, ImportError):
    """An optional dependency (an extra of the jaxpapers package) is not installed."""


def resize_frames(frames: np.ndarray, size: int | None) -> np.ndarray:
    """uint8 frames [T, H, W, 3] resized (anti-aliased) to [T, size, size, 3]; unchanged if ``size`` is None."""
    if size is None or frames.shape[1:3] == (size, size):
        return frames
    from skimage.transform import resize

    out = resize(frames.astype(np.float32) / 255.0, (frames.shape[0], size, size, 3), anti_aliasing=True)
    return np.clip(np.rint(out * 255), 0, 255).astype(np.uint8)


def read_image(path: str | Path) -> np.ndarray:
    """An image file as uint8 [H, W, 3] (grey images repeated to 3 channels, alpha dropped)."""
    import matplotlib.image

    img = np.asarray(matplotlib.image.imread(Path(path)))
    if img.dtype != np.uint8:
        img = np.clip(np.rint(img * 255), 0, 255).astype(np.uint8)
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=-1)
    return img[..., :3]


def frame_indices(num_source: int, source_fps: float, fps: float | None, max_frames: int | None) -> np.ndarray:
    """Indices floor(k * source_fps / fps), k = 0, 1, ..., that are < ``num_source``, at most ``max_frames``.

    Samples a ``source_fps`` video at ``fps`` frames per second (every source frame if ``fps`` is None);
    ``max_frames=None`` keeps every sample.
    """
    step = _step(source_fps, fps, max_frames)
    count = int(np.ceil(num_source / step)) if max_frames is None else max_frames
    idx = np.floor(np.arange(count) * step).astype(np.int64)
    return idx[idx < num_source]


def _step(source_fps: float, fps: float | None, max_frames: int | None) -> float:
    if max_frames is not None:
        check_range("max_frames", max_frames, 1)
    check_range("source_fps", source_fps, 0.0, lo_open=True)
    if fps is not None and not fps > 0:
        raise ConfigError(f"fps={fps} must be positive (source_fps={source_fps})")
    return 1.0 if fps is None else source_fps / fps


def read_video(
    path: str | Path,
    *,
    fps: float | None = None,
    max_frames: int | None = 16,
    size: int | None = None,
    source_fps: float = 30.0,
) -> tuple[np.ndarray, float]:
    """``(frames, duration_s)``: uint8 [<= max_frames, H, W, 3] sampled at ``fps`` and the whole video's length.

    ``fps=None`` keeps every source frame; ``max_frames=None`` keeps every sample. A folder of PNG/JPEG
    frames (``path`` itself, or ``path`` without its extension; frames in sorted name order) is read
    directly at ``source_fps``; a video file is decoded with PyAV at its own average frame rate, one frame
    at a time, so only the kept frames are held in memory.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.with_suffix("")
    if folder.is_dir():
        files = sorted(f for f in folder.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise ConfigError(f"frame folder {str(folder)!r} holds no frames ({', '.join(IMAGE_SUFFIXES)})")
        idx = frame_indices(len(files), source_fps, fps, max_frames)
        return resize_frames(np.stack([read_image(files[i]) for i in idx]), size), len(files) / source_fps
    if not path.is_file():
        raise ConfigError(f"path={str(path)!r} does not exist (neither a video file nor a frame folder)")
    try:
        import av
    except ImportError:
        raise MissingExtraError(
            f"decoding {path.name} needs PyAV, which is not installed: pip install 'jaxpapers[video]'"
        ) from None
    try:
        frames, count, rate = _decode(av, path, fps, max_frames, source_fps)
    except av.error.FFmpegError as err:
        raise ConfigError(f"path={str(path)!r} is not a readable video file ({err})") from None
    if not frames:
        raise ConfigError(f"path={str(path)!r} holds no decodable video frames")
    return resize_frames(np.stack(frames), size), count / rate


def _decode(av, path: Path, fps: float | None, max_frames: int | None, source_fps: float):
    """Kept frames (source frame floor(j * step) for sample j), the number of source frames and their rate."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        rate = float(stream.average_rate or source_fps)
        step = _step(rate, fps, max_frames)
        frames: list[np.ndarray] = []
        count = 0
        for frame in container.decode(stream):
            # source frame `count` is sample j for every j with floor(j * step) == count
            while (max_frames is None or len(frames) < max_frames) and int(np.floor(len(frames) * step)) == count:
                frames.append(frame.to_ndarray(format="rgb24"))
            count += 1
            if max_frames is not None and len(frames) == max_frames and stream.frames > 0:
                count = int(stream.frames)  # the container's frame count: no need to decode the rest
                break
    return frames, count, rate


def read_frames(
    path: str | Path,
    *,
    fps: float | None = None,
    max_frames: int | None = 16,
    size: int | None = None,
    source_fps: float = 30.0,
) -> np.ndarray:
    """Frames of a video as uint8 [<= max_frames, H, W, 3], sampled at ``fps`` (:func:`read_video` without
    the duration)."""
    return read_video(path, fps=fps, max_frames=max_frames, size=size, source_fps=source_fps)[0]
