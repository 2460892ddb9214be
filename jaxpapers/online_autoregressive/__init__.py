"""Online learning of autoregressive generators: E2E vs chain-of-thought feedback (arXiv 2605.06819).

Public API::

    import jaxpapers.online_autoregressive as oa
    latch = oa.latch_class(range(40), r=40)                   # f_k(s) = 1 iff |s| = k or s contains a 1
    oa.optimal_mistakes(latch, range(40), m=8)                # exact Ldim(F^M) = 1 + ⌊log2 8⌋ = 4
    oa.optimal_mistakes(latch, range(12), m=1, feedback="cot")  # exact CoT game value (small classes)
    ltf = oa.ltf_class(3)                                     # the 104 threshold functions on 3-token windows
    out, chains = oa.rollout(ltf.table, ltf.trans, range(8), 4)  # jitted scan over M, vmapped over (f, x)

Modules: ``config`` (typed settings, no JAX), ``generators`` (classes as finite-context truth tables, LTF
enumeration, the roll-out kernel), ``induced`` (F^M matrices, chain codes), ``littlestone`` (exact Littlestone
dimension, VC dimension, CoT game), ``learners`` (halving, SOA, CoTSOA), ``adversaries`` (latch, optimal,
greedy, random; the game loop), ``games`` (vectorised halving-vs-greedy games), ``api``, ``studies``,
``experiments``, ``figures``, ``claims``.
"""

from jaxpapers.online_autoregressive import experiments, figures
from jaxpapers.online_autoregressive.adversaries import (
    GreedySplitAdversary,
    LatchAdversary,
    OptimalAdversary,
    OptimalCoTAdversary,
    RandomAdversary,
    play_game,
)
from jaxpapers.online_autoregressive.api import hard_prompts, optimal_mistakes, play
from jaxpapers.online_autoregressive.config import (
    CeilingConfig,
    EnumerationConfig,
    LatchConfig,
    LTFExactConfig,
    LTFGamesConfig,
    TaxonomyConfig,
)
from jaxpapers.online_autoregressive.games import greedy_halving_games
from jaxpapers.online_autoregressive.generators import (
    A000609,
    GeneratorClass,
    enumerate_ltfs,
    latch_class,
    latch_family,
    load_class,
    ltf_class,
    rollout,
    window_class,
    window_index,
)
from jaxpapers.online_autoregressive.induced import ColumnOracle, MatrixOracle, chain_codes, dedupe, e2e_matrix
from jaxpapers.online_autoregressive.learners import SOA, CoTHalving, CoTSOA, Halving, ZeroThenHalving
from jaxpapers.online_autoregressive.littlestone import CoTGame, LdimSolver, cot_game_value, ldim, split_counts, vc_dim

__all__ = [
    "A000609",
    "SOA",
    "CeilingConfig",
    "ColumnOracle",
    "CoTGame",
    "CoTHalving",
    "CoTSOA",
    "EnumerationConfig",
    "GeneratorClass",
    "GreedySplitAdversary",
    "Halving",
    "LTFExactConfig",
    "LTFGamesConfig",
    "LatchAdversary",
    "LatchConfig",
    "LdimSolver",
    "MatrixOracle",
    "OptimalAdversary",
    "OptimalCoTAdversary",
    "RandomAdversary",
    "TaxonomyConfig",
    "ZeroThenHalving",
    "chain_codes",
    "cot_game_value",
    "dedupe",
    "e2e_matrix",
    "enumerate_ltfs",
    "experiments",
    "figures",
    "greedy_halving_games",
    "hard_prompts",
    "latch_class",
    "latch_family",
    "ldim",
    "load_class",
    "ltf_class",
    "optimal_mistakes",
    "play",
    "play_game",
    "rollout",
    "split_counts",
    "vc_dim",
    "window_class",
    "window_index",
]
