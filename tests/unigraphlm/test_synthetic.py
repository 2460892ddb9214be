"""The generated suite at tiny size: leakage, balance, distinct Stage-A texts, determinism (spec, Pitfalls)."""

import functools

import numpy as np
import pytest

from jaxpapers.unigraphlm.config import DataConfig
from jaxpapers.unigraphlm.data.synthetic import (
    BUCKETS,
    TOPICS,
    make_tag_suite,
    molecule,
    stage_a_pairs,
    text_hash,
    word_codes,
)
from jaxpapers.unigraphlm.data.vocab import GRAPH, default_vocab

TINY = DataConfig(n_citation=40, n_pretrain=40, n_social=40, n_molecules=40, links_per_dataset=40, corpus_size=200)


@functools.cache
def suite(seed=0):
    return make_tag_suite(TINY, seed)


def test_label_words_never_in_node_text_or_stage_a_texts():
    s = suite()
    label_ids = set(s.vocab.topic_ids()[:, 0].tolist())
    for g in s.datasets.values():
        assert not any(set(w.tolist()) & label_ids for w in g.words)
    assert not (set(np.unique(s.pairs.tokens).tolist()) & label_ids)


def test_stage_a_texts_are_mostly_distinct_and_c2_graphs_absent_in_strict_mode():
    s = suite()
    assert len(np.unique(s.pairs.extra["text_hash"])) >= 0.9 * len(s.pairs)
    np.testing.assert_array_equal(s.pairs.extra["text_hash"], text_hash(s.pairs.tokens))
    strict, trans = stage_a_pairs(s, "strict"), stage_a_pairs(s, "transductive")
    assert not any(str(i).startswith("c2/") for i in strict.ids)
    assert sum(str(i).startswith("c2/") for i in trans.ids) == TINY.n_citation
    assert len(strict) == len(trans) - TINY.n_citation
    # leakage by sample-id hash: no Stage-B training sample is a C2 sample, in either mode
    train = {hash(i) for i in s.instructions.ids[s.instructions.split == 0]}
    assert not train & {hash(i) for i in s.instructions.ids if str(i).startswith("c2/")}


def test_yes_no_test_sets_are_balanced_and_c2_is_all_test():
    s = suite()
    inst = s.instructions
    for b in ("c1_link", "s1_link", "m1_ring6"):
        sel = (inst.bucket == BUCKETS.index(b)) & (inst.split == 2)
        assert sel.sum() > 0 and abs(inst.extra["label"][sel].mean() - 0.5) <= 0.1, b
    c2 = inst.bucket == BUCKETS.index("c2_node")
    assert c2.sum() == TINY.n_citation and np.all(inst.split[c2] == 2)
    train_ids = set(inst.ids[inst.split == 0].tolist())
    assert not any(i.startswith("c2/") for i in train_ids)


def test_answers_are_candidates_and_follow_the_graph_tokens():
    s = suite()
    inst = s.instructions
    rows = np.arange(len(inst))
    assert np.all(inst.extra["cands"][rows, inst.extra["answer_idx"]] == inst.extra["answer"])
    assert np.all(inst.tokens[rows, inst.extra["answer_pos"] + 1] == inst.extra["answer"])
    n_graph = (inst.tokens == GRAPH).sum(1)
    assert np.all(n_graph == 4)
    first_graph = (inst.tokens == GRAPH).argmax(1)
    assert np.all(first_graph < inst.extra["answer_pos"])  # inserted, not appended after the answer
    assert not np.any(inst.extra["text_tokens"] == GRAPH)


def test_option_order_is_shuffled():
    s = suite()
    node = s.instructions.bucket == BUCKETS.index("c1_node")
    assert len(np.unique(s.instructions.extra["answer_idx"][node])) >= 3


def test_molecule_ring_labels_match_the_graph():
    """Cyclomatic number E − N + 1 of the (connected) molecule equals its ring count; has6 has a 6-cycle."""
    rng = np.random.default_rng(0)
    for i in range(30):
        has6, rings = bool(i % 2), (i // 2) % 3
        rings = max(rings, int(has6))
        atoms, bonds, motifs = molecule(rng, has6, rings)
        assert 10 <= len(atoms) <= 30
        assert len(bonds) - len(atoms) + 1 == rings
        assert ("ring6" in motifs) == has6


def test_suite_is_deterministic_and_features_are_not_lm_embeddings():
    a, b = suite(0), make_tag_suite(TINY, 0)
    np.testing.assert_array_equal(a.corpus, b.corpus)
    np.testing.assert_array_equal(a.instructions.graph["nodes"], b.instructions.graph["nodes"])
    assert not np.array_equal(a.instructions.graph["nodes"], suite(1).instructions.graph["nodes"])
    np.testing.assert_array_equal(a.codes, word_codes(len(default_vocab()), TINY.feature_dim, 0))


def test_topics_of_source_and_held_out_sets_are_disjoint():
    assert not set(TOPICS["c1"]) & set(TOPICS["c2"]) and not set(TOPICS["s1"]) & set(TOPICS["c2"])
    s = suite()
    assert set(np.unique(s.datasets["c2"].topic)) <= set(TOPICS["c2"])


@pytest.mark.parametrize("field", ["n_citation", "corpus_size"])
def test_bad_sizes_raise(field):
    from jaxpapers.core.errors import ConfigError

    with pytest.raises(ConfigError, match=field):
        DataConfig(**{field: 2})
