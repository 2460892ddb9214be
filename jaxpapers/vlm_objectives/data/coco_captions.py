"""COCO captions from the official annotation files ``annotations/captions_{train,val}2017.json``.

Format: ``{"images": [{"id", "file_name", ...}], "annotations": [{"image_id", "caption", ...}]}``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives.data.karpathy_json import CaptionedImage, read_json


def load_coco_captions(path: str | Path, split: str | None = None) -> list[CaptionedImage]:
    """Images (in file order) with all their captions; ``split`` defaults to ``train``/``val`` read from
    the file name (``captions_val2017.json`` → ``val``). Images without captions are dropped."""
    data = read_json(path, "COCO captions")
    for key in ("images", "annotations"):
        if not isinstance(data, dict) or not isinstance(data.get(key), list):
            raise ConfigError(f"COCO captions file {str(path)!r} has no {key!r} list")
    if split is None:
        stem = Path(path).stem
        split = "val" if "val" in stem else "test" if "test" in stem else "train"
    captions: dict[int, list[str]] = defaultdict(list)
    for i, ann in enumerate(data["annotations"]):
        if "image_id" not in ann or "caption" not in ann:
            raise ConfigError(f"{str(path)!r}: annotations[{i}] lacks image_id or caption")
        captions[ann["image_id"]].append(ann["caption"].strip())
    out = []
    for i, img in enumerate(data["images"]):
        if "id" not in img or "file_name" not in img:
            raise ConfigError(f"{str(path)!r}: images[{i}] lacks id or file_name")
        if captions.get(img["id"]):
            out.append(CaptionedImage(img["file_name"], split, tuple(captions[img["id"]]), img["id"]))
    return out
