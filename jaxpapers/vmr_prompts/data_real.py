"""Loaders of the real benchmarks' annotation files and of decoded frames (spec §Data). Read-only, local paths,
no network; every malformed line raises one error naming the file, the line and what was expected."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.data.video import read_video
from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts.types import Query, Video


def _path(p) -> Path:
    p = Path(p)
    if not p.is_file():
        raise ConfigError(f"annotation file {str(p)!r} does not exist")
    return p


def load_charades_sta(path, durations: dict[str, float] | str | Path | None = None) -> list[tuple[str, Query]]:
    """``[(video_id, Query)]`` from ``charades_sta_{train,test}.txt`` lines ``VIDEOID START END##sentence``.
    ``durations`` ({id: seconds} or ``Charades_v1_test.csv`` with a ``length`` column) clamps the GT end."""
    if isinstance(durations, (str, Path)):
        with open(_path(durations), newline="") as fh:
            durations = {row["id"]: float(row["length"]) for row in csv.DictReader(fh)}
    out = []
    for n, line in enumerate(_path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        head, sep, text = line.partition("##")
        parts = head.split()
        if not sep or len(parts) != 3:
            raise ConfigError(f"{path}:{n}: {line!r} is not 'VIDEOID START END##sentence'")
        vid, (s, e) = parts[0], sorted(map(float, parts[1:]))
        if durations and vid in durations:
            e = min(e, float(durations[vid]))
            s = min(s, e)
        out.append((vid, Query(f"{vid}_{n}", text.strip(), ((s, e),))))
    return out


def load_qvhighlights(path) -> list[tuple[str, float, Query]]:
    """``[(vid, duration, Query)]`` from ``highlight_*_release.jsonl`` (``qid``, ``query``, ``duration``, ``vid``,
    ``relevant_windows``; test files have no windows: an empty tuple)."""
    out = []
    for n, line in enumerate(_path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            wins = tuple((float(a), float(b)) for a, b in d.get("relevant_windows", []))
            out.append((str(d["vid"]), float(d["duration"]), Query(str(d["qid"]), str(d["query"]), wins)))
        except (ValueError, KeyError, TypeError) as err:
            raise ConfigError(f"{path}:{n}: not a QVHighlights row with qid, query, duration, vid ({err})") from None
    return out


def load_activitynet(path) -> list[tuple[str, float, Query]]:
    """``[(video_id, duration, Query)]`` from ActivityNet Captions ``train.json`` / ``val_1.json`` / ``val_2.json``
    (one query per timestamp/sentence pair; reversed timestamps sorted, both ends clamped to [0, duration])."""
    try:
        data = json.loads(_path(path).read_text())
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path}: not JSON ({err})") from None
    out = []
    for vid, d in data.items():
        try:
            dur = float(d["duration"])
            pairs = list(zip(d["timestamps"], d["sentences"], strict=True))
        except (KeyError, TypeError, ValueError) as err:
            raise ConfigError(f"{path}: video {vid!r} lacks duration/timestamps/sentences of equal length ({err})") \
                from None
        for k, ((a, b), text) in enumerate(pairs):
            a, b = sorted((min(max(float(a), 0.0), dur), min(max(float(b), 0.0), dur)))
            out.append((vid, dur, Query(f"{vid}_{k}", text.strip(), ((a, b),))))
    return out


def load_frame_folder(folder, fps: float, video_id: str | None = None, max_frames: int = 128) -> Video:
    """A :class:`Video` from a folder of image files (sorted by name) taken at ``fps``; more than ``max_frames``
    are subsampled uniformly and the effective fps is recomputed from the duration."""
    folder = Path(folder)
    frames, duration = read_video(folder, max_frames=None, source_fps=fps)
    return _capped(frames, fps, duration, max_frames, video_id or folder.name)


def load_video(path, fps: float, video_id: str | None = None, max_frames: int = 128) -> Video:
    """A :class:`Video` sampled at ``fps`` from a video file (decoded with PyAV: ``pip install 'jaxpapers[video]'``),
    spec §Data "Frame sampling": 1 fps for Charades, 0.5 fps for QVHighlights and ActivityNet, capped at
    ``max_frames`` (uniform if longer, the effective fps recomputed from the video's duration)."""
    path = Path(path)
    frames, duration = read_video(path, fps=fps, max_frames=None)
    return _capped(frames, fps, duration, max_frames, video_id or path.stem)


def _capped(frames: np.ndarray, fps: float, duration: float, max_frames: int, video_id: str) -> Video:
    """``frames`` sampled at ``fps`` as a :class:`Video`, uniformly subsampled to ``max_frames`` if longer."""
    check_range("max_frames", max_frames, 1)
    if len(frames) > max_frames:
        frames = frames[np.linspace(0, len(frames) - 1, max_frames).round().astype(int)]
        fps = len(frames) / duration
    return Video(frames, fps, duration, video_id)
