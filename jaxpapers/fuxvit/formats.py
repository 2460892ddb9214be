"""Loaders for real on-disk datasets (spec "Data: real formats"); never used by tests on real data.

* Kinetics-400/700: CSV ``label,youtube_id,time_start,time_end,split``; videos named
  ``{youtube_id}_{time_start:06d}_{time_end:06d}.mp4``.
* Something-Something v2: a JSON list of ``{id, label, template, placeholders}`` plus ``{id}.webm``;
  class ids from the official labels JSON (template → id) or, without it, the sorted templates.
* ImageNet-style class folders: ``root/<class>/<image>``.
* WebVid/HowTo-style captions: TSV rows ``video_path<TAB>caption`` (an optional header).

Decoding goes through the optional PyAV dependency (``pip install 'jaxpapers[video]'``), sampling
frames at a fixed ``fps`` up to ``max_frames``. A video may instead be stored as a folder of PNG or
JPEG frames named like the file without its extension (``abc_000010_000020/00000.jpg``); such folders
decode without PyAV (this is what the tests write).

For ``jaxpapers train fuxvit/pretrain --config.data.source=...``:
:func:`pretraining_records` indexes a source from the ``data`` group's paths, and :class:`ReadClip`
is the grain map transform that decodes, resizes and pads one record (run in grain's worker
processes when ``data.worker_count`` > 0; ``train.real_rows`` builds the pipeline).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from jaxtyping import UInt8

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.data.video import (  # noqa: F401 - re-exported decoding API
    IMAGE_SUFFIXES,
    MissingExtraError,
    frame_indices,
)
from jaxpapers.core.data.video import read_frames as decode_video
from jaxpapers.core.data.video import read_image as _read_image
from jaxpapers.core.data.video import resize_frames as _resize
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.config import DATA_SOURCES, DEFAULT_INDEX


@dataclasses.dataclass(frozen=True)
class Record:
    """One example on disk: a video or image path, an integer label (−1 if none) and optional text."""

    path: Path
    label: int = -1
    text: str = ""
    start_s: float | None = None
    end_s: float | None = None


def _need_file(path: str | Path, what: str) -> Path:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{what}={str(path)!r} does not exist or is not a file")
    return path


def _need_dir(path: str | Path, what: str) -> Path:
    path = Path(path)
    if not path.is_dir():
        raise ConfigError(f"{what}={str(path)!r} does not exist or is not a directory")
    return path


def kinetics_index(
    csv_path: str | Path, video_root: str | Path, *, split: str | None = None, classes: Sequence[str] | None = None
) -> tuple[list[Record], list[str]]:
    """Records of a Kinetics CSV (``label,youtube_id,time_start,time_end,split``) and the class names.

    Labels index ``classes`` (default: the sorted labels of the file). ``split`` keeps matching rows.
    """
    path, root = _need_file(csv_path, "csv_path"), _need_dir(video_root, "video_root")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        need = {"label", "youtube_id", "time_start", "time_end"}
        if not reader.fieldnames or not need <= set(reader.fieldnames):
            raise ConfigError(f"{path} has columns {reader.fieldnames}; a Kinetics CSV needs {sorted(need)}")
        rows = [r for r in reader if split is None or r.get("split") == split]
    names = list(classes) if classes is not None else sorted({r["label"] for r in rows})
    index = {n: i for i, n in enumerate(names)}
    records = []
    for r in rows:
        start, end = int(float(r["time_start"])), int(float(r["time_end"]))
        if r["label"] not in index:
            raise ConfigError(f"{path}: label {r['label']!r} is not one of the {len(names)} classes given")
        records.append(
            Record(root / f"{r['youtube_id']}_{start:06d}_{end:06d}.mp4", index[r["label"]], start_s=start, end_s=end)
        )
    return records, names


def ssv2_index(
    json_path: str | Path, video_root: str | Path, *, labels_path: str | Path | None = None
) -> tuple[list[Record], list[str]]:
    """Records of a Something-Something v2 JSON list and the class names (templates without brackets)."""
    path, root = _need_file(json_path, "json_path"), _need_dir(video_root, "video_root")
    entries = json.loads(path.read_text())
    if not isinstance(entries, list) or any(not {"id", "template"} <= set(e) for e in entries):
        raise ConfigError(f"{path} is not a Something-Something v2 list of {{id, label, template, placeholders}}")
    clean = lambda t: t.replace("[", "").replace("]", "")  # noqa: E731  "Holding [something]" → "Holding something"
    if labels_path is not None:
        table = json.loads(_need_file(labels_path, "labels_path").read_text())
        names = [name for name, _ in sorted(table.items(), key=lambda kv: int(kv[1]))]
    else:
        names = sorted({clean(e["template"]) for e in entries})
    index = {n: i for i, n in enumerate(names)}
    records = []
    for e in entries:
        name = clean(e["template"])
        if name not in index:
            raise ConfigError(f"{path}: template {name!r} of video {e['id']} is not in the labels file")
        records.append(Record(root / f"{e['id']}.webm", index[name], text=e.get("label", "")))
    return records, names


def image_folder_index(root: str | Path) -> tuple[list[Record], list[str]]:
    """Records of an ImageNet-style tree ``root/<class>/<image>`` (sorted classes) and the class names."""
    root = _need_dir(root, "root")
    names = sorted(p.name for p in root.iterdir() if p.is_dir())
    if not names:
        raise ConfigError(f"root={str(root)!r} holds no class folders")
    records = [
        Record(f, i)
        for i, n in enumerate(names)
        for f in sorted((root / n).iterdir())
        if f.suffix.lower() in IMAGE_SUFFIXES
    ]
    return records, names


def caption_index(tsv_path: str | Path, video_root: str | Path | None = None) -> list[Record]:
    """Records of a ``video_path<TAB>caption`` TSV (paths relative to ``video_root`` if given)."""
    path = _need_file(tsv_path, "tsv_path")
    root = None if video_root is None else _need_dir(video_root, "video_root")
    records = []
    with path.open(newline="") as f:
        for i, row in enumerate(csv.reader(f, delimiter="\t")):
            if i == 0 and [c.strip().lower() for c in row[:2]] in (["video_path", "caption"], ["path", "caption"]):
                continue
            if len(row) < 2:
                raise ConfigError(f"{path} line {i + 1} has {len(row)} column(s); expected video_path<TAB>caption")
            video = Path(row[0])
            records.append(Record(video if root is None else root / video, text=row[1]))
    return records


# --------------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------------


def load_image(path: str | Path, *, size: int | None = None) -> np.ndarray:
    """An image file as uint8 [size, size, 3] (resized when ``size`` is given)."""
    img = _read_image(_need_file(path, "path"))
    return _resize(img[None], size)[0]


def pad_frames(frames: np.ndarray, n: int) -> np.ndarray:
    """``frames`` [≤ n, ...] padded to n by repeating the last frame."""
    if len(frames) >= n:
        return frames[:n]
    return np.concatenate([frames, np.repeat(frames[-1:], n - len(frames), axis=0)])


class VideoSource(Sequence):
    """A grain source over video records: item i = ``{"video": uint8 [max_frames, size, size, 3],
    "label": int32, "num_frames": int32}``; short videos are padded by repeating their last frame."""

    def __init__(self, records: Sequence[Record], *, max_frames: int, size: int, fps: float | None = None):
        check_range("max_frames", max_frames, 1)
        check_range("size", size, 1)
        self.records, self.max_frames, self.size, self.fps = list(records), max_frames, size, fps

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict[str, np.ndarray]:  # type: ignore[override]
        r = self.records[i]
        frames = decode_video(r.path, fps=self.fps, max_frames=self.max_frames, size=self.size)
        return {
            "video": pad_frames(frames, self.max_frames),
            "label": np.int32(r.label),
            "num_frames": np.int32(len(frames)),
        }


class ImageSource(Sequence):
    """A grain source over image records: item i = ``{"image": uint8 [size, size, 3], "label": int32}``."""

    def __init__(self, records: Sequence[Record], *, size: int):
        check_range("size", size, 1)
        self.records, self.size = list(records), size

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict[str, np.ndarray]:  # type: ignore[override]
        r = self.records[i]
        return {"image": load_image(r.path, size=self.size), "label": np.int32(r.label)}


# --------------------------------------------------------------------------------------------------
# Real sources for pretraining (``data.source``)
# --------------------------------------------------------------------------------------------------


def _on_disk(r: Record) -> bool:
    return r.path.is_file() or r.path.with_suffix("").is_dir()


def pretraining_records(
    source: str, root: str | Path, *, index: str = "", labels: str = "", split: str = ""
) -> list[Record]:
    """The records of a real ``data.source`` (``kinetics`` | ``ssv2`` | ``imagenet`` | ``captions``).

    ``root`` holds the videos (or class folders); ``index`` the CSV/JSON/TSV (relative: under
    ``root``; empty: :data:`DEFAULT_INDEX`). Videos listed but absent (neither the file nor its frame
    folder exists; common for Kinetics) are skipped with a warning; an empty result is an error.
    """
    check_choice("data.source", source, [s for s in DATA_SOURCES if s != "generated"])
    root = _need_dir(root, "data.root")
    if source == "imagenet":
        if not any(p.is_dir() for p in root.iterdir()):
            raise ConfigError(f"data.root={str(root)!r} holds no class folders (data.source='imagenet')")
        records, _ = image_folder_index(root)
        if not records:
            raise ConfigError(
                f"data.root={str(root)!r}: its class folders hold no images ({', '.join(IMAGE_SUFFIXES)})"
            )
        return records
    index_path = Path(index or DEFAULT_INDEX[source])
    index_path = _need_file(index_path if index_path.is_absolute() else root / index_path, "data.index")
    if source == "kinetics":
        listed, _ = kinetics_index(index_path, root, split=split or None)
    elif source == "ssv2":
        labels_path = None if not labels else (Path(labels) if Path(labels).is_absolute() else root / labels)
        listed, _ = ssv2_index(index_path, root, labels_path=labels_path)
    else:
        listed = caption_index(index_path, root)
    what = f"data.index={str(index_path)!r}" + (f" (split {split!r})" if split else "")
    if not listed:
        raise ConfigError(f"{what} lists no videos; data.source={source!r} needs at least one")
    records = [r for r in listed if _on_disk(r)]
    if not records:
        raise ConfigError(
            f"none of the {len(listed)} videos of {what} is under data.root={str(root)!r} "
            f"(e.g. {listed[0].path.name} or its frame folder)"
        )
    if len(records) < len(listed):
        warnings.warn(
            f"data.source={source!r}: {len(listed) - len(records)} of the {len(listed)} videos of {what} "
            f"are not under data.root (e.g. {next(r for r in listed if not _on_disk(r)).path.name}); skipped",
            stacklevel=2,
        )
    return records


@dataclasses.dataclass(frozen=True)
class ReadClip:
    """grain map transform: a :class:`Record` → uint8 clip [frames, size, size, 3].

    Videos are decoded at ``fps`` (every source frame if None) up to ``frames`` raw frames, resized to
    ``size`` × ``size`` and padded by repeating the last frame; an image (``video=False``) is one tubelet
    frame, repeated ``frames`` (= tubelet) times, as the generated source does (``data.pretraining_rows``).
    """

    frames: int
    size: int
    video: bool = True
    fps: float | None = None
    source_fps: float = 30.0

    def __call__(self, record: Record) -> UInt8[np.ndarray, "frames size size 3"]:
        if not self.video:
            return np.repeat(load_image(record.path, size=self.size)[None], self.frames, axis=0)
        clip = decode_video(
            record.path, fps=self.fps, max_frames=self.frames, size=self.size, source_fps=self.source_fps
        )
        return pad_frames(clip, self.frames)
