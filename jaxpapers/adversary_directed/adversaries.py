"""Realizable adversaries of the spec's "adversaries.py" that play against the learners of :mod:`.play`.

* :func:`mistake_tree` — an optimal multiclass mistake tree of H|_S (depth Ldim(H|_S), Daniely et al. 2015):
  each node carries an instance x and two out-edges with **distinct** labels, every root-to-leaf path is
  realised by some h ∈ H, and (realizable case) no path repeats an instance;
* :func:`tree_follower` — ``TreeFollower``: presents the tree's instances, answering each prediction ŷ with the
  edge label ≠ ŷ (a mistake at every node), then "dumps the rest": the unpresented instances in index order,
  labelled by the first hypothesis still consistent. Every deterministic learner errs ≥ depth times;
* :func:`random_order_realizable` — ``RandomOrderRealizable(h*)``: a uniformly random order of S, labels h*.

Both adversaries present each instance of S exactly once (spec "The game") and stay realizable (checked).
Games are short Python loops over T rounds (the learners are Python), for tiny-size studies and tests.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.adversary_directed.classes import as_class
from jaxpapers.adversary_directed.play import LEARNERS, _predict
from jaxpapers.adversary_directed.reference import label_masks
from jaxpapers.core.checks import check_choice, check_range

__all__ = ["mistake_tree", "random_order_realizable", "tree_depth", "tree_follower"]

# A tree is None (a leaf) or (x, ((y_a, subtree_a), (y_b, subtree_b))) with y_a ≠ y_b.
Tree = Any


def mistake_tree(H: Int[ArrayLike, "m t"]) -> Tree:
    """An optimal mistake tree of H over its columns, built from the Ldim recursion (spec "reference.py")."""
    H = as_class(H)
    masks = label_masks(H)
    label_of = [sorted({int(v) for v in H[:, x]}) for x in range(H.shape[1])]

    @functools.cache
    def best(vs: int) -> tuple[int, Tree]:
        top: tuple[int, Tree] = (0, None)
        for x, mx in enumerate(masks):
            kids = [(label_of[x][j], mx[j] & vs) for j in range(len(mx)) if mx[j] & vs]
            if len(kids) < 2:
                continue
            scored = sorted(((best(c)[0], y, c) for y, c in kids), key=lambda k: (-k[0], k[1]))
            (_, ya, ca), (db, yb, cb) = scored[0], scored[1]
            if 1 + db > top[0]:
                top = (1 + db, (x, ((ya, best(ca)[1]), (yb, best(cb)[1]))))
        return top

    return best((1 << H.shape[0]) - 1)[1]


def tree_depth(tree: Tree) -> int:
    """Length of the shortest root-to-leaf path (the mistakes the tree forces)."""
    if tree is None:
        return 0
    return 1 + min(tree_depth(sub) for _, sub in tree[1])


def _check_learner(learner: str, H: np.ndarray) -> None:
    check_choice("learner", learner, LEARNERS)
    if H.shape[0] == 0:
        raise ValueError("H: the class is empty; allowed: at least one hypothesis")


def tree_follower(H: Int[ArrayLike, "m t"], tree: Tree = None, learner: str = "soa") -> tuple[int, list[int]]:
    """(mistakes of ``learner``, presentation order) against ``TreeFollower`` on ``tree`` (default: optimal)."""
    H = as_class(H)
    _check_learner(learner, H)
    tree = mistake_tree(H) if tree is None else tree
    m, T = H.shape
    alive, order, mistakes = np.arange(m), [], 0
    while tree is not None:
        x, edges = tree
        if x in order:
            raise ValueError(f"tree: instance {x} repeats on a path; allowed: each instance at most once per path")
        col = H[alive, x]
        guess = _predict(learner, H[alive], col)
        y, tree = edges[1] if edges[0][0] == guess else edges[0]
        if not np.any(col == y):
            raise ValueError(f"tree: label {y} at instance {x} is not realised by H on this path")
        mistakes += int(y != guess)
        alive, order = alive[col == y], order + [int(x)]
    h = alive[0]
    for x in range(T):  # dump the rest, labelled by a consistent hypothesis
        if x in order:
            continue
        col = H[alive, x]
        guess = _predict(learner, H[alive], col)
        mistakes += int(H[h, x] != guess)
        alive, order = alive[col == H[h, x]], order + [x]
    return mistakes, order


def random_order_realizable(
    H: Int[ArrayLike, "m t"], h_star: int, learner: str = "soa", seed: int = 0, order=None
) -> tuple[int, list[int]]:
    """(mistakes of ``learner``, order) against ``RandomOrderRealizable(h*)``: random order, labels H[h*].

    ``order`` fixes the order instead of drawing it (exhaustive tests enumerate all T! orders).
    """
    H = as_class(H)
    _check_learner(learner, H)
    m, T = H.shape
    check_range("h_star", h_star, 0, m - 1)
    if order is None:
        order = np.random.default_rng(seed).permutation(T)
    order = [int(x) for x in order]
    if sorted(order) != list(range(T)):
        raise ValueError(f"order={order} must be a permutation of range({T})")
    alive, mistakes = np.arange(m), 0
    for x in order:
        col = H[alive, x]
        guess = _predict(learner, H[alive], col)
        mistakes += int(H[h_star, x] != guess)
        alive = alive[col == H[h_star, x]]
    return mistakes, order
