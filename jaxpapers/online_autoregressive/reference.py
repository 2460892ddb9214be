"""String-level reference for the halving-vs-greedy games (claim O6c): threshold functions from explicit integer
(w, θ), chains rolled out by appending tokens to actual token strings, and the exact expectation of halving's
mistakes against the greedy splitting adversary, averaged over the adversary's uniform ties (spec O6, revised).

Independent of the jitted games (:mod:`games`), the packed truth tables (:mod:`generators`) and the chain codes
(:mod:`induced`): O6c judges those against the numbers computed here.
"""

from __future__ import annotations

import numpy as np


def ltf_on_string(w, theta, s) -> int:
    """1[<w, last_d(s)> > θ] with last_d(s)[i] = s[-d + i] (oldest first), on an explicit token list."""
    d = len(w)
    return int(np.dot(w, s[-d:]) > theta)


def run_on_string(f, prompt, m) -> list[int]:
    """The chain c_f^M(x) by appending tokens to the actual string."""
    s, chain = list(prompt), []
    for _ in range(m):
        tok = f(s)
        chain.append(tok)
        s.append(tok)
    return chain


def ltf_tables_by_weights(d: int, w: int = 2) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Every threshold function on {0,1}^d from explicit integer (w, θ) (θ between consecutive sums), as truth
    tables over the points in ``itertools.product`` order; independent of the package's enumeration."""
    import itertools

    pts = list(itertools.product((0, 1), repeat=d))
    tables = set()
    for ws in itertools.product(range(-w, w + 1), repeat=d):
        sums = sorted({int(np.dot(ws, p)) for p in pts})
        for theta in [sums[0] - 0.5] + [s + 0.5 for s in sums]:
            tables.add(tuple(int(np.dot(ws, p) > theta) for p in pts))
    return sorted(tables), pts


def greedy_halving_expectation(d: int, m: int, feedback: str):
    """Exact expected mistakes of halving vs the greedy splitting adversary on LTF_d^M, averaged uniformly over
    the adversary's ties between equally balanced prompts (spec O6): chains rolled out on explicit token
    strings, the most common chain ending in the answer revealed under CoT (ties: lexicographically first),
    the induced class deduplicated under E2E. Returns a ``fractions.Fraction``."""
    import functools
    from fractions import Fraction

    tables, pts = ltf_tables_by_weights(d)
    rows = [[tuple(run_on_string(lambda s, t=t: t[pts.index(tuple(s[-d:]))], p, m)) for p in pts] for t in tables]
    if feedback == "e2e":
        rows = [[(y,) for y in r] for r in sorted({tuple(c[-1] for c in r) for r in rows})]

    @functools.cache
    def value(v: tuple[int, ...]) -> Fraction:
        ones = [sum(rows[i][x][-1] for i in v) for x in range(len(pts))]
        split = [min(o, len(v) - o) for o in ones]
        best = max(split)
        if best == 0:
            return Fraction(0)
        total = Fraction(0)
        tied = [x for x in range(len(pts)) if split[x] == best]
        for x in tied:
            y = 0 if 2 * ones[x] > len(v) else 1  # against halving's majority vote (ties: 0)
            side = [i for i in v if rows[i][x][-1] == y]
            counts: dict = {}
            for i in side:
                counts[rows[i][x]] = counts.get(rows[i][x], 0) + 1
            chain = min(c for c, k in counts.items() if k == max(counts.values()))
            total += 1 + value(tuple(i for i in side if rows[i][x] == chain))
        return total / len(tied)

    return value(tuple(range(len(rows))))
