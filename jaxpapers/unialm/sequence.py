"""UniALM's sequence layer (spec §3 "Per-codebook audio id layout", §4 "Task formats and composed sequences").

An example is an ordered list of :class:`Segment` s; :func:`render` turns it into frames ``[n, Q+1]`` (Q audio
columns, then the text column), the audio-stream flag ``[n]`` and the loss mask ``[n, Q+1]``:

* a text segment is [open tag, ids, close tag] in the text column (its audio columns hold A_PAD);
* an A segment is [A_BOS, codes (T_a × Q_a, padded to Q columns with A_PAD), A_EOS];
* an R segment is [R_BOS, codes + V_A (padded with R_PAD), R_EOS]; an audio prompt is an R segment between
  P_BOS and P_EOS frames;
* the loss mask is 1 on every frame of a target segment (its tags or BOS/EOS frames included), in the text
  column for text and in all Q audio columns for audio, 0 elsewhere.

:func:`format_example` builds the segments of each task of :data:`TASK_FORMATS`; :func:`cfg_drop` replaces the
non-target segments of a generation example by pad ids (classifier-free guidance training); :func:`pack` composes
examples into one sequence (positions continue across examples) and :func:`collate` pads to a fixed shape.
Every id is range-checked on the host (:func:`check_frames`): under ``jit`` an out-of-range id is clamped or
gives NaN silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.lm import AUDIO_SPECIALS, RECON_SPECIALS, UniALMConfig

TEXT_SPECIALS = ("<pad>", "<bos>", "<eos>", "<prompt>", "</prompt>")
TEXT_TAGS = ("transcription", "caption", "lyric", "answer", "text", "question", "style")
SEGMENT_KINDS = ("text", "A", "R", "P")


@dataclasses.dataclass(frozen=True)
class Vocab:
    """Every reserved id of a :class:`UniALMConfig`: audio specials per codebook (spec §3), then the text
    specials and tags at the top of the text vocabulary (``<tag>`` and ``</tag>`` for each of :data:`TEXT_TAGS`)."""

    cfg: UniALMConfig

    def __post_init__(self) -> None:
        if self.cfg.text_vocab <= self.reserved_text:
            raise ConfigError(
                f"text_vocab={self.cfg.text_vocab} leaves no room for ordinary tokens beside the "
                f"{self.reserved_text} reserved text ids; allowed: text_vocab > {self.reserved_text}"
            )

    def audio(self, name: str) -> int:
        """The per-codebook id of an audio special (A_BOS, A_EOS, A_PAD, P_BOS, P_EOS, R_BOS, R_EOS, R_PAD)."""
        if name in AUDIO_SPECIALS:
            return self.cfg.analysis_codes + AUDIO_SPECIALS.index(name)
        check_choice("audio special", name, AUDIO_SPECIALS + RECON_SPECIALS)
        return self.cfg.analysis_vocab + self.cfg.recon_codes + RECON_SPECIALS.index(name)

    @property
    def reserved_text(self) -> int:
        return len(TEXT_SPECIALS) + 2 * len(TEXT_TAGS)

    @property
    def ordinary_text(self) -> int:
        """Text ids ``[0, ordinary_text)`` are ordinary tokens; the reserved ones follow."""
        return self.cfg.text_vocab - self.reserved_text

    def text(self, name: str) -> int:
        """The id of a text special (``<pad>``, ``<bos>``, ...) or tag (``<caption>``, ``</caption>``, ...)."""
        names = TEXT_SPECIALS + tuple(f"<{s}{t}>" for t in TEXT_TAGS for s in ("", "/"))
        check_choice("text special", name, names)
        return self.ordinary_text + names.index(name)


@dataclasses.dataclass(frozen=True)
class Segment:
    """One segment: ``kind`` text (``ids`` [n] ordinary text ids, wrapped in ``<tag>``…``</tag>``), A (analysis
    codes [T, Q_a]), R (recon codes [T, Q_r]) or P (an audio prompt: recon codes between P_BOS and P_EOS);
    ``target``: the segment enters the loss."""

    kind: str
    ids: np.ndarray
    tag: str = "text"
    target: bool = False

    def __post_init__(self) -> None:
        check_choice("segment kind", self.kind, SEGMENT_KINDS)


# task -> segment kinds of its parts (in order) and which parts are targets (spec §4, the public task registry).
TASK_FORMATS: dict[str, tuple[tuple[str, ...], tuple[bool, ...]]] = {
    "asr": (("A", "R", "text"), (False, False, True)),
    "lyric": (("A", "R", "text"), (False, False, True)),
    "caption": (("A", "R", "text"), (False, False, True)),
    "tts": (("text", "A", "R"), (False, True, True)),
    "tta": (("text", "A", "R"), (False, True, True)),
    "ttm": (("text", "A", "R"), (False, True, True)),
    "song": (("text", "A", "R"), (False, True, True)),
    "instruct_tts": (("text", "text", "A", "R"), (False, False, True, True)),
    "prompted_tts": (("P", "text", "text", "A", "R"), (False, False, False, True, True)),
    "audio_qa": (("text", "A", "R", "text"), (False, False, False, True)),
    "s2s": (("A", "R", "A", "R"), (False, False, True, True)),
    "edit": (("A", "R", "text", "A", "R"), (False, False, False, True, True)),
    "separation": (("A", "R", "A", "R", "A", "R"), (False, False, True, True, True, True)),
    "reason_to_recon": (("A", "R"), (False, True)),
    "recon_to_reason": (("R", "A"), (False, True)),
    "audio_only": (("A", "R"), (True, True)),
    "text_only": (("text",), (True,)),
}
GENERATION_TASKS = frozenset(t for t, (kinds, tgt) in TASK_FORMATS.items() if any(
    k in ("A", "R") and g for k, g in zip(kinds, tgt, strict=True)) and t != "audio_only")  # fmt: skip
_DEFAULT_TAGS = {"asr": "transcription", "lyric": "lyric", "caption": "caption", "audio_qa": "answer"}


def format_example(task: str, parts: Sequence[np.ndarray], *, prompt: np.ndarray | None = None) -> list[Segment]:
    """The segments of one ``task`` example from its ``parts`` (in :data:`TASK_FORMATS` order). A task prompt
    (text ids, one of the task's paraphrases) is prepended for every task except text_only and audio_only and
    never enters the loss."""
    check_choice("task", task, tuple(TASK_FORMATS))
    kinds, targets = TASK_FORMATS[task]
    if len(parts) != len(kinds):
        raise ConfigError(f"task {task!r} takes {len(kinds)} parts {kinds}, got {len(parts)}")
    segments = []
    if prompt is not None and task not in ("text_only", "audio_only"):
        segments.append(Segment("text", np.asarray(prompt), tag="prompt"))
    for i, (kind, target, ids) in enumerate(zip(kinds, targets, parts, strict=True)):
        tag = _DEFAULT_TAGS.get(task, "text") if target else ("question" if task == "audio_qa" and i == 0 else "text")
        segments.append(Segment(kind, np.asarray(ids), tag=tag, target=target))
    return segments


def render(segments: Sequence[Segment], cfg: UniALMConfig) -> dict[str, np.ndarray]:
    """``{"frames" int32 [n, Q+1], "audio" bool [n], "loss_mask" bool [n, Q+1]}`` of one example (module docstring)."""
    vocab, q = Vocab(cfg), cfg.codebooks
    a_pad, r_pad, t_pad = vocab.audio("A_PAD"), vocab.audio("R_PAD"), vocab.text("<pad>")
    frames, audio, loss = [], [], []
    for seg in segments:
        if seg.kind == "text":
            open_id, close_id = vocab.text(f"<{seg.tag}>"), vocab.text(f"</{seg.tag}>")
            ids = np.concatenate([[open_id], np.asarray(seg.ids, np.int64).reshape(-1), [close_id]])
            block = np.full((len(ids), q + 1), a_pad, np.int64)
            block[:, q] = ids
            mask = np.zeros_like(block, bool)
            mask[:, q] = seg.target
            frames.append(block), audio.append(np.zeros(len(ids), bool)), loss.append(mask)
            continue
        codes = np.asarray(seg.ids, np.int64)
        if codes.ndim != 2 or codes.shape[1] > q:
            raise ConfigError(f"{seg.kind} segment codes must be [T, ≤ {q}], got shape {codes.shape}")
        recon = seg.kind in ("R", "P")
        pad = r_pad if recon else a_pad
        bos, eos = ("R_BOS", "R_EOS") if recon else ("A_BOS", "A_EOS")
        body = np.full((codes.shape[0], q), pad, np.int64)
        body[:, : codes.shape[1]] = codes + (cfg.analysis_vocab if recon else 0)
        rows = [np.full((1, q), vocab.audio(bos)), body, np.full((1, q), vocab.audio(eos))]
        if seg.kind == "P":
            rows = [np.full((1, q), vocab.audio("P_BOS")), *rows, np.full((1, q), vocab.audio("P_EOS"))]
        block_audio = np.concatenate(rows)
        block = np.concatenate([block_audio, np.full((len(block_audio), 1), t_pad)], axis=1)
        mask = np.zeros_like(block, bool)
        mask[:, :q] = seg.target
        frames.append(block), audio.append(np.ones(len(block), bool)), loss.append(mask)
    out = {"frames": np.concatenate(frames).astype(np.int32), "audio": np.concatenate(audio),
           "loss_mask": np.concatenate(loss)}  # fmt: skip
    check_frames(out["frames"], cfg)
    return out


def check_frames(frames: np.ndarray, cfg: UniALMConfig) -> None:
    """Raises naming the first out-of-range id: every audio column in [0, V), the text column in [0, V_text)
    (both are looked up in their tables at every frame)."""
    q, v = cfg.codebooks, cfg.codebook_vocab
    frames = np.asarray(frames)
    if frames.ndim < 2 or frames.shape[-1] != q + 1:
        raise ConfigError(f"frames must be [..., L, codebooks + 1 = {q + 1}], got shape {frames.shape}")
    for name, ids, hi in (("audio column", frames[..., :q], v), ("text column", frames[..., q], cfg.text_vocab)):
        bad = (ids < 0) | (ids >= hi)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ConfigError(f"{name} id {int(ids[where])} at index {where} is out of range; allowed: [0, {hi})")


def cfg_drop(
    segments: Sequence[Segment], task: str, cfg: UniALMConfig, rng: np.random.Generator, p: float = 0.1
) -> list[Segment]:
    """With probability ``p`` (generation tasks only), every non-target segment, task prompt included, is
    replaced by its stream's pad ids at the same length (text ``<pad>`` inside its tags, audio A_PAD or R_PAD),
    so the model learns the unconditional distribution that CFG uses at inference (spec §4)."""
    if task not in GENERATION_TASKS or rng.uniform() >= p:
        return list(segments)
    vocab = Vocab(cfg)
    r_pad = vocab.audio("R_PAD") - cfg.analysis_vocab  # render() adds V_A to recon codes
    pads = {"text": vocab.text("<pad>"), "A": vocab.audio("A_PAD"), "R": r_pad, "P": r_pad}
    return [
        seg if seg.target else dataclasses.replace(seg, ids=np.full_like(seg.ids, pads[seg.kind])) for seg in segments
    ]


def pack(examples: Sequence[dict[str, np.ndarray]], max_frames: int) -> dict[str, np.ndarray]:
    """Rendered examples concatenated into one sequence of at most ``max_frames`` (positions continue; attention
    crosses example boundaries, as in the paper's composed sequences). Raises when they do not fit."""
    total = sum(len(e["audio"]) for e in examples)
    if total > max_frames:
        raise ConfigError(f"{len(examples)} examples take {total} frames; allowed: at most max_frames={max_frames}")
    return {k: np.concatenate([e[k] for e in examples]) for k in ("frames", "audio", "loss_mask")}


def collate(sequences: Sequence[dict[str, np.ndarray]], length: int, cfg: UniALMConfig) -> dict[str, np.ndarray]:
    """A fixed-shape batch ``[B, length, ...]``: frames padded with text ``<pad>`` frames (audio False, loss 0),
    ``positions`` 0..n−1 then held at the last real position, ``valid`` marks real frames."""
    vocab, q, b = Vocab(cfg), cfg.codebooks, len(sequences)
    frames = np.full((b, length, q + 1), vocab.audio("A_PAD"), np.int32)
    frames[..., q] = vocab.text("<pad>")
    audio, loss = np.zeros((b, length), bool), np.zeros((b, length, q + 1), bool)
    positions, valid = np.zeros((b, length), np.int32), np.zeros((b, length), bool)
    for i, s in enumerate(sequences):
        n = len(s["audio"])
        if n > length:
            raise ConfigError(f"sequence {i} has {n} frames; allowed: at most length={length}")
        frames[i, :n], audio[i, :n], loss[i, :n], valid[i, :n] = s["frames"], s["audio"], s["loss_mask"], True
        positions[i] = np.minimum(np.arange(length), max(n - 1, 0))
    check_frames(frames, cfg)
    return {"frames": frames, "audio": audio, "loss_mask": loss, "positions": positions, "valid": valid}


def random_parts(task: str, cfg: UniALMConfig, rng: np.random.Generator, n_text: int = 4, n_a: int = 3,
                 n_r: int = 5) -> list[np.ndarray]:  # fmt: skip
    """Random parts for ``task``: ordinary text ids, analysis codes [n_a, Q], recon codes [n_r, Q]."""
    vocab = Vocab(cfg)
    kinds, _ = TASK_FORMATS[task]
    sizes = {"text": None, "A": (n_a, cfg.analysis_codes), "R": (n_r, cfg.recon_codes), "P": (n_r, cfg.recon_codes)}
    parts = []
    for kind in kinds:
        if kind == "text":
            parts.append(rng.integers(0, vocab.ordinary_text, int(rng.integers(1, n_text + 1))))
        else:
            t, hi = sizes[kind]
            parts.append(rng.integers(0, hi, (t, cfg.codebooks)))
    return parts


COMPOSE_MODES = ("same_task", "mixed", "interleaved")


def compose(
    mode: str,
    items: Sequence[tuple[str, Any]],
    cfg: UniALMConfig,
    *,
    prompts: Sequence[np.ndarray | None] | None = None,
) -> dict[str, np.ndarray]:
    """One composed sequence (spec §4, stages 3-4), rendered; positions continue across its parts.

    * ``same_task``: ``items`` are (task, parts) of ONE task; the first example carries ``prompts[0]``, the others
      none, and every example's targets are in the loss (in-context few-shot structure, mode a).
    * ``mixed``: (task, parts) of any tasks, each with its own prompt ``prompts[i]`` (mode b).
    * ``interleaved``: ``items`` are (kind, ids) pieces of one utterance in order, kind ``text`` (ids), ``A`` or
      ``R`` (codes), e.g. alternating words or sentences of text and audio; every piece is a target (mode c).
    """
    check_choice("mode", mode, COMPOSE_MODES)
    if not items:
        raise ConfigError("compose needs at least one item; got none")
    prompts = list(prompts) if prompts is not None else [None] * len(items)
    if len(prompts) != len(items):
        raise ConfigError(f"prompts has {len(prompts)} entries; allowed: one per item ({len(items)})")
    segments: list[Segment] = []
    if mode == "interleaved":
        for kind, ids in items:
            check_choice("piece kind", kind, ("text", "A", "R"))
            segments.append(Segment(kind, np.asarray(ids), target=True))
        return render(segments, cfg)
    tasks = {task for task, _ in items}
    if mode == "same_task" and len(tasks) != 1:
        raise ConfigError(f"same_task composes one task; got {sorted(tasks)}")
    for i, (task, parts) in enumerate(items):
        prompt = prompts[0] if mode == "same_task" and i == 0 else (prompts[i] if mode == "mixed" else None)
        segments.extend(format_example(task, parts, prompt=prompt))
    return render(segments, cfg)
