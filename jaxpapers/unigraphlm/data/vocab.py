"""The word-level vocabulary (whitespace, lowercase) and the generated words (spec, Data).

48 topics × 5 pseudo-words (the first is the topic's *label word*), 150 generic words, molecule words, task and
template words, and the specials ``<pad> <bos> <eos> <unk> <graph>``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.errors import ConfigError

SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>", "<graph>")
PAD, BOS, EOS, UNK, GRAPH = range(5)
N_TOPICS, WORDS_PER_TOPIC, N_GENERIC = 48, 5, 150
ATOMS = ("c", "n", "o", "s", "cl")
MOTIFS = ("ring5", "ring6", "chain", "branch")
TEMPLATE = ("text", ":", ".", "options", "answer", "related", "?", "yes", "no", "molecule", "has", "rings",
            "zero", "one", "two", "is", "about", "and")


def topic_word(topic: int, j: int) -> str:
    """Word ``j`` of ``topic`` (``j = 0`` is the label word)."""
    return f"t{topic:02d}{'abcde'[j]}"


@dataclasses.dataclass(frozen=True)
class Vocab:
    """Word list and lookup: ``encode("text : t00b")`` -> ids, ``decode(ids)`` -> words."""

    words: tuple[str, ...]

    def __post_init__(self):
        if len(set(self.words)) != len(self.words):
            raise ConfigError("Vocab: words must be distinct")
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.words)})
        topics = np.array([[self._index.get(topic_word(t, j), UNK) for j in range(WORDS_PER_TOPIC)]
                           for t in range(N_TOPICS)])
        object.__setattr__(self, "_topics", topics)
        object.__setattr__(self, "_generic", np.array([self._index.get(f"g{i:03d}", UNK) for i in range(N_GENERIC)]))

    def __len__(self) -> int:
        return len(self.words)

    def id(self, word: str) -> int:
        return self._index.get(word.lower(), UNK)

    def encode(self, text: str | list[str]) -> np.ndarray:
        toks = text.lower().split() if isinstance(text, str) else [w.lower() for w in text]
        return np.array([self.id(w) for w in toks], np.int32)

    def decode(self, ids) -> list[str]:
        return [self.words[int(i)] for i in ids]

    def topic_ids(self) -> np.ndarray:
        """``[48, 5]`` ids of the topic words (column 0: label words)."""
        return self._topics

    def generic_ids(self) -> np.ndarray:
        return self._generic


def default_vocab() -> Vocab:
    """The suite's vocabulary (|W| = 5 + 240 + 150 + 9 + 18 = 422)."""
    topics = [topic_word(t, j) for t in range(N_TOPICS) for j in range(WORDS_PER_TOPIC)]
    generic = [f"g{i:03d}" for i in range(N_GENERIC)]
    return Vocab(tuple([*SPECIALS, *topics, *generic, *ATOMS, *MOTIFS, *TEMPLATE]))


def pad_tokens(seqs: list[np.ndarray], length: int, what: str = "sequence") -> np.ndarray:
    """Right-pads token sequences to ``length`` with ``<pad>``; refuses (never truncates) a longer one."""
    out = np.full((len(seqs), length), PAD, np.int32)
    for i, s in enumerate(seqs):
        if len(s) > length:
            raise ConfigError(f"{what} {i} has {len(s)} tokens, more than the context {length}; raise data.context")
        out[i, : len(s)] = s
    return out
