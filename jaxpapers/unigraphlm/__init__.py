"""UniGraphLM (arXiv 2605.12197): a multi-domain, multi-task GNN encoder aligned to a frozen LM by graph–text
pretraining, then graph tokens tuned to the LM with a curriculum.

    config.py          frozen, validated dataclasses (data, LM, encoder, Stage B, checks); no JAX
    data/              vocabulary, templates, the generated TAG suite, padded subgraphs, real-format loaders
    models/            the frozen decoder LM, the GNN encoder (core.nn layers), the projector, the GLM
    losses.py          CLIP, token-space anchor, answer NLL
    train.py           the trainers (LM, Stage A, supervised encoder, Stage B with its samplers) and scoring
    curriculum.py      difficulty, competence pacing, the curriculum sampler and its controls
    experiments/       layers.py (U7), scheduler.py (U4), pipeline.py (the study of U1-U3, U5, U6: full preset)
    figures.py         the figures the notebook shows and the claims save
    claims.py          the registered claims

This ``__init__`` is the public API; notebooks and benchmarks import only these names.
"""

from jaxpapers.unigraphlm import experiments, figures
from jaxpapers.unigraphlm.curriculum import (
    CurriculumSampler,
    FixedSampler,
    RandomDifficultySampler,
    competence,
    make_sampler,
)
from jaxpapers.unigraphlm.data.loaders import load_ogbg_molhiv, load_ogbn_arxiv, load_planetoid
from jaxpapers.unigraphlm.data.synthetic import make_tag_suite, stage_a_pairs
from jaxpapers.unigraphlm.models.glm import UniGraphLM
from jaxpapers.unigraphlm.models.gnn import GraphEncoder
from jaxpapers.unigraphlm.models.lm import TinyDecoderLM, param_hash
from jaxpapers.unigraphlm.models.projector import GraphTokenProjector
from jaxpapers.unigraphlm.train import (
    StageBRun,
    align_tune,
    encode,
    evaluate,
    pretrain_graph_text,
    pretrain_lm,
    train_supervised_encoder,
    untrained_encoder,
)

__all__ = [
    "CurriculumSampler",
    "StageBRun",
    "align_tune",
    "encode",
    "evaluate",
    "pretrain_graph_text",
    "pretrain_lm",
    "train_supervised_encoder",
    "untrained_encoder",
    "FixedSampler",
    "GraphEncoder",
    "GraphTokenProjector",
    "RandomDifficultySampler",
    "TinyDecoderLM",
    "UniGraphLM",
    "competence",
    "experiments",
    "figures",
    "load_ogbg_molhiv",
    "load_ogbn_arxiv",
    "load_planetoid",
    "make_sampler",
    "make_tag_suite",
    "param_hash",
    "stage_a_pairs",
]
