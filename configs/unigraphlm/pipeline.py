"""The trained pipeline of U1, U2, U3, U5, U6 (full preset only): suite, frozen LM, Stage A, supervised encoder,
Stage B and the study's seeds.

Presets: ``tiny`` (a few steps of every stage: an end-to-end smoke size), ``quick`` (the spec's quick sizes, one
data seed: the study a user or the notebook runs, ≈ 15 minutes on 2 loaded cores; no claim runs at this preset),
``full`` with variants ``small`` (the quick sizes × 5 data seeds) and ``paper`` (the spec's Full column, GPU).
Groups: ``data`` -> ``DataConfig``, ``lm``
-> ``LMConfig``, ``enc`` -> ``EncoderConfig``, ``sup`` -> ``SupervisedConfig``, ``align`` -> ``AlignConfig``,
``study`` -> ``StudyConfig`` (all in ``unigraphlm.config``).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg, variants=("small", "paper"), default_variant="small")
    cfg = ml_collections.ConfigDict()
    cfg.preset, cfg.variant, cfg.seed = a.preset, a.variant, 0
    cfg.data = ml_collections.ConfigDict(
        dict(n_citation=400, n_pretrain=600, n_social=400, n_molecules=300, links_per_dataset=400,
             corpus_size=20_000, context=24, fanout=(5, 3), link_fanout=(4, 2), n_max=48, e_max=256)
    )
    cfg.lm = ml_collections.ConfigDict(dict(d_lm=32, layers=2, heads=4, steps=600, batch=64, lr=3e-3, warmup=50))
    cfg.enc = ml_collections.ConfigDict(dict(layer="sage", d_g=64, layers=2, d_s=128, steps=400, batch=128, lr=1e-3))
    cfg.sup = ml_collections.ConfigDict(dict(steps=400, batch=128, lr=1e-3))
    cfg.align = ml_collections.ConfigDict(dict(k_tokens=4, steps=300, batch=32, lr=2e-3, refresh_every=100))
    cfg.study = ml_collections.ConfigDict(dict(data_seeds=(0,), projector_seeds=(0, 1, 2), mode="strict",
                                               retrieval_candidates=64))
    if a.preset == "tiny":
        cfg.data.update(n_citation=40, n_pretrain=40, n_social=40, n_molecules=40, links_per_dataset=40,
                        corpus_size=200)
        cfg.lm.update(steps=5, batch=8, warmup=1)
        cfg.enc.update(steps=3, batch=16)
        cfg.sup.update(steps=3, batch=16)
        cfg.align.update(steps=4, batch=8, refresh_every=2)
        cfg.study.update(projector_seeds=(0,), retrieval_candidates=16)
    elif a.preset == "full":
        cfg.study.data_seeds = (0, 1, 2, 3, 4)
        if a.variant == "paper":
            cfg.data.update(n_citation=5000, n_pretrain=50_000, n_social=5000, n_molecules=20_000,
                            links_per_dataset=5000, corpus_size=1_000_000, context=128, fanout=(10, 10),
                            link_fanout=(10, 5), n_max=256, e_max=2048)
            cfg.lm.update(d_lm=512, layers=8, heads=8, steps=20_000, batch=128)
            cfg.enc.update(d_g=256, layers=3, steps=20_000)
            cfg.sup.update(steps=20_000)
            cfg.align.update(steps=20_000, batch=128, refresh_every=1000)
            cfg.study.retrieval_candidates = 256
    return cfg
