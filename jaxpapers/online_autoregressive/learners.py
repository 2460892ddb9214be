"""Online learners for the E2E and CoT protocols (spec "learners.py").

E2E learners act on the induced class F^M through an oracle (``MatrixOracle`` or the lazy ``ColumnOracle``):
``predict(x) -> ŷ``, ``update(x, y)``. CoT learners act on the *base* class F on the contexts:
``predict(x) -> ŷ`` and ``update_chain(x, chain)``. Every learner holds its version space as a bitset over
the rows (``mask`` gives it as a bool vector); updates are ANDs with a column or its complement.

* :class:`Halving` — majority vote of the version space (≤ log2 |F^M| mistakes).
* :class:`ZeroThenHalving` — the latch upper-bound learner: predict 0 until the first positive answer, then
  halving (spec Family 1: ≤ 1 + ⌊log2 M⌋ mistakes).
* :class:`SOA` — Littlestone's Standard Optimal Algorithm with the *exact* Ldim of both children (spec
  Pitfall: approximate values break optimality), ≤ Ldim(F^M) mistakes.
* :class:`CoTSOA` — the base-class SOA rolled out M steps without updates (its own tokens, never the revealed
  ones), then fed the revealed chain's M examples in order (spec "CoT learner with bound Ldim(F)").
* :class:`CoTHalving` — majority vote of the base version space on the final token, chain updates.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.online_autoregressive.generators import GeneratorClass
from jaxpapers.online_autoregressive.induced import ColumnOracle, MatrixOracle, dedupe
from jaxpapers.online_autoregressive.littlestone import LdimSolver, bitmasks, from_bits


class Halving:
    """Predicts the majority label of the version space (ties: 0)."""

    feedback = "e2e"

    def __init__(self, oracle: MatrixOracle | ColumnOracle):
        self.oracle = oracle
        self.reset()

    def reset(self) -> None:
        self.v = np.ones(self.oracle.n, dtype=bool)

    @property
    def mask(self) -> np.ndarray:
        return self.v

    def predict(self, x: int) -> int:
        ones = int(np.count_nonzero(self.v & self.oracle.column(x)))
        return int(2 * ones > int(np.count_nonzero(self.v)))

    def update(self, x: int, y: int) -> None:
        self.v &= self.oracle.column(x) == bool(y)


class ZeroThenHalving(Halving):
    """0 until the first positive answer, then halving (the latch class's upper-bound learner)."""

    def reset(self) -> None:
        super().reset()
        self.seen_positive = False

    def predict(self, x: int) -> int:
        return super().predict(x) if self.seen_positive else 0

    def update(self, x: int, y: int) -> None:
        super().update(x, y)
        self.seen_positive |= bool(y)


def _soa_choice(solver: LdimSolver, v: int, col: int) -> int:
    """SOA's label at a point: the child of larger exact Ldim (ties: the larger child, then 1)."""
    a = v & col
    if a == 0:
        return 0
    if a == v:
        return 1
    b = v ^ a
    na, nb = a.bit_count(), b.bit_count()
    if min(na, nb) == 1:  # a singleton child has L = 0; with distinct rows a larger child has L ≥ 1
        return int(na > nb) if na != nb else 1
    la, lb = solver.value(a), solver.value(b)
    if la != lb:
        return int(la > lb)
    return int(na >= nb)


class SOA:
    """Standard Optimal Algorithm on a class given as a bool matrix (duplicate rows merged)."""

    feedback = "e2e"

    def __init__(self, matrix: np.ndarray, solver: LdimSolver | None = None):
        self.matrix = dedupe(matrix)[0]
        self.solver = solver if solver is not None else LdimSolver(self.matrix)
        if self.solver.matrix.shape != self.matrix.shape or not np.array_equal(self.solver.matrix, self.matrix):
            raise ValueError("solver was built for another matrix")
        self.reset()

    def reset(self) -> None:
        self.v = self.solver.full

    @property
    def mask(self) -> np.ndarray:
        return from_bits(self.v, self.solver.n)

    def predict(self, x: int) -> int:
        return _soa_choice(self.solver, self.v, self.solver.cols[x])

    def update(self, x: int, y: int) -> None:
        a = self.v & self.solver.cols[x]
        self.v = a if y else self.v ^ a


class _CoTBase:
    """Version space over the base class's rows; chain updates on the contexts, in order."""

    feedback = "cot"

    def __init__(self, cls: GeneratorClass, m: int):
        self.cls, self.m = cls, int(m)
        self.cols = bitmasks(cls.table)
        self.full = (1 << cls.n) - 1
        self.reset()

    def reset(self) -> None:
        self.v = self.full

    @property
    def mask(self) -> np.ndarray:
        return from_bits(self.v, self.cls.n)

    def update_chain(self, x: int, chain) -> None:
        """Feeds (s_{t-1}, c_t), t = 1..M, in order: later contexts contain the earlier *revealed* tokens."""
        c, trans, cols, v = int(x), self.cls.trans_list, self.cols, self.v
        for tok in np.asarray(chain, dtype=bool).tolist():
            a = v & cols[c]
            v = a if tok else v ^ a
            c = trans[c][tok]
        self.v = v


class CoTSOA(_CoTBase):
    """The base-class SOA rolled out M steps from the prompt; final token = prediction (bound Ldim(F))."""

    def __init__(self, cls: GeneratorClass, m: int, solver: LdimSolver | None = None):
        super().__init__(cls, m)
        self.solver = solver if solver is not None else LdimSolver(cls.table)

    def rollout(self, x: int) -> list[int]:
        """SOA's own M tokens from prompt context x (round-start version space, no updates)."""
        c, toks, trans, cols, v = int(x), [], self.cls.trans_list, self.cols, self.v
        for _ in range(self.m):
            a = v & cols[c]
            if not a or a == v:  # one-sided: no Ldim needed
                tok = int(bool(a))
            else:  # a singleton child has L = 0 and, rows being distinct, a larger child L ≥ 1
                b = v ^ a
                sa, sb = not a & (a - 1), not b & (b - 1)
                tok = 0 if sa and not sb else 1 if sb and not sa else _soa_choice(self.solver, v, cols[c])
            toks.append(tok)
            c = trans[c][tok]
        return toks

    def predict(self, x: int) -> int:
        return self.rollout(x)[-1]


class CoTHalving(_CoTBase):
    """Majority vote of the base version space on the final token; chain updates."""

    def __init__(self, cls: GeneratorClass, m: int, oracle: ColumnOracle | None = None):
        super().__init__(cls, m)
        self.oracle = oracle if oracle is not None else ColumnOracle(cls, m)

    def predict(self, x: int) -> int:
        v = self.mask
        return int(2 * int(np.count_nonzero(v & self.oracle.column(x))) > int(np.count_nonzero(v)))
