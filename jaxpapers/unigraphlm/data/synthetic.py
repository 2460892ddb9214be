"""The generated text-attributed graph suite (spec, Data), deterministic from a seed.

Datasets: C1 (citation, topics 0–6, source), C2 (citation, topics 7–11, held-out zero-shot), P0 (citation-like,
all 48 topics, Stage A only), S1 (social, topics 12–17, Chung–Lu power-law degrees, homophily 0.55, 15% label
noise) and M1 (molecules of 10–30 atoms from 5/6-rings, chains and branches; the has-6-ring label is drawn first,
50/50). Node text: ``node_words`` words, each from the node's topic's non-label words 2–5 with probability
``p_sig`` (else generic), so the label word never appears in node text. The homogeneous control suite keeps one
domain (C1-like citation), no label noise and a fixed ``p_sig``.

Buckets (domain, task): 0 C1-node, 1 C1-link, 2 S1-node, 3 S1-link, 4 M1-ring6, 5 M1-rings (source), 6 C2-node
(zero-shot, every node tested). Splits 70/10/20, stratified so the yes/no test sets are balanced.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from jaxpapers.unigraphlm.config import DataConfig
from jaxpapers.unigraphlm.data import templates as T
from jaxpapers.unigraphlm.data.batching import (
    ROLE_A,
    ROLE_B,
    ROLE_CONTEXT,
    ROLE_TARGET,
    ego_nodes,
    induced_edges,
    node_features,
    pack_sample,
    stack_samples,
)
from jaxpapers.unigraphlm.data.vocab import ATOMS, Vocab, default_vocab, pad_tokens

BUCKETS = ("c1_node", "c1_link", "s1_node", "s1_link", "m1_ring6", "m1_rings", "c2_node")
SOURCE_BUCKETS = BUCKETS[:6]
TOPICS = {"c1": range(0, 7), "c2": range(7, 12), "s1": range(12, 18), "p0": range(0, 48)}
N_OPTIONS = 5


@dataclasses.dataclass
class Graph:
    """One TAG: adjacency lists, node words (vocab ids), topic (structure/text) and label (answers)."""

    name: str
    adj: list[np.ndarray]
    words: list[np.ndarray]
    topic: np.ndarray
    label: np.ndarray


@dataclasses.dataclass
class Pool:
    """Samples as arrays: ``graph`` (padded subgraph fields, leading axis S) and the text fields."""

    graph: dict[str, np.ndarray]
    tokens: np.ndarray  # [S, L] prompt (Stage B) or description (Stage A)
    ids: np.ndarray  # [S] sample id strings ("c2/node/17")
    bucket: np.ndarray
    split: np.ndarray  # 0 train, 1 valid, 2 test
    extra: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, idx) -> Pool:
        idx = np.asarray(idx)
        return Pool({k: v[idx] for k, v in self.graph.items()}, self.tokens[idx], self.ids[idx], self.bucket[idx],
                    self.split[idx], {k: v[idx] for k, v in self.extra.items()})


@dataclasses.dataclass
class TagSuite:
    """``corpus`` [n, L] LM sentences; ``pairs`` (Stage A graph–text pairs); ``instructions`` (Stage B/eval)."""

    vocab: Vocab
    codes: np.ndarray  # R [|W|, d_f]
    corpus: np.ndarray
    pairs: Pool
    instructions: Pool
    datasets: dict[str, Graph]
    label_words: dict[str, np.ndarray]  # dataset -> ids of its label words (answers)


def word_codes(vocab_size: int, dim: int, seed: int) -> np.ndarray:
    """The seeded word-code table R ∈ R^{|W|×d_f} (dataset-side features, not the LM's E_tok)."""
    return np.random.default_rng([seed, 17]).standard_normal((vocab_size, dim)).astype(np.float32) / np.sqrt(dim)


def _text(rng, vocab: Vocab, topic: int, p_sig: float, n: int) -> np.ndarray:
    topic_ids, generic = vocab.topic_ids(), vocab.generic_ids()
    sig = rng.random(n) < p_sig
    return np.where(sig, topic_ids[topic, 1 + rng.integers(0, 4, n)], generic[rng.integers(0, len(generic), n)])


def _edges_to_adj(n: int, edges: set) -> list[np.ndarray]:
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    return [np.array(sorted(a), np.int64) for a in adj]


def citation_graph(name, n, topics, cfg: DataConfig, vocab, rng, p_sig=(0.25, 0.6), homophily=None,
                   theta=None, label_noise=0.0) -> Graph:
    """Degree-corrected SBM (or Chung–Lu when ``theta`` is given) with homophily and topic text."""
    topics = np.asarray(list(topics))
    topic = topics[rng.integers(0, len(topics), n)]
    theta = rng.lognormal(0.0, 0.5, n) if theta is None else theta
    h = cfg.homophily if homophily is None else homophily
    prob = theta / theta.sum()
    m = int(n * cfg.mean_degree / 2)
    members = {t: np.flatnonzero(topic == t) for t in topics}
    edges: set[tuple[int, int]] = set()
    us = rng.choice(n, 4 * m, p=prob)
    same = rng.random(4 * m) < h
    for u, s in zip(us, same, strict=True):
        if len(edges) >= m:
            break
        pool = members[topic[u]] if s else np.arange(n)
        v = int(pool[rng.choice(len(pool), p=prob[pool] / prob[pool].sum())])
        if v != u:
            edges.add((min(u, v), max(u, v)))
    ps = rng.uniform(*p_sig, n) if isinstance(p_sig, tuple) else np.full(n, p_sig)
    words = [_text(rng, vocab, int(topic[i]), float(ps[i]), cfg.node_words) for i in range(n)]
    label = topic.copy()
    noisy = rng.random(n) < label_noise
    label[noisy] = topics[rng.integers(0, len(topics), noisy.sum())]
    return Graph(name, _edges_to_adj(n, edges), words, topic, label)


def molecule(rng, has6: bool, n_rings: int) -> tuple[np.ndarray, set, list[str]]:
    """Atoms (indices into ATOMS), bonds and motif words of one molecule of 10–30 atoms."""
    sizes = [6] if has6 else []
    sizes += [5] * (n_rings - len(sizes))
    rng.shuffle(sizes)
    target = int(rng.integers(max(10, sum(sizes) + 2), 31))
    edges: set[tuple[int, int]] = set()
    n = 0
    for s in sizes:
        ring = list(range(n, n + s))
        edges |= {(ring[i], ring[(i + 1) % s]) for i in range(s)}
        if n:
            edges.add((int(rng.integers(0, n)), n))
        n += s
    motifs = [f"ring{s}" for s in sizes]
    while n < target:  # chains and branches
        attach = int(rng.integers(0, n)) if n else None
        length = int(rng.integers(1, min(4, target - n) + 1))
        for i in range(length):
            prev = attach if i == 0 else n - 1
            if prev is not None:
                edges.add((min(prev, n), max(prev, n)))
            n += 1
        motifs.append("branch" if length == 1 else "chain")
    atoms = rng.choice(len(ATOMS), n, p=[0.6, 0.15, 0.15, 0.05, 0.05])
    return atoms, edges, motifs


def _split(rng, n: int, strata: np.ndarray | None = None) -> np.ndarray:
    split = np.zeros(n, np.int8)
    strata = np.zeros(n, int) if strata is None else strata
    for s in np.unique(strata):
        idx = rng.permutation(np.flatnonzero(strata == s))
        a, b = int(0.7 * len(idx)), int(0.8 * len(idx))
        split[idx[a:b]], split[idx[b:]] = 1, 2
    return split


def text_hash(tokens: np.ndarray) -> np.ndarray:
    """A 63-bit hash per row of token ids (distinctness and multi-positive targets in Stage A)."""
    return np.array([int(hashlib.sha1(r.tobytes()).hexdigest()[:15], 16) for r in np.asarray(tokens)], np.int64)


def _prompt_fields(vocab, toks: list[str], cands: list[str], answer: str, ctx: int) -> dict:
    ids = vocab.encode(toks + [answer])  # nothing after the answer is scored
    if len(ids) > ctx:
        from jaxpapers.core.errors import ConfigError

        raise ConfigError(f"a prompt has {len(ids)} tokens, more than data.context={ctx}; raise the context")
    c = np.full(N_OPTIONS, -1, np.int32)
    c[: len(cands)] = vocab.encode(cands)
    return {"ids": ids, "answer_pos": len(toks) - 1, "answer": vocab.id(answer), "cands": c,
            "answer_idx": cands.index(answer)}


def _node_text_words(g: Graph, v: int, rng) -> list[int]:
    nb = g.adj[v]
    pick = nb if len(nb) <= 2 else rng.choice(nb, 2, replace=False)
    return [*g.words[v].tolist(), *(w for u in pick for w in g.words[int(u)][:3].tolist())]


def make_tag_suite(cfg: DataConfig, seed: int, k_tokens: int = 4) -> TagSuite:
    """Builds the whole suite for one data seed: graphs, Stage-B instructions, Stage-A pairs and the LM corpus."""
    rng = np.random.default_rng([seed, 1])
    vocab = default_vocab()
    codes = word_codes(len(vocab), cfg.feature_dim, seed)
    tid = vocab.topic_ids()
    homog = cfg.homogeneous
    c_sig = 0.4 if homog else (0.25, 0.6)
    graphs = {
        "c1": citation_graph("c1", cfg.n_citation, TOPICS["c1"], cfg, vocab, rng, p_sig=c_sig),
        "c2": citation_graph("c2", cfg.n_citation, TOPICS["c2"], cfg, vocab, rng, p_sig=c_sig),
        "p0": citation_graph("p0", cfg.n_pretrain, TOPICS["p0"], cfg, vocab, rng, p_sig=(0.3, 0.7)),
    }
    if homog:  # one domain: the "social" slot is a second citation graph of other topics, no label noise
        graphs["s1"] = citation_graph("s1", cfg.n_social, TOPICS["s1"], cfg, vocab, rng, p_sig=0.4)
    else:
        w = (np.arange(cfg.n_social) + 1.0) ** (-1.0 / 1.5)  # Chung–Lu, degree exponent 2.5
        graphs["s1"] = citation_graph("s1", cfg.n_social, TOPICS["s1"], cfg, vocab, rng, p_sig=0.3,
                                      homophily=cfg.social_homophily, theta=rng.permutation(w),
                                      label_noise=cfg.social_label_noise)
    label_words = {k: tid[list(TOPICS[k]), 0] for k in ("c1", "c2", "s1")}
    feat = lambda g, nodes: np.stack([codes[g.words[v]].mean(0) for v in nodes])  # noqa: E731
    gtok = ["<graph>"] * k_tokens
    inst, pairs = [], []

    def add_node(g: Graph, v: int, bucket: int | None, split: int, name: str):
        nodes = ego_nodes(g.adj, [v], cfg.fanout, rng)
        e = induced_edges(g.adj, nodes)
        role = np.full(len(nodes), ROLE_CONTEXT)
        role[0] = ROLE_TARGET
        noi = np.arange(len(nodes)) == 0
        packed = pack_sample(node_features(feat(g, nodes), e, cfg.rwse_steps), e, role, noi, cfg.n_max, cfg.e_max)
        labels = [vocab.words[i] for i in label_words[name]] if name in label_words else None
        sid = f"{name}/node/{v}"
        text = description(vocab.decode(_node_text_words(g, v, rng)))
        pairs.append((packed, vocab.encode(text), sid, 0 if name in ("c1", "c2", "p0") else 2, split))
        if labels is None:
            return
        ans = vocab.words[label_words[name][list(TOPICS[name]).index(int(g.label[v]))]]
        others = [w for w in labels if w != ans]
        cands = [ans, *rng.choice(others, min(N_OPTIONS - 1, len(others)), replace=False)]
        rng.shuffle(cands)
        f = _prompt_fields(vocab, T.option_qa(gtok, cands, None), cands, ans, cfg.context)
        t = _prompt_fields(vocab, T.option_qa(vocab.decode(g.words[v]), cands, None), cands, ans, cfg.context)
        inst.append((packed, f, t, sid, bucket, split, labels.index(ans)))

    def add_link(g: Graph, u: int, v: int, positive: bool, bucket: int, split: int, name: str):
        nodes = list(dict.fromkeys(ego_nodes(g.adj, [u], cfg.link_fanout, rng) + ego_nodes(g.adj, [v], cfg.link_fanout,
                                                                                            rng)))
        nodes.remove(u), nodes.remove(v)
        nodes = [u, v, *nodes]
        e = induced_edges(g.adj, nodes, drop=(u, v))
        role = np.full(len(nodes), ROLE_CONTEXT)
        role[:2] = (ROLE_A, ROLE_B)
        noi = np.arange(len(nodes)) < 2
        packed = pack_sample(node_features(feat(g, nodes), e, cfg.rwse_steps), e, role, noi, cfg.n_max, cfg.e_max)
        ans = "yes" if positive else "no"
        body = [*vocab.decode(g.words[u][:5]), *vocab.decode(g.words[v][:5])]
        f = _prompt_fields(vocab, T.yes_no(gtok, "related", None), ["yes", "no"], ans, cfg.context)
        t = _prompt_fields(vocab, T.yes_no(body, "related", None), ["yes", "no"], ans, cfg.context)
        sid = f"{name}/link/{u}-{v}"
        inst.append((packed, f, t, sid, bucket, split, int(positive)))
        if positive and split == 0:
            pairs.append((packed, vocab.encode(T.description(body)), sid, 1 if name == "c1" else 3, split))

    for name, bucket in (("c1", 0), ("s1", 2), ("c2", 6), ("p0", None)):
        g = graphs[name]
        split = np.full(len(g.topic), 2, np.int8) if name == "c2" else (
            np.zeros(len(g.topic), np.int8) if name == "p0" else _split(rng, len(g.topic), g.label))
        for v in range(len(g.topic)):
            add_node(g, v, bucket, int(split[v]), name)
    for name, bucket in (("c1", 1), ("s1", 3)):
        g = graphs[name]
        n = len(g.topic)
        edges = [(u, int(v)) for u in range(n) for v in g.adj[u] if u < v]
        half = min(cfg.links_per_dataset // 2, len(edges))
        pos = [edges[i] for i in rng.choice(len(edges), half, replace=False)]
        neg = []
        while len(neg) < half:
            u, v = (int(x) for x in rng.integers(0, n, 2))
            if u != v and v not in g.adj[u]:
                neg.append((u, v))
        lab = np.array([1] * half + [0] * half)
        split = _split(rng, 2 * half, lab)
        for i, (u, v) in enumerate(pos + neg):
            add_link(g, u, v, bool(lab[i]), bucket, int(split[i]), name)
    has6 = rng.permutation(np.arange(cfg.n_molecules) % 2 == 0)
    mol_split = _split(rng, cfg.n_molecules, has6.astype(int))
    for i in range(cfg.n_molecules):
        n_rings = int(rng.integers(1 if has6[i] else 0, 3))
        atoms, bonds, motifs = molecule(rng, bool(has6[i]), n_rings)
        adj = _edges_to_adj(len(atoms), bonds)
        words = [np.array([vocab.id(ATOMS[a])]) for a in atoms]
        nodes = list(range(len(atoms)))
        e = induced_edges(adj, nodes)
        x = np.stack([codes[w].mean(0) for w in words])
        packed = pack_sample(node_features(x, e, cfg.rwse_steps), e, np.zeros(len(nodes)),
                             np.ones(len(nodes), bool), cfg.n_max, cfg.e_max)
        sid, s = f"m1/graph/{i}", int(mol_split[i])
        yes = "yes" if has6[i] else "no"
        # text-only baseline: the molecule's first atom words where the graph tokens sat (what fits the context)
        atom_words = [ATOMS[a] for a in atoms][: max(1, cfg.context - 14)]
        f = _prompt_fields(vocab, T.yes_no(gtok, "ring6", None), ["yes", "no"], yes, cfg.context)
        t = _prompt_fields(vocab, T.yes_no(atom_words, "ring6", None), ["yes", "no"], yes, cfg.context)
        inst.append((packed, f, t, sid, 4, s, int(has6[i])))
        count = T.RING_COUNT_WORDS[min(n_rings, 2)]
        f = _prompt_fields(vocab, T.ring_count(gtok, None), list(T.RING_COUNT_WORDS), count, cfg.context)
        t = _prompt_fields(vocab, T.ring_count(atom_words, None), list(T.RING_COUNT_WORDS), count, cfg.context)
        inst.append((packed, f, t, sid + "/rings", 5, s, min(n_rings, 2)))
        desc = ["molecule", "has", *sorted(m for m in motifs if m.startswith("ring")),
                *(ATOMS[a] for a in atoms)][: cfg.context - 2]
        pairs.append((packed, vocab.encode(T.description(desc)), sid, 4, s))
    return TagSuite(vocab, codes, lm_corpus(cfg, vocab, rng), _pair_pool(pairs, cfg.context),
                    _instruction_pool(inst, cfg.context), {**graphs}, label_words)


def description(words: list[str]) -> list[str]:
    return T.description(words)


def stage_a_pairs(suite: TagSuite, mode: str) -> Pool:
    """The Stage-A pairs a mode allows: ``strict`` drops every C2 pair (its graphs stay unseen, for U1/U6);
    ``transductive`` keeps C2's unlabeled graph–text pairs (never its answers: pairs carry no label words)."""
    from jaxpapers.core.checks import check_choice
    from jaxpapers.unigraphlm.config import MODES

    check_choice("mode", mode, MODES)
    if mode == "transductive":
        return suite.pairs
    keep = np.array([not str(i).startswith("c2/") for i in suite.pairs.ids])
    return suite.pairs.take(np.flatnonzero(keep))


def _pair_pool(pairs, ctx: int) -> Pool:
    toks = pad_tokens([p[1] for p in pairs], ctx, "Stage-A text")
    return Pool(stack_samples([p[0] for p in pairs]), toks, np.array([p[2] for p in pairs]),
                np.array([p[3] for p in pairs], np.int32), np.array([p[4] for p in pairs], np.int8),
                {"text_hash": text_hash(toks)})


def _instruction_pool(inst, ctx: int) -> Pool:
    f = [i[1] for i in inst]
    t = [i[2] for i in inst]
    extra = {
        "answer_pos": np.array([x["answer_pos"] for x in f], np.int32),
        "answer": np.array([x["answer"] for x in f], np.int32),
        "cands": np.stack([x["cands"] for x in f]),
        "answer_idx": np.array([x["answer_idx"] for x in f], np.int32),
        "text_tokens": pad_tokens([x["ids"] for x in t], ctx, "text-only prompt"),
        "text_answer_pos": np.array([x["answer_pos"] for x in t], np.int32),
        "label": np.array([i[6] for i in inst], np.int32),
    }
    return Pool(stack_samples([i[0] for i in inst]), pad_tokens([x["ids"] for x in f], ctx, "prompt"),
                np.array([i[3] for i in inst]), np.array([i[4] for i in inst], np.int32),
                np.array([i[5] for i in inst], np.int8), extra)


def lm_corpus(cfg: DataConfig, vocab: Vocab, rng) -> np.ndarray:
    """The LM's corpus: topic sentences 30%, text option-QA 40%, related yes/no 15%, motif questions 15%."""
    tid = vocab.topic_ids()
    seqs = []
    kinds = rng.choice(4, cfg.corpus_size, p=[0.3, 0.4, 0.15, 0.15])
    for kind in kinds:
        t = int(rng.integers(0, 48))
        if kind == 0:
            words = vocab.decode(rng.permutation(tid[t, 1:]))
            seqs.append(vocab.encode(T.topic_sentence(vocab.words[tid[t, 0]], words)))
        elif kind == 1:
            others = rng.choice([x for x in range(48) if x != t], N_OPTIONS - 1, replace=False)
            opts = vocab.decode(rng.permutation([tid[t, 0], *tid[others, 0]]))
            body = vocab.decode(_text(rng, vocab, t, float(rng.uniform(0.25, 0.7)), int(rng.integers(4, 11))))
            seqs.append(vocab.encode(T.option_qa(body, opts, vocab.words[tid[t, 0]])))
        elif kind == 2:
            same = rng.random() < 0.5
            t2 = t if same else int(rng.choice([x for x in range(48) if x != t]))
            body = vocab.decode(np.concatenate([_text(rng, vocab, t, 0.6, 5), _text(rng, vocab, t2, 0.6, 5)]))
            seqs.append(vocab.encode(T.yes_no(body, "related", "yes" if same else "no")))
        else:
            n_rings = int(rng.integers(0, 3))
            rings = list(rng.choice(["ring5", "ring6"], n_rings))
            body = list(rng.permutation(rings + list(rng.choice(ATOMS, int(rng.integers(2, 7))))))
            if rng.random() < 0.5:
                seqs.append(vocab.encode(T.yes_no(body, "ring6", "yes" if "ring6" in rings else "no")))
            else:
                seqs.append(vocab.encode(T.ring_count(body, T.RING_COUNT_WORDS[n_rings])))
    return pad_tokens(seqs, cfg.context, "corpus sentence")
