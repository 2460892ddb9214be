"""Typed settings of the self-play experiments: frozen, validated dataclasses (no JAX here).

Experiments build them from a config group with ``core.config.to_dataclass``; a bad value raises one
``ConfigError`` naming the field, the value and what is allowed. No field restates a claim's threshold.

===============  ========================  =================================================
group            class                     used by (config file)
===============  ========================  =================================================
``play``         :class:`PlayConfig`       every claim (prover, budget, conjecturers)
``expander``     :class:`ExpanderConfig`   S1 (``growth.py``)
``grid``         :class:`GridConfig`       S2 (``growth.py``)
``small_world``  :class:`SmallWorldConfig` S3 (``growth.py``)
``decorated``    :class:`DecoratedConfig`  S4 (``diversity.py``)
``sbm``          :class:`SBMConfig`        S5, S7 (``diversity.py``), S6 (``embeddings.py``)
``embed``        :class:`EmbedConfig`      S6 (``embeddings.py``), S7 (``diversity.py``)
``shape``        :class:`ShapeConfig`      S4, S5, S7: the one padded program shape their plays share
===============  ========================  =================================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

STARTS: tuple[str, ...] = ("uniform", "pi")  # where a conjecture's walk starts: uniform on S_k, or ∝ π on S_k
SEED_NODES: tuple[str, ...] = ("first_variant", "first_backbone")  # S4: node B (the spec's protocol) or node 0
EMBED_MODELS: tuple[str, ...] = ("table",)  # an embedding table per node (the MLP-over-features option is not built)


def _positive_ints(name: str, values, lo: int = 1) -> tuple[int, ...]:
    vals = tuple(int(v) for v in values)
    if not vals or any(v < lo for v in vals) or len(set(vals)) != len(vals):
        raise ConfigError(f"{name}={tuple(values)!r} is not allowed; need distinct integers >= {lo}")
    return vals


@dataclasses.dataclass(frozen=True)
class PlayConfig:
    """The prover–conjecturer loop: prover success ``p`` one edge from the proved set, budget
    m_k = ⌈β·|S_k|⌉ (at most ``max_budget`` slots; 0 means n), walk length ``walk_len`` of the plain
    conjecturer, its start distribution, and the diversity-seeking conjecturer's temperature ``tau`` and
    diffusion time ``t`` (lazy walk)."""

    p: float = 0.5
    beta: float = 1.0
    walk_len: int = 1
    start: str = "uniform"
    tau: float = 0.05
    t: int = 4
    max_budget: int = 0
    chunk_size: int = 0  # seeds vmapped at a time (0: all at once)

    def __post_init__(self):
        check_range("play.p", self.p, 0.0, 1.0, lo_open=True)
        check_range("play.beta", self.beta, 0.0, 8.0, lo_open=True)
        check_range("play.walk_len", self.walk_len, 1, 64)
        check_choice("play.start", self.start, STARTS)
        check_range("play.tau", self.tau, 0.0, lo_open=True)
        check_range("play.t", self.t, 1, 64)
        check_range("play.max_budget", self.max_budget, 0)
        check_range("play.chunk_size", self.chunk_size, 0)


@dataclasses.dataclass(frozen=True)
class ExpanderConfig:
    """S1: random d-regular graphs on n nodes (a fresh graph per seed), fit window 32 ≤ mean|S_k| ≤ n/4."""

    n: int = 4096
    degrees: tuple[int, ...] = (8, 4)
    seeds: int = 16
    rounds: int = 30
    window_lo: float = 32.0
    window_hi_frac: float = 0.25

    def __post_init__(self):
        check_range("expander.n", self.n, 8)
        object.__setattr__(self, "degrees", _positive_ints("expander.degrees", self.degrees, 3))
        if any(d >= self.n or (d * self.n) % 2 for d in self.degrees):
            raise ConfigError(f"expander.degrees={self.degrees!r} need d < n={self.n} and d·n even")
        check_range("expander.seeds", self.seeds, 2)
        check_range("expander.rounds", self.rounds, 3)
        check_range("expander.window_lo", self.window_lo, 1.0)
        check_range("expander.window_hi_frac", self.window_hi_frac, 0.0, 1.0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class GridConfig:
    """S2: the s × s torus (window 32 ≤ mean|S_k| ≤ n/4) and the cycle C_n (window k ∈ [k_lo, k_hi])."""

    torus_side: int = 64
    torus_rounds: int = 150
    cycle_n: int = 1024
    cycle_rounds: int = 300
    seeds: int = 16
    torus_window_lo: float = 32.0
    torus_window_hi_frac: float = 0.25
    cycle_k_lo: int = 30
    cycle_k_hi: int = 300

    def __post_init__(self):
        check_range("grid.torus_side", self.torus_side, 3)
        check_range("grid.torus_rounds", self.torus_rounds, 3)
        check_range("grid.cycle_n", self.cycle_n, 3)
        check_range("grid.cycle_rounds", self.cycle_rounds, 3)
        check_range("grid.seeds", self.seeds, 2)
        check_range("grid.torus_window_lo", self.torus_window_lo, 1.0)
        check_range("grid.torus_window_hi_frac", self.torus_window_hi_frac, 0.0, 1.0, lo_open=True)
        check_range("grid.cycle_k_lo", self.cycle_k_lo, 1)
        check_range("grid.cycle_k_hi", self.cycle_k_hi, self.cycle_k_lo + 2, self.cycle_rounds)


@dataclasses.dataclass(frozen=True)
class SmallWorldConfig:
    """S3: Watts–Strogatz graphs (ring lattice with ``k`` neighbours, rewiring levels ``rewire``), a fresh
    graph per seed; per-seed log-linear rates on the window ``window_lo ≤ |S_k| ≤ window_hi_frac·n``."""

    n: int = 1024
    k: int = 4
    rewire: tuple[float, ...] = (0.0, 0.003, 0.01, 0.03, 0.1, 0.3, 0.6, 1.0)
    seeds: int = 16
    rounds: int = 64
    window_lo: float = 16.0
    window_hi_frac: float = 0.125

    def __post_init__(self):
        check_range("small_world.n", self.n, 8)
        check_range("small_world.k", self.k, 2, self.n - 2)
        if self.k % 2:
            raise ConfigError(f"small_world.k={self.k} must be even (k/2 neighbours on each side)")
        object.__setattr__(self, "rewire", tuple(float(r) for r in self.rewire))
        check_range("small_world.rewire", self.rewire, 0.0, 1.0)
        if len(self.rewire) < 3:
            raise ConfigError(f"small_world.rewire={self.rewire!r} needs at least 3 levels for a rank correlation")
        check_range("small_world.seeds", self.seeds, 1)
        check_range("small_world.rounds", self.rounds, 3)
        check_range("small_world.window_lo", self.window_lo, 1.0)
        check_range("small_world.window_hi_frac", self.window_hi_frac, 0.0, 1.0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class DecoratedConfig:
    """S4: a random 4-regular backbone of ``backbone`` nodes, each with a clique of ``variants`` variants
    (one fixed graph, ``graph_seed``); play from ``seed_node`` for ``rounds`` rounds on ``seeds`` play seeds."""

    backbone: int = 256
    variants: int = 8
    backbone_degree: int = 4
    graph_seed: int = 0
    seed_node: str = "first_variant"
    rounds: int = 14
    seeds: int = 16

    def __post_init__(self):
        check_range("decorated.backbone", self.backbone, self.backbone_degree + 1)
        check_range("decorated.variants", self.variants, 1)
        check_range("decorated.backbone_degree", self.backbone_degree, 3)
        if (self.backbone * self.backbone_degree) % 2:
            raise ConfigError(
                f"decorated.backbone={self.backbone} times backbone_degree={self.backbone_degree} must be even"
            )
        check_range("decorated.graph_seed", self.graph_seed, 0)
        check_choice("decorated.seed_node", self.seed_node, SEED_NODES)
        check_range("decorated.rounds", self.rounds, 1)
        check_range("decorated.seeds", self.seeds, 1)


@dataclasses.dataclass(frozen=True)
class SBMConfig:
    """S5–S7: a stochastic block model of ``blocks`` × ``block_size`` nodes (one fixed graph, ``graph_seed``);
    play ``rounds`` rounds on ``seeds`` play seeds from node 0."""

    blocks: int = 8
    block_size: int = 64
    p_in: float = 0.2
    p_out: float = 0.0005
    graph_seed: int = 0
    rounds: int = 10
    seeds: int = 16

    def __post_init__(self):
        check_range("sbm.blocks", self.blocks, 1)
        check_range("sbm.block_size", self.block_size, 2)
        check_range("sbm.p_in", self.p_in, 0.0, 1.0, lo_open=True)
        check_range("sbm.p_out", self.p_out, 0.0, 1.0)
        check_range("sbm.graph_seed", self.graph_seed, 0)
        check_range("sbm.rounds", self.rounds, 1)
        check_range("sbm.seeds", self.seeds, 1)


@dataclasses.dataclass(frozen=True)
class EmbedConfig:
    """The spectral-contrastive embeddings (HaoChen et al. 2021 on the walk kernel): dimensions ``ks`` (S6)
    or ``k`` (S7), ``steps`` Adam steps of ``batch`` positive pairs (x ~ π, x⁺ a t-step lazy walk), table
    init N(0, init_scale²/k); S6 also trains on a random ``regular_degree``-regular graph of ``regular_n`` nodes."""

    ks: tuple[int, ...] = (16, 64)
    k: int = 32
    steps: int = 2000
    batch: int = 1024
    init_scale: float = 0.1
    model: str = "table"
    regular_n: int = 512
    regular_degree: int = 4
    regular_seed: int = 0
    train_seed: int = 0
    lr: float = 1e-2

    def __post_init__(self):
        object.__setattr__(self, "ks", _positive_ints("embed.ks", self.ks))
        check_range("embed.k", self.k, 1)
        check_range("embed.steps", self.steps, 1)
        check_range("embed.batch", self.batch, 2)
        check_range("embed.init_scale", self.init_scale, 0.0, lo_open=True)
        check_choice("embed.model", self.model, EMBED_MODELS)
        check_range("embed.regular_n", self.regular_n, self.regular_degree + 1)
        check_range("embed.regular_degree", self.regular_degree, 3)
        check_range("embed.regular_seed", self.regular_seed, 0)
        check_range("embed.train_seed", self.train_seed, 0)
        check_range("embed.lr", self.lr, 0.0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class ShapeConfig:
    """The padded shape shared by the S4, S5 and S7 plays (one compiled program per conjecturer): ``nodes``
    rows, ``degree`` neighbour slots, ``rounds`` rounds (a claim with fewer rounds reads the first ones: rounds
    are causal and draw their noise from fold_in(key, round)) and ``max_budget`` conjecture slots per round."""

    nodes: int = 2304
    degree: int = 32
    rounds: int = 14
    max_budget: int = 512

    def __post_init__(self):
        check_range("shape.nodes", self.nodes, 2)
        check_range("shape.degree", self.degree, 1)
        check_range("shape.rounds", self.rounds, 1)
        check_range("shape.max_budget", self.max_budget, 1)
