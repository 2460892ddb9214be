"""Studies shared by several claims (memoised per process with ``core.memo.shared``).

``family_values`` solves a named family on nested domains T = 1..T_max in ONE call of the solver
(``solver="auto"``): binary families take the dense ternary DP (:mod:`.dense`: every T of the sweep in one value
array; its programs are shared by sweeps whose padded sizes agree), multiclass ones (prefix, adaptive-order) the
mask solver padded to (T 8, |H| 256, 256 labels) deterministic and (T 8, |H| 64, 64 labels) randomized — so
D1–D5 and D8 share their compilations when they run in one process. Both paths are exact (tests, D1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jaxpapers.adversary_directed import classes
from jaxpapers.adversary_directed.game import solve_batch
from jaxpapers.core import memo
from jaxpapers.core.checks import check_choice

__all__ = ["FAMILIES", "MULTICLASS", "family", "family_values", "solve_shared"]

FAMILIES: dict[str, Callable[[int], np.ndarray]] = {
    "singletons": classes.singletons,
    "sparse2": lambda T: classes.k_sparse(T, 2),
    "sparse3": lambda T: classes.k_sparse(T, 3),
    "thresholds": classes.thresholds,
    "intervals": classes.intervals,
    "unions2": lambda T: classes.unions_of_k_intervals(T, 2),
    "all_subsets": classes.all_subsets,
    "prefix": classes.prefix_class,
    "adaptive_order": classes.adaptive_order_class,
}
MULTICLASS = ("prefix", "adaptive_order")

# (t_pad, m_pad, n_labels) per (multiclass, randomized): the shared program shapes.
_SHAPES = {
    (False, False): (12, 256, 2),
    (False, True): (12, 256, 2),
    (True, False): (8, 256, 256),
    (True, True): (8, 64, 64),
}


def family(name: str, T: int) -> np.ndarray:
    """The named family on T points (names: :data:`FAMILIES`, or ``sparse<k>`` for any k)."""
    if name.startswith("sparse") and name[6:].isdigit():
        return classes.k_sparse(T, int(name[6:]))
    check_choice("family", name, FAMILIES)
    return FAMILIES[name](T)


def solve_shared(mats, randomized: bool = False, mode: str = "adversary") -> np.ndarray:
    """Game values of ``mats`` through the shared program shapes (binary vs multiclass classes)."""
    mats = [classes.relabel(m) for m in mats]
    n_lab = max(int(m.max()) + 1 for m in mats)
    t_pad, m_pad, n_labels = _SHAPES[(n_lab > 2, bool(randomized))]
    t_pad = max(t_pad, 4 * -(-max(m.shape[1] for m in mats) // 4))
    m_pad = max(m_pad, 1 << int(np.ceil(np.log2(max(len(m) for m in mats)))))
    n_labels = max(n_labels, 1 << int(np.ceil(np.log2(n_lab))))
    return solve_batch(mats, bool(randomized), mode, t_pad=t_pad, m_pad=m_pad, n_labels=n_labels, solver="auto")


def family_values(name: str, Ts: Sequence[int] | np.ndarray, randomized: bool = False) -> np.ndarray:
    """Adversary-directed game values of family ``name`` at every T in ``Ts`` (one padded batch, memoised)."""
    Ts = [int(t) for t in Ts]
    run = lambda: solve_shared([family(name, T) for T in Ts], randomized)  # noqa: E731
    return memo.shared("adversary_directed/family_values", name, Ts, bool(randomized), fn=run)
