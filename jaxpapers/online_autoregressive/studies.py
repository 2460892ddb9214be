"""Studies shared by several claims (memoised per process with ``core.memo.shared``).

The E2E latch games (exact Ldim, SOA and 0-then-halving against the LatchAdversary) are claim O1's
measurement and claim O2's E2E comparison.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core import memo
from jaxpapers.online_autoregressive.adversaries import LatchAdversary, play_game
from jaxpapers.online_autoregressive.config import LatchConfig
from jaxpapers.online_autoregressive.generators import _pow2, latch_class
from jaxpapers.online_autoregressive.induced import ColumnOracle, dedupe, e2e_matrix
from jaxpapers.online_autoregressive.learners import SOA, ZeroThenHalving
from jaxpapers.online_autoregressive.littlestone import LdimSolver


def dense_latch(lc: LatchConfig, m: int):
    """The latch class K = {0..R-1}, R = r_mult·M + r_offset, and its prompts 0^n, n < R (contexts n)."""
    r = lc.r(m)
    return latch_class(np.arange(r), r), np.arange(r)


def _latch_e2e(lc: LatchConfig) -> dict:
    exact, soa, halving = [], [], []
    r_max = max(lc.r(m) for m in lc.ms_exact)
    pad = (_pow2(r_max), _pow2(r_max + 2), _pow2(r_max))  # one compiled roll-out for the whole sweep
    for m in lc.ms_exact:
        cls, prompts = dense_latch(lc, m)
        solver = LdimSolver(dedupe(e2e_matrix(cls, prompts, m, pad=pad))[0])
        exact.append(solver.value())
        soa.append(play_game(SOA(solver.matrix, solver), LatchAdversary(cls, m, "e2e"), 4 * m + 64))
    r_max = max(lc.r(m) for m in lc.ms_played)
    pad = (_pow2(r_max), _pow2(r_max + 2), 1)
    for m in lc.ms_played:
        cls, _ = dense_latch(lc, m)
        oracle = ColumnOracle(cls, m, pad=pad)
        halving.append(play_game(ZeroThenHalving(oracle), LatchAdversary(cls, m, "e2e"), 4 * m + 64))
    return {
        "ms_exact": list(lc.ms_exact),
        "exact": np.array(exact),
        "soa": np.array(soa),
        "ms_played": list(lc.ms_played),
        "halving": np.array(halving),
    }


def latch_e2e(lc: LatchConfig) -> dict:
    """Exact Ldim(F_K^M), SOA's and 0-then-halving's mistakes vs the LatchAdversary (claim O1; O2 compares)."""
    return memo.shared("online_autoregressive/latch_e2e", lc, fn=lambda: _latch_e2e(lc))
