"""Loaders for real corpora, reading local paths only (spec §Data "Real formats").

Every loader returns a list of :class:`Item` ``(audio path, text, metadata)``; :func:`load_item`
reads the waveform (float32, mono, at the target rate) with soundfile + ``resample_poly``. Layouts:

* LibriSpeech: ``{root}/{split}/{spk}/{chap}/{spk}-{chap}-{utt}.flac`` + ``{spk}-{chap}.trans.txt``
  ("ID TRANSCRIPT" lines, uppercase).
* LibriTTS / LibriTTS-R: ``{root}/{split}/{spk}/{chap}/{id}.wav`` + ``{id}.normalized.txt``.
* Clotho: ``clotho_captions_{split}.csv`` (file_name, caption_1..caption_5) + ``{split}/*.wav``.
* AudioCaps: CSV (audiocap_id, youtube_id, start_time, caption); MusicCaps: CSV (ytid, start_s, end_s,
  caption, aspect_list). Neither ships audio: pass ``audio_dir`` and a filename ``template``.
* JSONL manifest: one ``{"audio", "text", "task", ["caption"], ["teacher_feats"]}`` object per line
  (relative paths resolve against the manifest's folder).
* Kaldi: ``wav.scp`` ("utt-id path") + ``text`` ("utt-id transcript").

Missing folders/files and malformed rows raise ``ConfigError`` naming the file, the line and what
was expected.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.audio import load_audio


@dataclasses.dataclass(frozen=True)
class Item:
    """One example: where its audio lives, its text and anything else the format carries."""

    audio: str
    text: str
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)


def load_item(item: Item, sr: int) -> tuple[np.ndarray, str, dict[str, Any]]:
    """``(waveform float32 at sr, text, metadata)``."""
    return load_audio(item.audio, sr), item.text, item.meta


def _dir(path: str | os.PathLike, what: str) -> Path:
    p = Path(path)
    if not p.is_dir():
        raise ConfigError(f"{what} {os.fspath(path)!r} is not a directory")
    return p


def _file(path: str | os.PathLike, what: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{what} {os.fspath(path)!r} does not exist")
    return p


def librispeech(root: str | os.PathLike, split: str) -> list[Item]:
    """LibriSpeech ``{root}/{split}/{spk}/{chap}``: FLAC files with ``{spk}-{chap}.trans.txt`` transcripts."""
    base = _dir(Path(root) / split, "LibriSpeech split")
    items = []
    for trans in sorted(base.glob("*/*/*.trans.txt")):
        for lineno, line in enumerate(trans.read_text().splitlines(), 1):
            if not line.strip():
                continue
            utt, sep, text = line.strip().partition(" ")
            if not sep:
                raise ConfigError(f"{trans}:{lineno}: expected 'ID TRANSCRIPT', got {line!r}")
            spk, chap, _ = (utt.split("-") + ["", ""])[:3]
            audio = trans.parent / f"{utt}.flac"
            if not audio.is_file():
                raise ConfigError(f"{trans}:{lineno}: audio file {audio} for {utt!r} does not exist")
            items.append(Item(str(audio), text, {"id": utt, "speaker": spk, "chapter": chap}))
    if not items:
        raise ConfigError(
            f"no '*.trans.txt' transcripts under {base} (expected {{spk}}/{{chap}}/{{spk}}-{{chap}}.trans.txt)"
        )
    return items


def libritts(root: str | os.PathLike, split: str) -> list[Item]:
    """LibriTTS / LibriTTS-R ``{root}/{split}/{spk}/{chap}/{id}.wav`` with ``{id}.normalized.txt``."""
    base = _dir(Path(root) / split, "LibriTTS split")
    items = []
    for wav in sorted(base.glob("*/*/*.wav")):
        txt = wav.with_suffix(".normalized.txt")
        if not txt.is_file():
            raise ConfigError(f"transcript {txt} for {wav.name} does not exist")
        spk, chap = wav.parent.parent.name, wav.parent.name
        items.append(Item(str(wav), txt.read_text().strip(), {"id": wav.stem, "speaker": spk, "chapter": chap}))
    if not items:
        raise ConfigError(f"no '*.wav' files under {base} (expected {{spk}}/{{chap}}/{{id}}.wav)")
    return items


def _csv_rows(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise ConfigError(f"{path}: missing column(s) {missing}; expected {list(required)}")
        return list(reader)


def clotho(root: str | os.PathLike, split: str) -> list[Item]:
    """Clotho: one item per (file, caption) from ``clotho_captions_{split}.csv`` and ``{split}/*.wav``."""
    root = _dir(root, "Clotho root")
    rows = _csv_rows(
        _file(root / f"clotho_captions_{split}.csv", "Clotho captions CSV"),
        ("file_name", *(f"caption_{i}" for i in range(1, 6))),
    )
    items = []
    for row in rows:
        audio = root / split / row["file_name"]
        if not audio.is_file():
            raise ConfigError(f"Clotho audio {audio} listed in clotho_captions_{split}.csv does not exist")
        for i in range(1, 6):
            items.append(Item(str(audio), row[f"caption_{i}"], {"file_name": row["file_name"], "caption_index": i}))
    return items


def _user_audio(audio_dir: Path, template: str, row: dict[str, str], where: str) -> str:
    try:
        name = template.format(**row)
    except KeyError as err:
        raise ConfigError(f"filename template {template!r} names column {err} that {where} lacks") from None
    return str(audio_dir / name)


def audiocaps(
    csv_path: str | os.PathLike,
    audio_dir: str | os.PathLike,
    template: str = "{youtube_id}_{start_time}.wav",
    require_audio: bool = True,
) -> list[Item]:
    """AudioCaps CSV (audiocap_id, youtube_id, start_time, caption); audio supplied by the user."""
    path = _file(csv_path, "AudioCaps CSV")
    audio_dir = _dir(audio_dir, "AudioCaps audio_dir")
    rows = _csv_rows(path, ("audiocap_id", "youtube_id", "start_time", "caption"))
    items = [
        Item(
            _user_audio(audio_dir, template, r, path.name),
            r["caption"],
            {"audiocap_id": r["audiocap_id"], "youtube_id": r["youtube_id"], "start_time": float(r["start_time"])},
        )
        for r in rows
    ]
    return _existing(items, require_audio, path)


def musiccaps(
    csv_path: str | os.PathLike, audio_dir: str | os.PathLike, template: str = "{ytid}.wav", require_audio: bool = True
) -> list[Item]:
    """MusicCaps CSV (ytid, start_s, end_s, caption, aspect_list); audio supplied by the user."""
    path = _file(csv_path, "MusicCaps CSV")
    audio_dir = _dir(audio_dir, "MusicCaps audio_dir")
    rows = _csv_rows(path, ("ytid", "start_s", "end_s", "caption", "aspect_list"))
    items = [
        Item(
            _user_audio(audio_dir, template, r, path.name),
            r["caption"],
            {
                "ytid": r["ytid"],
                "start_s": float(r["start_s"]),
                "end_s": float(r["end_s"]),
                "aspects": r["aspect_list"],
            },
        )
        for r in rows
    ]
    return _existing(items, require_audio, path)


def _existing(items: list[Item], require: bool, source: Path) -> list[Item]:
    if not require:
        return items
    missing = [it.audio for it in items if not os.path.isfile(it.audio)]
    if missing:
        raise ConfigError(
            f"{len(missing)} audio file(s) listed in {source.name} are missing, e.g. {missing[0]!r} "
            "(these datasets ship no audio; pass require_audio=False to skip the check)"
        )
    return items


TASKS = ("asr", "tts", "caption", "tta", "ttm", "audio_only", "analysis")


def jsonl_manifest(path: str | os.PathLike) -> list[Item]:
    """A JSONL manifest ``{"audio", "text", "task", ["caption"], ["teacher_feats"]}`` per line."""
    path = _file(path, "JSONL manifest")
    items = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ConfigError(f"{path}:{lineno}: not valid JSON ({err.msg})") from None
        missing = [k for k in ("audio", "text", "task") if k not in row]
        if missing:
            raise ConfigError(f"{path}:{lineno}: missing key(s) {missing}; each line needs audio, text and task")
        check_choice(f"{path.name}:{lineno} task", row["task"], TASKS)
        audio = Path(row["audio"])
        audio = audio if audio.is_absolute() else path.parent / audio
        meta = {k: v for k, v in row.items() if k not in ("audio", "text")}
        if "teacher_feats" in meta:
            tf = Path(meta["teacher_feats"])
            meta["teacher_feats"] = str(tf if tf.is_absolute() else path.parent / tf)
        items.append(Item(str(audio), row["text"], meta))
    return items


def kaldi(data_dir: str | os.PathLike) -> list[Item]:
    """Kaldi ``wav.scp`` ("utt path") + ``text`` ("utt transcript"); utterances in wav.scp order."""
    d = _dir(data_dir, "Kaldi data dir")

    def table(name: str) -> dict[str, str]:
        out = {}
        for lineno, line in enumerate(_file(d / name, f"Kaldi {name}").read_text().splitlines(), 1):
            if not line.strip():
                continue
            key, sep, value = line.strip().partition(" ")
            if not sep:
                raise ConfigError(f"{d / name}:{lineno}: expected 'UTT-ID VALUE', got {line!r}")
            out[key] = value.strip()
        return out

    wavs, texts = table("wav.scp"), table("text")
    missing = [u for u in wavs if u not in texts]
    if missing:
        raise ConfigError(f"{d / 'text'} has no transcript for utterance {missing[0]!r}")
    for u, p in wavs.items():
        if p.endswith("|"):
            raise ConfigError(f"{d / 'wav.scp'}: utterance {u!r} is a command pipe; only file paths are supported")
    return [Item(p if os.path.isabs(p) else str(d / p), texts[u], {"id": u}) for u, p in wavs.items()]
