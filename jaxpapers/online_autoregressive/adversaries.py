"""Adversaries of the online game (spec "adversaries.py") and the game loop :func:`play_game`.

An adversary proposes a prompt (``prompt() -> x``, ``None`` to stop) and answers the learner's prediction
(``respond(x, ŷ)``: a label y under E2E, the M-token chain under CoT). Every answer is realisable: the
adversary keeps its own version space (or candidate set) and answers with a member's true output, computed
from the generator itself. None of them reads the solver's value as a mistake count (spec Pitfall: played
games must not be circular).

* :class:`LatchAdversary` — the explicit lower-bound strategy for latch classes (spec Family 1).
* :class:`OptimalAdversary` / :class:`OptimalCoTAdversary` — follow an optimal mistake tree (exact values).
* :class:`GreedySplitAdversary` — most balanced split by counts (where exact values are too costly).
* :class:`RandomAdversary` — a fixed target f*, random prompts.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.online_autoregressive.generators import GeneratorClass
from jaxpapers.online_autoregressive.littlestone import CoTGame, LdimSolver


def _answer(cls: GeneratorClass, row: int, x: int, m: int, feedback: str):
    chain = cls.chain(row, x, m)
    return chain if feedback == "cot" else int(chain[-1])


class LatchAdversary:
    """The latch lower-bound strategy: probe 0^{n0}, n0 = M, 2M, ... against the prediction, then binary-search.

    Probe 0^{n0}: a prediction 1 is answered by a k outside the window [n0, n0+M-1] (output 0; the window is
    dropped and the next probe moves on by M); a prediction 0 by k = the largest candidate in the window
    (output 1; under CoT that chain reveals k, which ends the game). Search (E2E): the candidates lie in one
    window, where 0^n answers 1 iff k ≥ n; ask the median and answer against the prediction.
    Works on the latch class's rows (``cls.labels`` are the k values); prompts are contexts (0^n -> n).
    """

    def __init__(self, cls: GeneratorClass, m: int, feedback: str = "e2e"):
        check_choice("feedback", feedback, ("e2e", "cot"))
        if cls.kind != "latch":
            raise ValueError(f"LatchAdversary needs a latch class, got kind={cls.kind!r}")
        self.cls, self.m, self.feedback, self.r = cls, int(m), feedback, int(cls.params["R"])
        self.k = np.asarray(cls.labels)
        self.reset()

    def reset(self) -> None:
        self.cand = np.ones(self.k.size, dtype=bool)
        self.n0, self.phase = self.m, "probe"

    def _row(self, sel: np.ndarray, pick: str) -> int:
        rows = np.flatnonzero(sel)
        return int(rows[np.argmax(self.k[rows])] if pick == "max" else rows[np.argmin(self.k[rows])])

    def prompt(self) -> int | None:
        if np.count_nonzero(self.cand) <= 1:
            return None
        if self.phase == "probe":
            window = self.cand & (self.k >= self.n0) & (self.k <= self.n0 + self.m - 1)
            return self.n0 if self.n0 < self.r and window.any() else None
        ks = np.sort(self.k[self.cand])
        return int(ks[ks.size // 2])

    def respond(self, x: int, yhat: int):
        if self.phase == "probe":
            window = (self.k >= x) & (self.k <= x + self.m - 1)
            outside, inside = self.cand & ~window, self.cand & window
            if yhat == 1 and outside.any():
                row = self._row(outside, "min")
                self.cand, self.n0 = outside, self.n0 + self.m
            else:
                row = self._row(inside, "max")
                self.cand = np.arange(self.k.size) == row if self.feedback == "cot" else inside
                self.phase = "search"
            return _answer(self.cls, row, x, self.m, self.feedback)
        above = self.cand & (self.k >= x)
        side = self.cand & ~above if yhat == 1 else above
        row = self._row(side, "min")
        self.cand = np.arange(self.k.size) == row if self.feedback == "cot" else side
        return _answer(self.cls, row, x, self.m, self.feedback)


class OptimalAdversary:
    """E2E: the prompt maximising min(L(V_{x,0}), L(V_{x,1})), answered against the prediction."""

    feedback = "e2e"

    def __init__(self, solver: LdimSolver):
        self.solver = solver
        self.reset()

    def reset(self) -> None:
        self.v = self.solver.full

    def prompt(self) -> int | None:
        best, best_x = -1, None
        for x in range(len(self.solver.cols)):
            v0, v1 = self.solver.children(self.v, x)
            if v0 and v1:
                val = min(self.solver.value(v0), self.solver.value(v1))
                if val > best:
                    best, best_x = val, x
        return best_x

    def respond(self, x: int, yhat: int) -> int:
        v0, v1 = self.solver.children(self.v, x)
        y = 1 - int(yhat) if (v1 if yhat == 0 else v0) else int(yhat)
        self.v = v1 if y else v0
        return y


class OptimalCoTAdversary:
    """CoT: the prompt of largest game value; reveals the chain of largest sub-value that contradicts ŷ."""

    feedback = "cot"

    def __init__(self, game: CoTGame, cls: GeneratorClass, prompts, m: int):
        self.game, self.cls, self.prompts, self.m = game, cls, np.asarray(prompts), int(m)
        self.reset()

    def reset(self) -> None:
        self.v = self.game.full

    def _value_at(self, j: int) -> float:
        cut = self.game.cut(self.v, j)
        if len(cut) < 2:
            return -1
        m = {False: -np.inf, True: -np.inf}
        for p, t in cut:
            m[t] = max(m[t], self.game.value(p))
        return min(max(m[False], 1 + m[True]), max(1 + m[False], m[True]))

    def prompt(self) -> int | None:
        vals = [self._value_at(j) for j in range(len(self.prompts))]
        j = int(np.argmax(vals))
        self._j = j
        return int(self.prompts[j]) if vals[j] >= 0 else None

    def respond(self, x: int, yhat: int):
        cut = self.game.cut(self.v, self._j)
        against = [(p, t) for p, t in cut if t != bool(yhat)] or cut
        part = max(against, key=lambda pt: self.game.value(pt[0]))[0]
        self.v = part
        row = (part & -part).bit_length() - 1
        return self.cls.chain(row, x, self.m)


class GreedySplitAdversary:
    """The prompt with the most balanced split of the version space by counts, answered against ŷ.

    E2E: ``matrix`` bool[N, X] is the induced class (rows deduplicated by the caller). CoT: ``matrix`` holds the
    base class's final tokens and ``codes`` int[N, X] its chain labels; the revealed chain is the most common
    chain among members whose final token contradicts ŷ (it is rolled out from ``cls``). Column j is prompt
    ``prompts[j]``. Ties between prompts: lowest index, or random with ``rng``.
    """

    def __init__(
        self,
        matrix: np.ndarray,
        prompts,
        codes: np.ndarray | None = None,
        cls: GeneratorClass | None = None,
        m: int | None = None,
        rng: np.random.Generator | None = None,
    ):
        self.matrix, self.prompts = np.asarray(matrix, bool), np.asarray(prompts)
        self.codes = None if codes is None else np.asarray(codes)
        if self.codes is not None and (cls is None or m is None):
            raise ValueError("the CoT greedy adversary needs cls and m to produce chains")
        self.feedback = "e2e" if codes is None else "cot"
        self.cls, self.m, self.rng = cls, m, rng
        self.reset()

    def reset(self) -> None:
        self.v = np.ones(self.matrix.shape[0], dtype=bool)

    def prompt(self) -> int | None:
        ones = (self.v[:, None] & self.matrix).sum(0)
        split = np.minimum(ones, self.v.sum() - ones).astype(np.float64)
        if split.max() <= 0:
            return None
        if self.rng is not None:
            split = split + 0.5 * self.rng.random(split.shape)
        self._j = int(np.argmax(split))
        return int(self.prompts[self._j])

    def respond(self, x: int, yhat: int):
        j, y = self._j, 1 - int(yhat)
        side = self.v & (self.matrix[:, j] == bool(y))
        if self.codes is None:
            self.v = side
            return y
        counts = np.bincount(self.codes[side, j], minlength=self.codes.shape[0])
        self.v = self.v & (self.codes[:, j] == int(np.argmax(counts)))
        return self.cls.chain(int(np.flatnonzero(self.v)[0]), x, self.m)


class RandomAdversary:
    """A fixed target generator f* (row ``target``); prompts drawn uniformly from ``prompts``."""

    def __init__(
        self, cls: GeneratorClass, m: int, target: int, prompts, rng: np.random.Generator, feedback: str = "e2e"
    ):
        check_choice("feedback", feedback, ("e2e", "cot"))
        self.cls, self.m, self.target, self.feedback = cls, int(m), int(target), feedback
        self.prompts, self.rng = np.asarray(prompts), rng

    def prompt(self) -> int:
        return int(self.rng.choice(self.prompts))

    def respond(self, x: int, yhat: int):
        return _answer(self.cls, self.target, x, self.m, self.feedback)


def play_game(learner, adversary, rounds: int) -> int:
    """Runs the protocol for at most ``rounds`` rounds; returns the learner's mistakes on the final token."""
    mistakes = 0
    for _ in range(int(rounds)):
        x = adversary.prompt()
        if x is None:
            break
        yhat = int(learner.predict(x))
        answer = adversary.respond(x, yhat)
        if getattr(learner, "feedback", "e2e") == "cot":
            chain = np.asarray(answer, dtype=bool)
            learner.update_chain(x, chain)
            mistakes += int(bool(chain[-1]) != bool(yhat))
        else:
            learner.update(x, int(answer))
            mistakes += int(int(answer) != yhat)
    return mistakes
