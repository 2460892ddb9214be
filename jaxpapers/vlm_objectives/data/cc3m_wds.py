"""Conceptual Captions 3M: webdataset tar shards (as img2dataset writes them) or the original TSV.

* Shards ``NNNNN.tar`` hold ``key.jpg``, ``key.txt`` (the caption) and ``key.json`` (metadata) per
  sample, adjacent in the tar; :func:`iter_webdataset` groups members by key.
* The TSV has one ``caption\\turl`` row per sample; images downloaded beside it are looked up in
  ``image_dir`` by a name derived from the row index (img2dataset's 9-digit keys by default).
"""

from __future__ import annotations

import csv
import json
import tarfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives.data.karpathy_json import CaptionedImage


def _shard_list(shards: str | Path | Sequence[str | Path]) -> list[Path]:
    if isinstance(shards, (str, Path)):
        p = Path(shards)
        if p.is_dir():
            found = sorted(p.glob("*.tar"))
            if not found:
                raise ConfigError(f"webdataset directory {str(p)!r} holds no .tar shards")
            return found
        shards = [p]
    paths = [Path(s) for s in shards]
    for p in paths:
        if not p.is_file():
            raise ConfigError(f"webdataset shard {str(p)!r} does not exist")
    return paths


def iter_webdataset(shards: str | Path | Sequence[str | Path]) -> Iterator[dict[str, Any]]:
    """Yields one dict per sample: ``{"__key__", "__shard__", ext: value}`` with ``txt`` decoded to
    str, ``json`` parsed, other extensions (``jpg``, ``png``...) as bytes.

    The key of ``dir/abc.def.jpg`` is ``dir/abc`` (webdataset: everything before the first dot of
    the base name); members of one sample must be adjacent, as webdataset writers emit them.
    """
    for shard in _shard_list(shards):
        with tarfile.open(shard, "r:*") as tar:
            current: dict[str, Any] | None = None
            for member in tar:
                if not member.isfile():
                    continue
                parent, _, base = member.name.rpartition("/")
                stem, dot, ext = base.partition(".")
                if not dot:
                    continue
                key = f"{parent}/{stem}" if parent else stem
                if current is not None and current["__key__"] != key:
                    yield current
                    current = None
                if current is None:
                    current = {"__key__": key, "__shard__": str(shard)}
                raw = tar.extractfile(member).read()
                if ext == "txt":
                    current[ext] = raw.decode("utf-8").strip()
                elif ext == "json":
                    current[ext] = json.loads(raw.decode("utf-8"))
                else:
                    current[ext] = raw
            if current is not None:
                yield current


def load_cc3m_webdataset(shards: str | Path | Sequence[str | Path], split: str = "train") -> list[CaptionedImage]:
    """Caption records of webdataset shards (the image stays in the shard: ``path`` is ``shard#key``)."""
    out = []
    for sample in iter_webdataset(shards):
        if "txt" not in sample:
            raise ConfigError(f"sample {sample['__key__']!r} of {sample['__shard__']!r} has no .txt caption")
        out.append(
            CaptionedImage(f"{sample['__shard__']}#{sample['__key__']}", split, (sample["txt"],), sample["__key__"])
        )
    return out


def default_image_name(row: int) -> str:
    """img2dataset's default file name for row ``row``: a 9-digit zero-padded key."""
    return f"{row:09d}.jpg"


def load_cc3m_tsv(
    tsv: str | Path,
    image_dir: str | Path | None = None,
    *,
    split: str = "train",
    image_name: Callable[[int], str] = default_image_name,
    require_images: bool = False,
) -> list[CaptionedImage]:
    """Rows ``caption\\turl`` of the CC3M TSV as caption records.

    With ``image_dir``, ``path`` is the downloaded image (``image_dir / image_name(row)``); rows whose
    image is missing are dropped (most CC3M URLs are dead), or raise with ``require_images``. Without
    it, ``path`` is the URL.
    """
    tsv = Path(tsv)
    if not tsv.is_file():
        raise ConfigError(f"CC3M TSV file {str(tsv)!r} does not exist")
    if image_dir is not None and not Path(image_dir).is_dir():
        raise ConfigError(f"CC3M image directory {str(image_dir)!r} does not exist")
    out = []
    with tsv.open(newline="", encoding="utf-8") as f:
        for row, fields in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)):
            if len(fields) != 2:
                raise ConfigError(f"{str(tsv)!r} row {row} has {len(fields)} fields; expected 'caption<TAB>url'")
            caption, url = fields
            path = url
            if image_dir is not None:
                img = Path(image_dir) / image_name(row)
                if not img.is_file():
                    if require_images:
                        raise ConfigError(f"image {str(img)!r} of {str(tsv)!r} row {row} does not exist")
                    continue
                path = str(img)
            out.append(CaptionedImage(path, split, (caption.strip(),), row))
    return out
