"""S4–S7: the diversity-seeking conjecturer on a decorated backbone and a clustered graph, and the
spectral-contrastive embeddings of diffusion similarity (spec "Diffusion similarity and diversity",
"Contrastive embeddings").

    jaxpapers verify selfplay_proving/S4 selfplay_proving/S5 selfplay_proving/S6 selfplay_proving/S7
    jaxpapers verify selfplay_proving --preset full      # accelerator: B = 448, 8 × 512 blocks (dense S_t ≤ 4096)

Expected (quick, spec red-team numbers; thresholds are our formalisation's, not the paper's): S4 Div ratio
2.8–4.1, backbone proved 25–29 vs 4–6, variant fraction 0.45 vs 0.84; S5 Div ratio 2.0–2.5, clusters 7.4–7.9
vs 2.5–3.5; S6 population-loss gaps 0.6–1.5 %; S7 Div ratio 2.1–3.0. The S4, S5 and S7 plays share one padded
shape (group ``shape``), so each conjecturer compiles once; S6 and S7 share one training program (5 runs).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.play = ml_collections.ConfigDict(
        dict(p=0.5, beta=1.0, walk_len=1, start="uniform", tau=0.05, t=4, max_budget=0, chunk_size=0)
    )
    cfg.decorated = ml_collections.ConfigDict(
        dict(backbone=256, variants=8, backbone_degree=4, graph_seed=0, seed_node="first_variant", rounds=14, seeds=16)
    )
    cfg.sbm = ml_collections.ConfigDict(
        dict(blocks=8, block_size=64, p_in=0.2, p_out=0.0005, graph_seed=0, rounds=10, seeds=16)
    )
    cfg.embed = ml_collections.ConfigDict(
        dict(
            ks=(16, 64),
            k=32,
            steps=2000,
            batch=1024,
            init_scale=0.1,
            model="table",
            regular_n=512,
            regular_degree=4,
            regular_seed=0,
            train_seed=0,
            lr=1e-2,
        )
    )
    cfg.shape = ml_collections.ConfigDict(dict(nodes=2304, degree=32, rounds=14, max_budget=512))
    if a.preset == "tiny":
        cfg.decorated.update(backbone=32, variants=4, rounds=6, seeds=4)
        cfg.sbm.update(blocks=4, block_size=16, p_in=0.4, p_out=0.005, rounds=5, seeds=4)
        cfg.embed.update(ks=(4, 8), k=4, steps=50, batch=64, regular_n=64)
        cfg.shape.update(nodes=160, degree=16, rounds=6, max_budget=64)
    elif a.preset == "full":
        cfg.decorated.update(backbone=448, seeds=64)
        cfg.sbm.update(block_size=512, p_in=0.025, seeds=64)
        cfg.embed.update(ks=(16, 64, 128), k=128, regular_n=4096, steps=8000, batch=4096)
        cfg.shape.update(nodes=4096, degree=64, rounds=14, max_budget=4096)
    return cfg
