"""The offline toy worlds (spec "Claims to reproduce", preamble): the espeak-ng digit world and U1's mixture.

Digit world: "zero" … "nine", 60 voice variants (sorted names without spaces, permuted with seed 0;
the last 12 of the 60 held out), ``draws`` random (rate 120–230, pitch 20–80) draws per digit and
voice; each clip trimmed of silence, peak-normalised to 0.5, centred and padded to 0.8 s. Analysis
text: the digit word (optionally followed by "| pitch:{low,mid,high} | rate:{slow,mid,fast}",
tertiles of the drawn values). Built once and cached on disk under ``cache_dir/<config hash>.npz``
(default ``$JAXPAPERS_CACHE`` or ``~/.cache/jaxpapers``, then ``unialm/``).

U1 mixture: ⅓ speech (training voices, centre-cropped to ``clip_s``), ⅓ procedural sound, ⅓ music;
held-out: speech from held-out voices and fresh sound/music draws.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.audio import fit_length
from jaxpapers.unialm.config import AttributeWorldConfig, DigitWorldConfig, MixConfig
from jaxpapers.unialm.data import espeak, procedural

DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
PITCH_WORDS = ("pitch:low", "pitch:mid", "pitch:high")
RATE_WORDS = ("rate:slow", "rate:mid", "rate:fast")
TEXT_VOCAB: tuple[str, ...] = (
    "<pad>",
    "<bos>",
    "<eos>",
    "<transcribe>",
    "<describe>",
    *DIGITS,
    "|",
    *PITCH_WORDS,
    *RATE_WORDS,
)
WORD_ID = {w: i for i, w in enumerate(TEXT_VOCAB)}
EOS = WORD_ID["<eos>"]
DESCRIBE = WORD_ID["<describe>"]
TRANSCRIBE = WORD_ID["<transcribe>"]


def encode_text(text: str) -> list[int]:
    """Word-level ids of a toy-world text (raises naming the unknown word)."""
    ids = []
    for w in text.split():
        if w not in WORD_ID:
            raise ConfigError(f"word {w!r} is not in the toy vocabulary; known words: {', '.join(TEXT_VOCAB[5:])}")
        ids.append(WORD_ID[w])
    return ids


def decode_text(ids: Any) -> str:
    """Inverse of :func:`encode_text` (stops at <eos>, skips <pad>)."""
    out = []
    for i in np.asarray(ids).tolist():
        if i == EOS:
            break
        if i:
            out.append(TEXT_VOCAB[i])
    return " ".join(out)


def default_cache_dir() -> Path:
    root = os.environ.get("JAXPAPERS_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "jaxpapers")
    return Path(root) / "unialm"


def config_hash(*parts: Any) -> str:
    """Stable short hash of plain config values (dataclasses by their fields)."""
    plain = [dataclasses.asdict(p) if dataclasses.is_dataclass(p) else p for p in parts]
    return hashlib.sha1(json.dumps(plain, sort_keys=True, default=str).encode()).hexdigest()[:16]


def voice_split(cfg: DigitWorldConfig | AttributeWorldConfig) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(training voices, held-out voices): sorted variants, permuted with ``cfg.seed``, first n_voices."""
    names = espeak.list_variants()
    if len(names) < cfg.n_voices:
        raise ConfigError(f"data.n_voices={cfg.n_voices} but espeak-ng offers only {len(names)} variants")
    perm = np.random.default_rng(cfg.seed).permutation(len(names))
    chosen = [names[i] for i in perm[: cfg.n_voices]]
    return tuple(chosen[: cfg.n_voices - cfg.n_heldout]), tuple(chosen[cfg.n_voices - cfg.n_heldout :])


def tertile(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """0/1/2 for the lower/middle/upper third of ``[lo, hi]`` (the pitch/rate attribute words)."""
    return np.clip(((v - lo) / (hi - lo) * 3).astype(int), 0, 2)


def _build_digit_world(cfg: DigitWorldConfig) -> dict[str, np.ndarray]:
    train_v, held_v = voice_split(cfg)
    voices = train_v + held_v
    rng = np.random.default_rng(cfg.seed + 1)
    rows = [(v, d, k) for v in range(len(voices)) for d in range(10) for k in range(cfg.draws)]
    rate = rng.integers(cfg.rate[0], cfg.rate[1] + 1, size=len(rows))
    pitch = rng.integers(cfg.pitch[0], cfg.pitch[1] + 1, size=len(rows))
    jobs = [(DIGITS[d], voices[v], int(r), int(p)) for (v, d, _), r, p in zip(rows, rate, pitch, strict=True)]
    waves = espeak.synthesize_many(jobs, cfg.sr, cfg.threads)
    n = int(round(cfg.clip_s * cfg.sr))
    clips = np.zeros((len(rows), n), np.float32)
    for i, w in enumerate(waves):
        w = espeak.trim_silence(w)
        if len(w):
            w = w * (0.5 / np.max(np.abs(w)))
        clips[i] = fit_length(w, n)
    arr = np.asarray(rows)
    return {
        "audio": clips,
        "voice": arr[:, 0].astype(np.int32),
        "digit": arr[:, 1].astype(np.int32),
        "draw": arr[:, 2].astype(np.int32),
        "rate": rate.astype(np.int32),
        "pitch": pitch.astype(np.int32),
        "heldout": (arr[:, 0] >= len(train_v)),
        "voice_names": np.asarray(voices),
    }


def digit_world(cfg: DigitWorldConfig, cache_dir: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """The digit world (arrays keyed ``audio [n, N]``, ``voice``, ``digit``, ``draw``, ``rate``, ``pitch``,
    ``heldout``, ``voice_names``), loaded from or saved to ``cache_dir/digits-<hash>.npz``."""
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    key = config_hash("digit_world/v2", cfg, espeak.list_variants(), espeak.backend_id())
    return cached_npz(cache / f"digits-{key}.npz", lambda: _build_digit_world(cfg))


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def cached_npz(
    path: Path,
    build: Callable[[], dict[str, np.ndarray]],
    read: Callable[[Path], dict[str, np.ndarray]] = _read_npz,
) -> dict[str, np.ndarray]:
    """``read(path)`` when the cache file exists, else ``build()``, saved to ``path`` atomically (tmp + rename)."""
    if path.exists():
        return read(path)
    world = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **world)
    os.replace(tmp, path)
    return world


def analysis_texts(world: dict[str, np.ndarray], cfg: DigitWorldConfig) -> list[str]:
    """The analysis text of every clip: the digit word [+ " | pitch:… | rate:…"]."""
    out = []
    p = tertile(world["pitch"], *cfg.pitch)
    r = tertile(world["rate"], *cfg.rate)
    for i, d in enumerate(world["digit"]):
        text = DIGITS[int(d)]
        if cfg.analysis_text == "digit+attributes":
            text += f" | {PITCH_WORDS[p[i]]} | {RATE_WORDS[r[i]]}"
        out.append(text)
    return out


def text_targets(texts: list[str]) -> np.ndarray:
    """``[n, L]`` ids: each text followed by <eos>, right-padded with <pad> to the longest."""
    ids = [encode_text(t) + [EOS] for t in texts]
    length = max(len(i) for i in ids)
    return np.asarray([i + [0] * (length - len(i)) for i in ids], np.int32)


def mixture(world: dict[str, np.ndarray], mix: MixConfig, sr: int) -> dict[str, np.ndarray]:
    """U1's training and held-out clips: ``train [3·n_train, N]``, ``eval [3·n_eval, N]``, ``eval_domain``."""
    n = int(round(mix.clip_s * sr))
    rng = np.random.default_rng(mix.seed)
    train_idx = np.nonzero(~world["heldout"])[0]
    held_idx = np.nonzero(world["heldout"])[0]
    replace = len(train_idx) < mix.n_train_per_domain
    sp_train = world["audio"][rng.choice(train_idx, mix.n_train_per_domain, replace=replace)]
    sp_eval = world["audio"][rng.choice(held_idx, mix.n_eval_per_domain, replace=False)]
    crop = lambda a: np.stack([fit_length(x, n) for x in a])  # noqa: E731
    snd_tr, _ = procedural.sound_clips(mix.n_train_per_domain, n, sr, mix.seed * 1000 + 1)
    mus_tr, _ = procedural.music_clips(mix.n_train_per_domain, n, sr, mix.seed * 1000 + 2)
    snd_ev, _ = procedural.sound_clips(mix.n_eval_per_domain, n, sr, mix.seed * 1000 + 3)
    mus_ev, _ = procedural.music_clips(mix.n_eval_per_domain, n, sr, mix.seed * 1000 + 4)
    train = np.concatenate([crop(sp_train), snd_tr, mus_tr]).astype(np.float32)
    ev = np.concatenate([crop(sp_eval), snd_ev, mus_ev]).astype(np.float32)
    dom = np.repeat(np.arange(3), mix.n_eval_per_domain).astype(np.int32)
    return {"train": train, "eval": ev, "eval_domain": dom}


DOMAINS = ("speech", "sound", "music")
