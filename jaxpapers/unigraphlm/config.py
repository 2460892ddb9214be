"""Typed settings of unigraphlm: one frozen, validated dataclass per config group; imports no JAX.

Groups of ``configs/unigraphlm/pipeline.py``: ``data`` (:class:`DataConfig`, the generated TAG suite),
``lm`` (:class:`LMConfig`, the frozen decoder LM), ``enc`` (:class:`EncoderConfig`, the GNN encoder and
Stage A), ``sup`` (:class:`SupervisedConfig`, the task-specific baseline encoder), ``align``
(:class:`AlignConfig`, the projector and Stage B with its sampler) and ``study`` (:class:`StudyConfig`,
seeds and evaluation). ``configs/unigraphlm/layers.py`` holds :class:`LayerCheckConfig` (U7) and
``configs/unigraphlm/scheduler.py`` :class:`SchedulerCheckConfig` (U4). Every constant is the spec's
(``shared/specs/unigraphlm.md``), most of them marked there as our choice: the preprint's own are unknown.
No field restates a claim's threshold: thresholds live in ``claims.py``.
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

GNN_LAYER_NAMES: tuple[str, ...] = ("gat", "gcn", "gin", "sage")  # core.nn.graph.GNN_LAYERS (a test checks)
SAMPLERS: tuple[str, ...] = ("curriculum", "fixed", "random_difficulty", "anti")
NORMS: tuple[str, ...] = ("global", "bucket")
MODES: tuple[str, ...] = ("strict", "transductive")
ENCODERS: tuple[str, ...] = ("stage_a", "supervised", "untrained")


def _positive(group: str, **fields: float) -> None:
    for name, value in fields.items():
        check_range(f"{group}.{name}", value, 0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class DataConfig:
    """The generated suite (spec, Data): sizes, graph statistics, padding buckets and corpus size."""

    n_citation: int = 400  # C1 and C2 nodes each
    n_pretrain: int = 600  # P0 nodes (Stage A only)
    n_social: int = 400
    n_molecules: int = 300
    mean_degree: float = 6.0
    homophily: float = 0.8
    social_homophily: float = 0.55
    social_label_noise: float = 0.15
    feature_dim: int = 64  # d_f of the word-code table R
    rwse_steps: int = 8
    node_words: int = 10
    fanout: tuple[int, int] = (5, 3)
    link_fanout: tuple[int, int] = (4, 2)
    n_max: int = 48
    e_max: int = 256
    links_per_dataset: int = 400  # balanced: half edges, half non-edges
    corpus_size: int = 20_000
    context: int = 24
    homogeneous: bool = False  # the U3 control suite: one domain, no label noise, fixed p_sig

    def __post_init__(self):
        for name in ("n_citation", "n_pretrain", "n_social", "n_molecules", "links_per_dataset", "corpus_size"):
            check_range(f"data.{name}", getattr(self, name), 8)
        check_range("data.mean_degree", self.mean_degree, 1.0)
        for name in ("homophily", "social_homophily", "social_label_noise"):
            check_range(f"data.{name}", getattr(self, name), 0.0, 1.0)
        check_range("data.feature_dim", self.feature_dim, 2)
        check_range("data.rwse_steps", self.rwse_steps, 1)
        check_range("data.node_words", self.node_words, 2)
        check_range("data.fanout", self.fanout, 1)
        check_range("data.link_fanout", self.link_fanout, 1)
        check_range("data.context", self.context, 20)
        if len(self.fanout) != 2 or len(self.link_fanout) != 2:
            raise ConfigError(f"data.fanout={self.fanout!r} and data.link_fanout must list two hops")
        worst_node = 1 + self.fanout[0] + self.fanout[0] * self.fanout[1]
        worst_link = 2 * (1 + self.link_fanout[0] + self.link_fanout[0] * self.link_fanout[1])
        if self.n_max < max(worst_node, worst_link, 30):
            raise ConfigError(
                f"data.n_max={self.n_max} cannot hold a sample: up to {worst_node} nodes per node sample, "
                f"{worst_link} per link sample and 30 per molecule; raise n_max"
            )


@dataclasses.dataclass(frozen=True)
class LMConfig:
    """The frozen decoder-only LM (spec, Frozen LM) and its pretraining."""

    d_lm: int = 32
    layers: int = 2
    heads: int = 4
    steps: int = 600
    batch: int = 64
    lr: float = 3e-3
    warmup: int = 50
    weight_decay: float = 1e-2

    def __post_init__(self):
        for name in ("d_lm", "layers", "heads", "steps", "batch"):
            check_range(f"lm.{name}", getattr(self, name), 1)
        _positive("lm", lr=self.lr)
        check_range("lm.warmup", self.warmup, 0, self.steps - 1)
        check_range("lm.weight_decay", self.weight_decay, 0.0)
        if self.d_lm % self.heads:
            raise ConfigError(f"lm.heads={self.heads} does not divide lm.d_lm={self.d_lm}")


@dataclasses.dataclass(frozen=True)
class EncoderConfig:
    """The GNN encoder f_θ and Stage A (graph–text contrast + token-space anchor)."""

    layer: str = "sage"
    d_g: int = 64
    layers: int = 2
    d_s: int = 128
    steps: int = 400
    batch: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4
    anchor_weight: float = 0.5
    temperature: float = 0.07
    single_bucket_prob: float = 0.5  # a batch drawn from one (domain, level)
    mix_power: float = 0.5  # batch mix ∝ n_d^power

    def __post_init__(self):
        check_choice("enc.layer", self.layer, GNN_LAYER_NAMES)
        for name in ("d_g", "layers", "d_s", "steps", "batch"):
            check_range(f"enc.{name}", getattr(self, name), 1)
        _positive("enc", lr=self.lr)
        check_range("enc.weight_decay", self.weight_decay, 0.0)
        check_range("enc.anchor_weight", self.anchor_weight, 0.0)
        check_range("enc.temperature", self.temperature, 0.01, 1.0)
        check_range("enc.single_bucket_prob", self.single_bucket_prob, 0.0, 1.0)
        check_range("enc.mix_power", self.mix_power, 0.0)


@dataclasses.dataclass(frozen=True)
class SupervisedConfig:
    """The task-specific baseline encoder: same f_θ, cross-entropy on the source labels (link BCE)."""

    steps: int = 400
    batch: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4

    def __post_init__(self):
        check_range("sup.steps", self.steps, 1)
        check_range("sup.batch", self.batch, 1)
        _positive("sup", lr=self.lr)
        check_range("sup.weight_decay", self.weight_decay, 0.0)


@dataclasses.dataclass(frozen=True)
class AlignConfig:
    """Projector to K graph tokens and Stage B with its sampler (spec, Curriculum alignment tuning)."""

    k_tokens: int = 4
    steps: int = 300
    batch: int = 32
    lr: float = 2e-3
    warmup_frac: float = 0.0
    sampler: str = "curriculum"
    refresh_every: int = 100
    refresh_size: int = 2048
    c0: float = 0.25
    tc_frac: float = 0.7
    beta: float = 0.5
    loss_weight: float = 0.7  # d = w·pct(ℓ) + (1 − w)·pct(κ)
    norm: str = "global"

    def __post_init__(self):
        for name in ("k_tokens", "steps", "batch", "refresh_every", "refresh_size"):
            check_range(f"align.{name}", getattr(self, name), 1)
        _positive("align", lr=self.lr)
        check_range("align.warmup_frac", self.warmup_frac, 0.0, 1.0, hi_open=True)
        check_choice("align.sampler", self.sampler, SAMPLERS)
        check_range("align.c0", self.c0, 0.0, 1.0, lo_open=True)
        check_range("align.tc_frac", self.tc_frac, 0.0, 1.0, lo_open=True)
        check_range("align.beta", self.beta, 0.0, 2.0)
        check_range("align.loss_weight", self.loss_weight, 0.0, 1.0)
        check_choice("align.norm", self.norm, NORMS)


@dataclasses.dataclass(frozen=True)
class StudyConfig:
    """Seeds and evaluation of the trained claims (U1, U2, U3, U5, U6)."""

    data_seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    projector_seeds: tuple[int, ...] = (0, 1, 2)  # U3 only
    mode: str = "strict"
    retrieval_candidates: int = 64
    bootstrap: int = 2000
    u3_homogeneous: bool = True  # also run the homogeneous-difficulty control suite

    def __post_init__(self):
        if not self.data_seeds or not self.projector_seeds:
            raise ConfigError("study.data_seeds and study.projector_seeds must list at least one seed")
        check_choice("study.mode", self.mode, MODES)
        check_range("study.retrieval_candidates", self.retrieval_candidates, 2)
        check_range("study.bootstrap", self.bootstrap, 10)


@dataclasses.dataclass(frozen=True)
class LayerCheckConfig:
    """U7: random graphs on which the core GNN layers meet a dense float64 reference."""

    graphs: int = 50
    max_nodes: int = 24
    max_edges: int = 96
    extra_nodes: int = 8  # padded slots added in the padding check
    extra_edges: int = 32
    features: int = 6
    out_features: int = 8

    def __post_init__(self):
        for name in ("graphs", "max_nodes", "max_edges", "extra_nodes", "extra_edges", "features", "out_features"):
            check_range(f"layers.{name}", getattr(self, name), 1)
        check_range("layers.max_nodes", self.max_nodes, 3)


@dataclasses.dataclass(frozen=True)
class SchedulerCheckConfig:
    """U4: a pool whose current NLL and compatibility scores the sampler reads."""

    pool: int = 2000
    buckets: int = 6
    steps: int = 300
    batch: int = 32
    refresh_size: int = 512

    def __post_init__(self):
        for name in ("pool", "buckets", "steps", "batch", "refresh_size"):
            check_range(f"sched.{name}", getattr(self, name), 1)
