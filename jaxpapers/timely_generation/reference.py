"""A plain-Python reference of the game (the loop a theorist would write), for tests and the benchmark.

Independent of the JAX path: membership by Python integer arithmetic, critical language by explicit loops,
the output sets as Python sets. Same rules and tie-breaks as :func:`jaxpapers.timely_generation.game.play`.
"""

from __future__ import annotations

import math

import numpy as np

BIG = 2**31 - 1


def member_py(kind: int, p, u: int) -> bool:
    """u ∈ L for one language (plain integers)."""
    p0, p1, p2 = (int(x) for x in p)
    if kind == 0:
        return u >= 1 and (p0 == 0 or u <= p1 or u % (2**p0) == 0)
    if kind == 1:
        return u >= p0 and (u - p0) % p1 == 0
    i = 0
    while p0 + p1 * i + p2 * i * i < u:
        i += 1
    return p0 + p1 * i + p2 * i * i == u


def _next(kind, p, v):
    u = v + 1
    while not member_py(kind, p, u):
        u += 1
    return u


def reference_play(
    kinds,
    params,
    sub,
    target,
    xs,
    gen,
    u_track,
    eps=0.0,
    schedule=False,
    k_table=None,
    g_table=None,
    novel_only=False,
    delta=0.25,
    cap=0.5,
) -> dict:
    """One game by plain loops; returns o, halluc, crit (lists) and out_time/credit_time (numpy, like ``play``)."""
    C = len(kinds)
    kk, kp = target
    cons = [True] * C
    ptr = [0] * (C + 1)
    deficit = [0.0] * C
    out_time, credit_time, rev_time = {}, {}, {}
    o_list, h_list, c_list = [], [], []
    for t, x in enumerate(xs, start=1):
        x = int(x)
        cons = [c and member_py(kinds[i], params[i], x) for i, c in enumerate(cons)]
        rev_time.setdefault(x, t)
        k1 = min(t, C)
        crit = -1
        for i in range(k1):
            if cons[i] and all(sub[i][j] or not cons[j] for j in range(i)):
                crit = i
        lang = -1
        if gen == "oracle":
            lang = C
        elif gen == "critical":
            lang = crit
        elif gen == "hedge":
            k = int(k_table[t])
            cand = [(cons[i] and i < k) or i == crit for i in range(C)]
            n_oth = sum(1 for i in range(C) if cand[i] and i != crit)
            e = min(cap, (1 + delta) * n_oth / g_table[t]) if schedule else eps
            e = 0.0 if n_oth == 0 else (1.0 if crit < 0 else e)
            best, best_d = -1, -math.inf
            for i in range(C):
                if cand[i]:
                    deficit[i] += (1 - e) if i == crit else e / max(n_oth, 1)
                    if deficit[i] > best_d:
                        best, best_d = i, deficit[i]
                else:
                    deficit[i] = 0.0
            if best >= 0:
                deficit[best] -= 1.0
            lang = best
        if lang < 0:
            o = x
        else:
            kd, pp = (kk, kp) if lang == C else (kinds[lang], params[lang])
            v = _next(kd, pp, ptr[lang])
            while v <= u_track and v in out_time:
                v = _next(kd, pp, v)
            ptr[lang] = v
            o = v
        if o <= u_track:
            out_time.setdefault(o, t)
            if not novel_only or rev_time.get(o, BIG) > t:
                credit_time.setdefault(o, t)
        o_list.append(o)
        h_list.append(not member_py(kk, kp, o))
        c_list.append(crit)
    ot = np.full(u_track + 2, BIG, np.int64)
    ct = np.full(u_track + 2, BIG, np.int64)
    for s, v in out_time.items():
        ot[s] = v
    for s, v in credit_time.items():
        ct[s] = v
    return {"o": o_list, "halluc": h_list, "crit": c_list, "out_time": ot, "credit_time": ct}
