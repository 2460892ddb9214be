"""The text-only reader on tiny shards the tests write: documents, tokenizers, packing and clear errors."""

import json

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import lm
from jaxpapers.unialm.data import text
from jaxpapers.unialm.sequence import Vocab

CFG = lm.UniALMConfig(text_vocab=300, codebooks=2, analysis_codes=4, recon_codes=4)


@pytest.fixture
def shards(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n\nwörld\n", encoding="utf-8")
    rows = [{"text": "jsonl doc", "id": 1}, {"text": "   "}, {"text": "second"}]
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("ignored")
    return tmp_path


def test_documents_come_in_shard_and_line_order(shards):
    assert text.read_documents(shards) == ["hello", "wörld", "jsonl doc", "second"]
    assert text.read_documents(shards / "b.jsonl") == ["jsonl doc", "second"]


def test_byte_tokenizer_packs_documents_into_fixed_length_sequences(shards):
    docs = text.read_documents(shards)
    out = text.text_only_arrays(docs, text.load_tokenizer(None), CFG, length=16)
    vocab = Vocab(CFG)
    # each document is <text> bytes </text>; "hello" (7 frames) and "wörld" (8: ö is two bytes) share one sequence
    seq0 = out["frames"][0, :, -1]
    want = [vocab.text("<text>"), *b"hello", vocab.text("</text>"), vocab.text("<text>"), *"wörld".encode(),
            vocab.text("</text>")]  # fmt: skip
    np.testing.assert_array_equal(seq0[: len(want)], want)
    assert out["frames"].shape == (3, 16, 3) and out["valid"].sum() == sum(len(d.encode()) + 2 for d in docs)
    assert (out["loss_mask"][..., -1] == out["valid"]).all() and not out["audio"].any()


def test_a_long_document_is_cut_into_sequence_sized_pieces():
    out = text.text_only_arrays(["x" * 30], text.ByteTokenizer(), CFG, length=12)
    assert out["valid"].sum(1).tolist() == [12, 12, 12]  # pieces of 10 tokens, each between its two tags


def test_a_tokenizer_file_is_read_with_the_tokenizers_package(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, "hello": 1, "world": 2}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.save(str(tmp_path / "tokenizer.json"))
    loaded = text.load_tokenizer(tmp_path / "tokenizer.json")
    assert list(loaded.encode("hello world zzz")) == [1, 2, 0]


def test_bad_inputs_name_the_problem(tmp_path):
    with pytest.raises(ConfigError, match="does not exist; pass a .txt/.jsonl file"):
        text.read_documents(tmp_path / "missing")
    (tmp_path / "bad.jsonl").write_text('{"text": "ok"}\n{not json\n')
    with pytest.raises(ConfigError, match="bad.jsonl:2 is not valid JSON"):
        text.read_documents(tmp_path / "bad.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"body": "no text field"}\n')
    with pytest.raises(ConfigError, match="bad.jsonl:1 has no string field 'text'"):
        text.read_documents(tmp_path)
    with pytest.raises(ConfigError, match="tokenizer file .* does not exist"):
        text.load_tokenizer(tmp_path / "nope.json")
    small = lm.UniALMConfig(text_vocab=100, codebooks=2, analysis_codes=4, recon_codes=4)
    with pytest.raises(ConfigError, match="token id 195; this model's ordinary text ids are \\[0, 81\\)"):
        text.text_only_arrays(["é"], text.ByteTokenizer(), small, length=8)
    with pytest.raises(ConfigError, match="length=2 cannot hold"):
        text.text_only_arrays(["a"], text.ByteTokenizer(), CFG, length=2)
