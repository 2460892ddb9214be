"""Studies shared by several claims (memoised per process with ``core.memo.shared``).

* :func:`growth_sizes`: plain self-play on a list of graphs (a fresh graph per seed), padded to one shape and
  vmapped: one compiled program per claim (S1, S2, S3).
* :func:`diversity_graph`, :func:`similarity`: the fixed S4 / S5–S7 graphs and their dense S_t.
* :func:`diversity_plays`: plain and diverse plays padded to the ``shape`` group, so S4, S5 and S7 compile each
  conjecturer once per process.
* :func:`embeddings`: the S6 runs (SBM and random-regular graph × ``embed.ks``) and S7's k-dimensional table,
  trained in one program.
"""

from __future__ import annotations

import dataclasses

import jax
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving import contrastive, diffusion, graphs, selfplay
from jaxpapers.selfplay_proving.config import DecoratedConfig, EmbedConfig, PlayConfig, SBMConfig, ShapeConfig


def play_keys(seed: int, count: int, salt: int = 0) -> jax.Array:
    """``count`` play keys from the config seed (``salt`` separates studies)."""
    return jax.random.split(jax.random.fold_in(jax.random.key(seed), salt), count)


def growth_sizes(
    gs: list[graphs.Graph], rounds: int, play: PlayConfig, seed: int, salt: int, d_pad: int | None = None
) -> np.ndarray:
    """|S_0|, …, |S_rounds| of plain self-play from node 0, one graph per seed: ``[len(gs), rounds + 1]``."""
    st = graphs.stack(gs)
    if d_pad is not None and d_pad > np.shape(st.nbr)[-1]:
        st = graphs.stack([graphs.pad(g, np.shape(st.nbr)[1], d_pad) for g in gs])
    res = selfplay.play(st, play_keys(seed, len(gs), salt), rounds=rounds, cfg=play, per_seed_graphs=True, log=False)
    return np.asarray(res.sizes)


def diversity_graph(cfg: ml_collections.ConfigDict, which: str) -> graphs.Graph:
    """The fixed graph of S4 (``decorated``) or of S5–S7 (``sbm``)."""
    if which == "decorated":
        dc = to_dataclass(DecoratedConfig, cfg.decorated)
        return memo.shared(
            "decorated_graph",
            dc.backbone,
            dc.variants,
            dc.graph_seed,
            dc.backbone_degree,
            fn=lambda: graphs.decorated_backbone(dc.backbone, dc.variants, dc.graph_seed, dc.backbone_degree),
        )
    if which == "sbm":
        sc = to_dataclass(SBMConfig, cfg.sbm)
        return memo.shared(
            "sbm_graph",
            sc.blocks,
            sc.block_size,
            sc.p_in,
            sc.p_out,
            sc.graph_seed,
            fn=lambda: graphs.sbm(sc.blocks, sc.block_size, sc.p_in, sc.p_out, sc.graph_seed),
        )
    raise ConfigError(f"which={which!r} is not allowed; choose 'decorated' or 'sbm'")


def similarity(cfg: ml_collections.ConfigDict, which: str) -> np.ndarray:
    """Dense S_t (t = ``play.t``) of the fixed graph (float64)."""
    t = to_dataclass(PlayConfig, cfg.play).t
    g = diversity_graph(cfg, which)
    return memo.shared("similarity", which, cfg.to_dict()[which], t, fn=lambda: diffusion.diffusion_similarity(g, t))


def seed_node(cfg: ml_collections.ConfigDict, which: str) -> int:
    """S4 starts at node B (a variant of backbone 0, the spec's protocol) or node 0; S5–S7 at node 0."""
    if which == "decorated":
        dc = to_dataclass(DecoratedConfig, cfg.decorated)
        return dc.backbone if dc.seed_node == "first_variant" else 0
    return 0


def diversity_plays(cfg: ml_collections.ConfigDict, which: str, conjecturer: str) -> dict[str, np.ndarray]:
    """Plays of ``conjecturer`` (``plain``, ``diverse`` with exact S_t, or ``embedding`` with S7's trained table)
    on the fixed graph, padded to the ``shape`` group: ``sizes``, ``proved_round``, ``conj``, ``truncated``."""
    shape = to_dataclass(ShapeConfig, cfg.shape)
    play = to_dataclass(PlayConfig, cfg.play)
    play = dataclasses.replace(play, max_budget=shape.max_budget)
    group = to_dataclass(DecoratedConfig, cfg.decorated) if which == "decorated" else to_dataclass(SBMConfig, cfg.sbm)
    seeds = group.seeds

    def run():
        g = diversity_graph(cfg, which)
        if g.n > shape.nodes or np.shape(g.nbr)[1] > shape.degree:
            raise ConfigError(
                f"the {which} graph ({g.n} nodes, degree {np.shape(g.nbr)[1]}) does not fit shape.nodes={shape.nodes}"
                f", shape.degree={shape.degree}"
            )
        gp = graphs.pad(g, shape.nodes, shape.degree)
        scorer = None
        if conjecturer == "diverse":
            S = similarity(cfg, which)
            table = np.zeros((shape.nodes, shape.nodes), np.float32)
            table[: g.n, : g.n] = S
            scorer = selfplay.dense_scores(table)
        elif conjecturer == "embedding":
            F = embeddings(cfg, buckets=(k_bucket(to_dataclass(EmbedConfig, cfg.embed).k),))["s7"]
            table = np.zeros((shape.nodes, F.shape[1]), np.float32)
            table[: g.n] = F
            scorer = selfplay.embedding_scores(table)
        res = selfplay.play(
            gp,
            play_keys(cfg.seed, seeds, salt=4 if which == "decorated" else 5),
            rounds=shape.rounds,
            cfg=play,
            conjecturer="plain" if conjecturer == "plain" else "diverse",
            scorer=scorer,
            seed_node=seed_node(cfg, which),
        )
        return {k: np.asarray(v) for k, v in res._asdict().items()}

    return memo.shared("diversity_plays", which, conjecturer, cfg, fn=run)


def k_bucket(k: int) -> int:
    """The table width a run of dimension k trains in: the next power of two, at least 32 (runs of one bucket
    share one compiled program; the O(Bk²) estimator makes padding a k = 16 run to 64 cost 16×)."""
    return max(32, 1 << (int(k) - 1).bit_length())


def embeddings(cfg: ml_collections.ConfigDict, buckets: tuple[int, ...] | None = None) -> dict:
    """S6's tables (``(graph, k)`` for graph ∈ {sbm, regular}, k ∈ ``embed.ks``) and S7's k-dimensional SBM table
    (key ``s7``), with the minibatch losses; one training program per :func:`k_bucket` (``buckets``: only those)."""
    ec = to_dataclass(EmbedConfig, cfg.embed)
    t = to_dataclass(PlayConfig, cfg.play).t
    sbm = diversity_graph(cfg, "sbm")
    reg = memo.shared(
        "regular_graph",
        ec.regular_n,
        ec.regular_degree,
        ec.regular_seed,
        fn=lambda: graphs.random_regular(ec.regular_n, ec.regular_degree, ec.regular_seed),
    )
    runs = [("sbm", k, sbm) for k in ec.ks] + [("regular", k, reg) for k in ec.ks] + [("s7", ec.k, sbm)]
    out = {"graphs": {"sbm": sbm, "regular": reg}, "losses": {}}
    for b in sorted({k_bucket(r[1]) for r in runs}):
        if buckets is not None and b not in buckets:
            continue
        mine = [r for r in runs if k_bucket(r[1]) == b]

        def run(mine=mine, b=b):
            return contrastive.train(
                [r[2] for r in mine],
                [r[1] for r in mine],
                t=t,
                steps=ec.steps,
                batch=ec.batch,
                lr=ec.lr,
                init_scale=ec.init_scale,
                seed=ec.train_seed * 1000 + b,
                k_max=b,
            )

        tables, losses = memo.shared("embeddings", cfg.sbm, cfg.embed, t, b, fn=run)
        for (name, k, _), F, loss in zip(mine, tables, losses, strict=True):
            key = "s7" if name == "s7" else (name, k)
            out[key] = F
            out["losses"][key] = loss
    return out
