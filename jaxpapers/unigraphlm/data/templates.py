"""Every sentence template of the suite in one place (LM corpus, Stage-B prompts, Stage-A texts).

Stage-B prompts mirror the corpus's text-QA format so the K graph tokens sit where words sat during LM
pretraining: ``<bos> text : <graph>×K . options : L1 … L5 answer : A <eos>`` (node),
``… . related ? answer : yes|no`` (link), ``… . ring6 ? answer : yes|no`` and
``… . rings ? options : zero one two answer : k`` (graph). Stage-A texts never contain label words.
"""

from __future__ import annotations

RING_COUNT_WORDS = ("zero", "one", "two")


def option_qa(body: list[str], options: list[str], answer: str | None) -> list[str]:
    tail = [answer] if answer is not None else []  # nothing follows the answer
    return ["<bos>", "text", ":", *body, ".", "options", ":", *options, "answer", ":", *tail]


def yes_no(body: list[str], question: str, answer: str | None) -> list[str]:
    tail = [answer] if answer is not None else []  # nothing follows the answer
    return ["<bos>", "text", ":", *body, ".", question, "?", "answer", ":", *tail]


def ring_count(body: list[str], answer: str | None) -> list[str]:
    tail = [answer] if answer is not None else []  # nothing follows the answer
    return ["<bos>", "text", ":", *body, ".", "rings", "?", "options", ":", *RING_COUNT_WORDS, "answer", ":", *tail]


def topic_sentence(label: str, words: list[str]) -> list[str]:
    return ["<bos>", label, "is", "about", *words, "<eos>"]


def description(words: list[str]) -> list[str]:
    """A Stage-A text: ``<bos> words <eos>`` (the NOI's own words; see ``synthetic.stage_a_text``)."""
    return ["<bos>", *words, "<eos>"]
