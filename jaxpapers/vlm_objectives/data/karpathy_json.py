"""Flickr30k / COCO captions from Karpathy's split file (``dataset_flickr30k.json``, ``dataset_coco.json``).

Format: ``{"images": [{"filename", "split" ∈ {train, val, test, restval}, "sentences": [{"raw", ...}],
"filepath"? (COCO), "imgid"?, "cocoid"?}, ...]}``. Flickr30k has 29k/1k/1k images, COCO 113k/5k/5k
(``restval`` is conventionally merged into train), 5 captions per image.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError

SPLITS: tuple[str, ...] = ("train", "val", "test", "restval")


@dataclasses.dataclass(frozen=True)
class CaptionedImage:
    """One image and its captions. ``path`` is relative to the image root (``filepath/filename``)."""

    path: str
    split: str
    captions: tuple[str, ...]
    image_id: int | str | None = None


def read_json(path: str | Path, what: str) -> Any:
    """Reads a JSON file, or raises ConfigError naming the path and what it should hold."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{what} file {str(p)!r} does not exist")
    try:
        return json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise ConfigError(f"{what} file {str(p)!r} is not valid JSON: {e}") from None


def load_karpathy(
    path: str | Path, splits: Sequence[str] | None = None, *, restval_as_train: bool = True
) -> list[CaptionedImage]:
    """Images with their captions from a Karpathy split file, optionally only ``splits``.

    ``restval_as_train`` relabels COCO's ``restval`` images as ``train`` (the usual 113k train split).
    """
    data = read_json(path, "Karpathy split")
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ConfigError(f"Karpathy split file {str(path)!r} has no 'images' list")
    for s in splits or ():
        check_choice("splits", s, SPLITS)
    out = []
    for i, img in enumerate(data["images"]):
        missing = [k for k in ("filename", "split", "sentences") if k not in img]
        if missing:
            raise ConfigError(f"{str(path)!r}: images[{i}] lacks {', '.join(missing)}")
        split = img["split"]
        if split not in SPLITS:
            raise ConfigError(f"{str(path)!r}: images[{i}].split={split!r} is not one of {', '.join(SPLITS)}")
        if restval_as_train and split == "restval":
            split = "train"
        if splits and split not in splits and img["split"] not in splits:
            continue
        captions = tuple(s["raw"] if isinstance(s, dict) else str(s) for s in img["sentences"])
        rel = f"{img['filepath']}/{img['filename']}" if img.get("filepath") else img["filename"]
        out.append(CaptionedImage(rel, split, captions, img.get("cocoid", img.get("imgid"))))
    return out
