"""The text-only reader for UniALM's text replay (spec §4: every batch carries text-only sequences).

Documents come from a local file or folder of shards: ``*.txt`` (one document per non-empty line) or
``*.jsonl`` (one JSON object per line, the document in ``field``). A tokenizer file (a Hugging Face
``tokenizer.json``, read with the ``tokenizers`` package: ``pip install 'jaxpapers[text]'``) maps text to ids;
without one, UTF-8 bytes are the ids (256 of them). :func:`text_only_arrays` renders each document as a
``text_only`` example (spec §4: loss on every frame), packs documents greedily into sequences of at most
``length`` frames and collates them to fixed-shape arrays for :class:`jaxpapers.core.data.ArraySource`.
Nothing is downloaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.lm import UniALMConfig
from jaxpapers.unialm.sequence import Vocab, collate, format_example, pack, render

SHARD_SUFFIXES = (".txt", ".jsonl")


@runtime_checkable
class Tokenizer(Protocol):
    """Anything with ``encode(text) -> ids``."""

    def encode(self, text: str) -> Sequence[int]: ...


class ByteTokenizer:
    """UTF-8 bytes as ids in [0, 256): the tokenizer when no tokenizer file is given."""

    vocab_size = 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))


class _FileTokenizer:
    def __init__(self, path: Path):
        try:
            import tokenizers
        except ImportError:
            raise ConfigError(
                f"reading the tokenizer file {path} needs the 'tokenizers' package: pip install 'jaxpapers[text]'"
            ) from None
        try:
            self._tok = tokenizers.Tokenizer.from_file(str(path))
        except Exception as e:
            raise ConfigError(f"{path} is not a tokenizer.json file the 'tokenizers' package can read: {e}") from None
        self.vocab_size = self._tok.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids


def load_tokenizer(path: str | os.PathLike | None = None) -> Tokenizer:
    """A ``tokenizer.json`` file's tokenizer, or :class:`ByteTokenizer` for ``None``."""
    if path is None:
        return ByteTokenizer()
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"tokenizer file {p} does not exist; pass a tokenizer.json file or None for UTF-8 bytes")
    return _FileTokenizer(p)


def shard_paths(path: str | os.PathLike) -> list[Path]:
    """``path`` itself, or the ``*.txt`` / ``*.jsonl`` files of a folder, sorted by name."""
    p = Path(path)
    if p.is_file():
        shards = [p]
    elif p.is_dir():
        shards = sorted(f for f in p.iterdir() if f.is_file() and f.suffix in SHARD_SUFFIXES)
    else:
        raise ConfigError(f"text path {p} does not exist; pass a .txt/.jsonl file or a folder of them")
    bad = [f.name for f in shards if f.suffix not in SHARD_SUFFIXES]
    if bad or not shards:
        raise ConfigError(f"{p}: no text shards found (got {bad or 'none'}); allowed suffixes: {SHARD_SUFFIXES}")
    return shards


def read_documents(path: str | os.PathLike, *, field: str = "text") -> list[str]:
    """Every document of the shards under ``path``, in shard then line order (empty ones skipped)."""
    docs = []
    for shard in shard_paths(path):
        with open(shard, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if shard.suffix == ".txt":
                    docs.append(line.rstrip("\n"))
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ConfigError(f"{shard}:{lineno} is not valid JSON ({e.msg})") from None
                if not isinstance(row, dict) or not isinstance(row.get(field), str):
                    raise ConfigError(f"{shard}:{lineno} has no string field {field!r} (keys: {sorted(row)[:8]})")
                if row[field].strip():
                    docs.append(row[field])
    return docs


def text_only_arrays(
    docs: Sequence[str], tokenizer: Tokenizer, cfg: UniALMConfig, length: int
) -> dict[str, np.ndarray]:
    """Documents as packed, collated ``text_only`` sequences of ``length`` frames (``frames``, ``audio``,
    ``loss_mask``, ``positions``, ``valid``, leading axis the sequences). A document longer than a sequence is
    cut into pieces of ``length − 2`` tokens (its tags take two frames)."""
    vocab = Vocab(cfg)
    if length < 3:
        raise ConfigError(f"length={length} cannot hold a tag pair and a token; allowed: length ≥ 3")
    rendered = []
    for i, doc in enumerate(docs):
        ids = np.asarray(tokenizer.encode(doc), np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= vocab.ordinary_text):
            raise ConfigError(
                f"document {i} has token id {int(ids.max())}; this model's ordinary text ids are "
                f"[0, {vocab.ordinary_text}) (text_vocab={cfg.text_vocab} minus {vocab.reserved_text} reserved)"
            )
        for start in range(0, max(len(ids), 1), length - 2):
            rendered.append(render(format_example("text_only", [ids[start : start + length - 2]]), cfg))
    sequences, current, used = [], [], 0
    for r in rendered:
        if used + len(r["audio"]) > length:
            sequences.append(pack(current, length))
            current, used = [], 0
        current.append(r)
        used += len(r["audio"])
    if current:
        sequences.append(pack(current, length))
    return collate(sequences, length, cfg)
