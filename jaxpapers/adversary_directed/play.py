"""Played realizable games (spec "learners.py"/"adversaries.py", realizable part): learners against the
optimal adversary that follows the solver's value table (:class:`game.GameSolution`).

Learners (deterministic): ``"soa"`` (predict the label whose version space has the largest Littlestone
dimension — Littlestone 1988, multiclass: Daniely et al. 2015), ``"halving"`` (the majority label),
``"constant"`` (always the smallest feasible label; a baseline). The adversary ``OptimalAD`` presents the
unpresented instance with the largest value and answers the label y maximizing [y ≠ ŷ] + v_y. Every learner
suffers ≥ the game value against it; SOA suffers exactly the value (its mistakes are ≤ Ldim(H|_S) = value).
"""

from __future__ import annotations

import numpy as np

from jaxpapers.adversary_directed import reference
from jaxpapers.adversary_directed.game import GameSolution
from jaxpapers.core.checks import check_choice

__all__ = ["LEARNERS", "play_optimal_adversary"]

LEARNERS = ("soa", "halving", "constant")


def _predict(learner: str, rows: np.ndarray, col: np.ndarray) -> int:
    labels, counts = np.unique(col, return_counts=True)
    if learner == "halving":
        return int(labels[np.argmax(counts)])
    if learner == "constant":
        return int(labels[0])
    dims = [reference.ldim(rows[col == y]) if np.sum(col == y) > 1 else 0 for y in labels]
    return int(labels[int(np.argmax(dims))])


def play_optimal_adversary(sol: GameSolution, T: int, learner: str = "soa") -> int:
    """Mistakes of ``learner`` against the optimal adversary following ``sol`` (from ``solve_table``) on T points."""
    check_choice("learner", learner, LEARNERS)
    H, table = sol.H, sol.table
    alive = np.arange(len(H))
    P, mistakes = sol.start, 0
    for _ in range(T):
        best = None
        for x in range(T):
            if P >> x & 1:
                continue
            col = H[alive, x]
            vals = sorted((table[P | 1 << x, alive[col == y][0]] for y in np.unique(col)), reverse=True)
            v = vals[0] if len(vals) == 1 else max(vals[0], vals[1] + 1)
            if best is None or v > best[0]:
                best = (v, x)
        x = best[1]
        col = H[alive, x]
        guess = _predict(learner, H[alive][:, :T], col)
        answer = max(np.unique(col), key=lambda y: (int(y != guess) + table[P | 1 << x, alive[col == y][0]], -y))
        mistakes += int(answer != guess)
        alive, P = alive[col == answer], P | 1 << x
    return mistakes
