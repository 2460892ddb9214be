"""Adversary-directed online learning: exact game values, perfect Littlestone dimension, the trichotomy.

The learner is told the set S of T instances in advance; an adversary orders them adaptively and labels them
(realizably, from a finite class H ⊆ Y^X with any finite label set). No preprint was found: the game, the
randomized/transductive/self-directed variants and the perfect Littlestone dimension (PLdim) are our
reconstruction (``shared/specs/adversary_directed.md``). Public API::

    import jaxpapers.adversary_directed as ad
    H = ad.intervals(12)                                    # int label matrix [|H|, T]
    ad.minimax_mistakes(H)                                  # 5.0: exact game value (JAX fori_loop solver)
    ad.minimax_mistakes(H, randomized=True)                 # expected mistakes of the best randomized learner
    ad.rate_curve(ad.thresholds, range(1, 13))              # 1,1,2,2,2,2,3,3,3,3,3,3 (one compiled program)
    ad.dimensions(ad.prefix_class(6))                       # Natarajan 1, LCdim = PLdim = Ldim = 6
    ad.agnostic_regret(ad.thresholds, [16, 64, 256], "random", seeds=32)   # Hedge's exact expected regret

Modules: ``classes`` (families, restrict, relabel, load_class), ``game`` (the solver, transductive values),
``dense`` (the binary ternary-DP fast path), ``reference`` (pure-Python references), ``dims`` (Ldim, VC,
Natarajan, LCdim, PLdim), ``online`` (standard online thresholds), ``play`` (SOA/Halving/constant vs the
optimal adversary), ``adversaries`` (TreeFollower, RandomOrderRealizable), ``agnostic`` (Hedge vs the
adversaries), ``closed_forms`` (predictions only), ``studies``,
``experiments``, ``figures``, ``claims``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jaxpapers.adversary_directed import experiments, figures
from jaxpapers.adversary_directed.adversaries import mistake_tree, random_order_realizable, tree_follower
from jaxpapers.adversary_directed.agnostic import hedge_bound, hedge_regret_grid
from jaxpapers.adversary_directed.classes import (
    adaptive_order_class,
    all_subsets,
    intervals,
    k_sparse,
    load_class,
    prefix_class,
    random_class,
    relabel,
    restrict,
    singletons,
    thresholds,
    unions_of_k_intervals,
)
from jaxpapers.adversary_directed.dims import (
    dimensions,
    lc_ldim,
    ldim,
    natarajan_dim,
    perfect_ldim,
    predict_regime,
    regime_of_values,
    vc_dim,
)
from jaxpapers.adversary_directed.game import GameSolution, solve_batch, solve_game, solve_table, transductive_value
from jaxpapers.adversary_directed.online import standard_online_thresholds
from jaxpapers.adversary_directed.play import play_optimal_adversary
from jaxpapers.adversary_directed.reference import game_value as reference_game_value
from jaxpapers.adversary_directed.studies import FAMILIES, family, family_values, solve_shared


def minimax_mistakes(H, randomized: bool = False, mode: str = "adversary") -> float:
    """M(H, S) with S = H's columns: ``mode`` "adversary" (default), "self" (learner orders) or "transductive".

    Runs through the shared padded programs (``studies.solve_shared``), so repeated calls compile nothing new.
    """
    if mode == "transductive":
        return transductive_value(H, randomized)
    return float(solve_shared([np.asarray(H)], randomized, mode)[0])


def rate_curve(
    class_fn: Callable[[int], np.ndarray], Ts: Sequence[int] | np.ndarray, randomized: bool = False
) -> np.ndarray:
    """M_AD(class_fn(T), T) for every T (all classes padded to one shape: one compiled program)."""
    return solve_batch([class_fn(int(T)) for T in Ts], randomized)


def agnostic_regret(
    class_fn: Callable[[int], np.ndarray],
    Ts: Sequence[int] | np.ndarray,
    adversary: str = "random",
    seeds: int = 8,
    seed: int = 0,
) -> np.ndarray:
    """Hedge's exact expected regret ``[len(Ts), seeds]`` against ``adversary`` ("random", "anti", "tree")."""
    return hedge_regret_grid([class_fn(int(T)) for T in Ts], seeds, adversary, seed)[0]


__all__ = [
    "FAMILIES",
    "GameSolution",
    "adaptive_order_class",
    "agnostic_regret",
    "all_subsets",
    "dimensions",
    "experiments",
    "family",
    "family_values",
    "figures",
    "hedge_bound",
    "hedge_regret_grid",
    "intervals",
    "k_sparse",
    "lc_ldim",
    "ldim",
    "load_class",
    "minimax_mistakes",
    "mistake_tree",
    "natarajan_dim",
    "perfect_ldim",
    "play_optimal_adversary",
    "predict_regime",
    "prefix_class",
    "random_class",
    "random_order_realizable",
    "rate_curve",
    "reference_game_value",
    "regime_of_values",
    "relabel",
    "restrict",
    "singletons",
    "solve_batch",
    "solve_game",
    "solve_table",
    "standard_online_thresholds",
    "thresholds",
    "transductive_value",
    "tree_follower",
    "unions_of_k_intervals",
    "vc_dim",
]
