"""The attribute world, a ``full``-preset world (spec "Claims to reproduce" preamble; §Data "Speech").

The spec keeps "the former 1–3-digit attribute world (clips up to 3 s, a second analysis branch)" for the
``full`` preset only, and §Data says how to build such speech: synthesise words separately and join them
with 50–150 ms gaps, which gives exact word boundaries. Our reading, all of it built offline:

* voices: the digit world's split (sorted espeak-ng variants without spaces, permuted with ``seed``, the
  last ``n_heldout`` of the first ``n_voices`` held out), so held-out voices mean the same thing in both worlds;
* per voice, ``utterances`` utterances of n ~ U{1..max_words} random digits; ONE (rate, pitch) draw per
  utterance (rate 120–230, pitch 20–80), shared by its words, each word synthesised by its own espeak-ng
  call, trimmed of silence and joined by gaps drawn uniformly from ``gap_ms``;
* the utterance is peak-normalised to 0.5 and centred in ``clip_s`` (3.2 s: whole reconstruction frames
  and analysis tokens for both the toy 16 kHz and the paper 24 kHz hops);
* texts: transcript = the digit words; analysis text = transcript + " | pitch:{low,mid,high} |
  rate:{slow,mid,fast}" (tertiles of the drawn -p/-s values, as the digit world's attribute suffix), so the
  analysis text carries what the transcript lacks (spec Pitfalls, U5).

Arrays (:func:`attribute_world`): ``audio [n, N]``, ``voice``, ``n_words``, ``digits [n, W]`` (−1 past
``n_words``), ``word_start``/``word_end [n, W]`` (sample offsets in the clip, −1 past ``n_words``; word w
is ``audio[i, start:end]``), ``rate``, ``pitch``, ``heldout``, ``voice_names``. Cached on disk as
``attributes-<config hash>.npz`` like the digit world; :func:`load_world` reads (and checks) such a file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.config import AttributeWorldConfig
from jaxpapers.unialm.data import espeak
from jaxpapers.unialm.data.worlds import (
    DIGITS,
    PITCH_WORDS,
    RATE_WORDS,
    cached_npz,
    config_hash,
    default_cache_dir,
    tertile,
    voice_split,
)

KEYS: tuple[str, ...] = (
    "audio",
    "voice",
    "n_words",
    "digits",
    "word_start",
    "word_end",
    "rate",
    "pitch",
    "heldout",
    "voice_names",
)
PEAK = 0.5


def assemble(
    words: Sequence[np.ndarray], gaps: Sequence[int] | np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joins trimmed word waveforms with ``gaps`` (samples of silence between consecutive words), peak-normalises
    to 0.5 and centres the result in ``n`` samples. Returns ``(clip [n], starts [W], ends [W])``: word w is
    ``clip[starts[w]:ends[w]]`` exactly. Raises if the utterance does not fit in ``n`` samples."""
    if len(gaps) != max(len(words) - 1, 0):
        raise ConfigError(f"gaps has {len(gaps)} entries; {len(words)} words need {max(len(words) - 1, 0)}")
    total = sum(len(w) for w in words) + int(sum(gaps))
    if total > n:
        raise ConfigError(
            f"an utterance of {total} samples does not fit in a clip of n={n}; raise attributes.clip_s "
            "(or narrow attributes.rate / attributes.max_words)"
        )
    peak = max((float(np.max(np.abs(w))) for w in words if len(w)), default=0.0)
    scale = PEAK / peak if peak > 0 else 1.0
    clip = np.zeros(n, np.float32)
    starts, ends = np.zeros(len(words), np.int64), np.zeros(len(words), np.int64)
    pos = (n - total) // 2
    for i, w in enumerate(words):
        starts[i], ends[i] = pos, pos + len(w)
        clip[pos : pos + len(w)] = np.asarray(w, np.float32) * scale
        pos += len(w) + (int(gaps[i]) if i < len(gaps) else 0)
    return clip, starts, ends


def draw_utterances(cfg: AttributeWorldConfig, n_voices: int) -> dict[str, np.ndarray]:
    """The random part of the world (no audio): per utterance its voice, digits, rate, pitch and gaps (samples)."""
    rng = np.random.default_rng(cfg.seed + 2)
    n = n_voices * cfg.utterances
    voice = np.repeat(np.arange(n_voices), cfg.utterances)
    n_words = rng.integers(1, cfg.max_words + 1, size=n)
    digits = rng.integers(0, 10, size=(n, cfg.max_words))
    digits[np.arange(cfg.max_words)[None, :] >= n_words[:, None]] = -1
    rate = rng.integers(cfg.rate[0], cfg.rate[1] + 1, size=n)
    pitch = rng.integers(cfg.pitch[0], cfg.pitch[1] + 1, size=n)
    gap_ms = rng.integers(cfg.gap_ms[0], cfg.gap_ms[1] + 1, size=(n, max(cfg.max_words - 1, 1)))
    gaps = (gap_ms * cfg.sr) // 1000
    return {"voice": voice, "n_words": n_words, "digits": digits, "rate": rate, "pitch": pitch, "gaps": gaps}


def build_attribute_world(cfg: AttributeWorldConfig) -> dict[str, np.ndarray]:
    """Synthesises the world (one espeak-ng call per word, ``cfg.threads`` at a time); no cache."""
    train_v, held_v = voice_split(cfg)
    voices = train_v + held_v
    u = draw_utterances(cfg, len(voices))
    jobs, index = [], []
    for i in range(len(u["voice"])):
        for w in range(int(u["n_words"][i])):
            index.append((i, w))
            jobs.append((DIGITS[u["digits"][i, w]], voices[u["voice"][i]], int(u["rate"][i]), int(u["pitch"][i])))
    waves = espeak.synthesize_many(jobs, cfg.sr, cfg.threads)
    per_utt: list[list[np.ndarray]] = [[] for _ in u["voice"]]
    for (i, _), wave in zip(index, waves, strict=True):
        per_utt[i].append(espeak.trim_silence(wave))
    n = int(round(cfg.clip_s * cfg.sr))
    count, width = len(per_utt), cfg.max_words
    audio = np.zeros((count, n), np.float32)
    start, end = np.full((count, width), -1, np.int64), np.full((count, width), -1, np.int64)
    for i, words in enumerate(per_utt):
        clip, s, e = assemble(words, u["gaps"][i, : len(words) - 1], n)
        audio[i], start[i, : len(words)], end[i, : len(words)] = clip, s, e
    return {
        "audio": audio,
        "voice": u["voice"].astype(np.int32),
        "n_words": u["n_words"].astype(np.int32),
        "digits": u["digits"].astype(np.int32),
        "word_start": start,
        "word_end": end,
        "rate": u["rate"].astype(np.int32),
        "pitch": u["pitch"].astype(np.int32),
        "heldout": u["voice"] >= len(train_v),
        "voice_names": np.asarray(voices),
    }


def load_world(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Reads a cached world file, checking that it is a readable ``.npz`` with every key of :data:`KEYS` and
    consistent row counts (one clear error naming the file otherwise)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"attribute-world file {str(path)!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as f:
            world = {k: f[k] for k in f.files}
    except Exception as e:  # noqa: BLE001 - zip/npy errors of a truncated or foreign file, reported in one line
        msg = f"attribute-world file {str(path)!r} is not a readable .npz ({type(e).__name__}: {e})"
        raise ConfigError(msg) from None
    missing = [k for k in KEYS if k not in world]
    if missing:
        raise ConfigError(f"attribute-world file {str(path)!r} lacks {missing}; expected keys {list(KEYS)}")
    n = len(world["audio"])
    bad = [k for k in KEYS if k != "voice_names" and len(world[k]) != n]
    if bad or world["audio"].ndim != 2:
        raise ConfigError(
            f"attribute-world file {str(path)!r}: audio must be [n, samples] and {bad or KEYS} must have n={n} rows"
        )
    return world


def attribute_world(cfg: AttributeWorldConfig, cache_dir: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """The attribute world, loaded from or saved to ``cache_dir/attributes-<config hash>.npz``."""
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    key = config_hash("attribute_world/v2", cfg, espeak.list_variants(), espeak.backend_id())
    path = cache / f"attributes-{key}.npz"
    return cached_npz(path, lambda: build_attribute_world(cfg), load_world)


def texts(world: dict[str, np.ndarray], cfg: AttributeWorldConfig, *, attributes: bool = True) -> list[str]:
    """Per utterance: the transcript (digit words), followed by " | pitch:… | rate:…" when ``attributes``."""
    p, r = tertile(world["pitch"], *cfg.pitch), tertile(world["rate"], *cfg.rate)
    out = []
    for i in range(len(world["audio"])):
        t = " ".join(DIGITS[d] for d in world["digits"][i, : world["n_words"][i]])
        if attributes:
            t += f" | {PITCH_WORDS[p[i]]} | {RATE_WORDS[r[i]]}"
        out.append(t)
    return out
