"""Procedural user records with planted secrets, a byte tokeniser, and the real-data loader (setting A).

Quick records: ``name: Rovi Talemo; password: marlo42!\\n``; full records add e-mail and phone. Passwords come
from a candidate list of ``k_pw`` generated strings (syllable word + 0–3 digits + optional symbol). Each user
belongs to a prior group: 0 = Zipf(s) over a random permutation of the candidates, 1 = uniform. Secrets are drawn
fresh and independently per run; public users are a disjoint population drawn from the same priors.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
from jaxtyping import Bool, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.dp_bounds.lm import BOS  # the start-of-record byte, shared with the model
from jaxpapers.dp_bounds.priors import uniform_prior, zipf_prior

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
SYMBOLS = "!#$%&*?@"
PII_TYPES = ("phone", "email", "password", "name")


def syllables(n: int = 60, seed: int = 0) -> list[str]:
    """``n`` distinct consonant-vowel syllables."""
    all_cv = [c + v for c in CONSONANTS for v in VOWELS]
    check_range("n", n, 1, len(all_cv))
    rng = np.random.default_rng(seed)
    return [all_cv[i] for i in rng.permutation(len(all_cv))[:n]]


def password_candidates(k: int, seed: int = 0) -> list[str]:
    """``k`` distinct passwords: a 2–3 syllable word + 0–3 digits + an optional symbol (≤ 10 bytes)."""
    check_range("k", k, 1, 100_000)
    rng, syl = np.random.default_rng(seed + 1), syllables(60, seed)
    out: dict[str, None] = {}
    while len(out) < k:
        word = "".join(syl[i] for i in rng.integers(0, len(syl), rng.integers(2, 4)))
        digits = "".join(str(d) for d in rng.integers(0, 10, rng.integers(0, 4)))
        sym = SYMBOLS[rng.integers(len(SYMBOLS))] if rng.random() < 0.5 else ""
        out[word + digits + sym] = None
    return list(out)


@dataclasses.dataclass(frozen=True)
class Population:
    """Users of one population: names, prior group (0 Zipf, 1 uniform) and secret index into the candidates."""

    names: list[str]
    group: np.ndarray  # [n] int
    secret: np.ndarray  # [n] int


def draw_population(
    n: int, candidates: list[str], priors: np.ndarray, rng: np.random.Generator, taken: set[str] | None = None
) -> Population:
    """``n`` users with distinct names (not in ``taken``), half per prior group, secrets drawn i.i.d. per user.

    ``priors`` is ``[2, K]``: row 0 the Zipf prior, row 1 the uniform prior."""
    check_range("n", n, 1)
    syl, taken = syllables(60), set() if taken is None else set(taken)
    names: list[str] = []
    while len(names) < n:
        first = "".join(syl[i] for i in rng.integers(0, len(syl), 2)).capitalize()
        last = "".join(syl[i] for i in rng.integers(0, len(syl), rng.integers(2, 4))).capitalize()
        name = f"{first} {last}"
        if name not in taken:
            taken.add(name)
            names.append(name)
    group = (np.arange(n) >= n // 2).astype(np.int64)
    secret = np.array([rng.choice(len(candidates), p=priors[g]) for g in group])
    return Population(names, group, secret)


def make_priors(k_pw: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """``[2, K]``: the Zipf(s) prior over a random permutation of the candidates, and the uniform prior."""
    return np.stack([zipf_prior(k_pw, s, rng), uniform_prior(k_pw)])


def record_prefix(name: str) -> str:
    """Everything before the password: what the attacker conditions on."""
    return f"name: {name}; password: "


def record_text(name: str, password: str) -> str:
    """The quick-preset record of one user."""
    return record_prefix(name) + password + "\n"


def encode(
    texts: list[str], context: int
) -> tuple[Int[np.ndarray, "n c"], Int[np.ndarray, "n c"], Bool[np.ndarray, "n c"]]:
    """Byte-tokenises ``[BOS] + text`` to inputs x, next-token targets y and a loss mask over the whole record."""
    check_range("context", context, 2)
    n = len(texts)
    seq = np.zeros((n, context + 1), np.int32)
    mask = np.zeros((n, context), bool)
    for i, t in enumerate(texts):
        b = t.encode("utf-8")
        if len(b) + 1 > context:
            raise ConfigError(f"texts[{i}] has {len(b)} bytes; the context {context} allows at most {context - 1}")
        seq[i, 0] = BOS
        seq[i, 1 : len(b) + 1] = np.frombuffer(b, np.uint8)
        mask[i, : len(b)] = True
    return seq[:, :-1], seq[:, 1:], mask


class RecordSource:
    """A random-access data source over records (the ``grain.MapDataSource`` protocol: ``len`` and ``[i]``)."""

    def __init__(self, texts: list[str], context: int):
        self.x, self.y, self.mask = encode(texts, context)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict[str, np.ndarray]:
        return {"x": self.x[i], "y": self.y[i], "mask": self.mask[i]}


def load_pii_jsonl(path: str | os.PathLike) -> list[dict]:
    """Reads a user-supplied corpus: one JSON object per line, ``{"text": str, "pii": [{"type", "start", "end"}]}``.

    Returns the parsed lines; raises ConfigError naming the file, line and field of the first malformed entry."""
    if not os.path.exists(path):
        raise ConfigError(f"path={str(path)!r} does not exist; expected a newline-delimited JSON file")
    out = []
    with open(path, encoding="utf-8") as fh:
        for ln, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ConfigError(f"{path}:{ln}: not valid JSON ({e.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise ConfigError(f'{path}:{ln}: field "text" is missing or not a string')
            spans = obj.get("pii", [])
            if not isinstance(spans, list):
                raise ConfigError(f'{path}:{ln}: field "pii" must be a list of spans')
            for j, s in enumerate(spans):
                if not isinstance(s, dict) or not {"type", "start", "end"} <= set(s):
                    raise ConfigError(f'{path}:{ln}: pii[{j}] must have "type", "start" and "end"')
                check_choice(f"{path}:{ln}: pii[{j}].type", s["type"], PII_TYPES)
                if not (isinstance(s["start"], int) and isinstance(s["end"], int)):
                    raise ConfigError(f"{path}:{ln}: pii[{j}] start/end must be integers")
                if not 0 <= s["start"] < s["end"] <= len(obj["text"]):
                    raise ConfigError(
                        f"{path}:{ln}: pii[{j}] span [{s['start']}, {s['end']}) is out of range; "
                        f"allowed within [0, {len(obj['text'])}]"
                    )
            out.append({"text": obj["text"], "pii": spans})
    return out
