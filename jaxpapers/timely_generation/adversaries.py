"""Adversaries (spec "Adversaries"): each is oblivious here, so it is an int64 reveal sequence x[T] built on host.

* :func:`a_inc` — K in increasing order; :func:`a_rand` — K[≤N] permuted in blocks of 64 (seeded);
* :func:`a_phase` — the diagonal phase adversary against K = L_0 on 𝒞_hard (the impossibility instance);
* :func:`a_sparse` — K = L_{J, m*} in increasing order.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.timely_generation.deadlines import deadline_value


def elements(kind: int, params, count: int) -> np.ndarray:
    """The ``count`` smallest elements of one language (host, exact)."""
    p0, p1, p2 = (int(x) for x in params)
    out, u = [], 0
    while len(out) < count:
        if kind == 0:
            u = u + 1 if (p0 == 0 or u + 1 <= p1) else (u // 2**p0 + 1) * 2**p0
        elif kind == 1:
            u = p0 if u < p0 else p0 + p1 * ((u - p0) // p1 + 1)
        else:
            i = len(out)
            u = p0 + p1 * i + p2 * i * i
            if out and u == out[-1]:
                continue
        out.append(u)
    return np.array(out, np.int64)


def a_inc(kind: int, params, T: int) -> np.ndarray:
    """A_inc: x_t = the t-th smallest element of K."""
    return elements(kind, params, T)


def a_rand(kind: int, params, T: int, seed: int, block: int = 64) -> np.ndarray:
    """A_rand: K[≤T] with each consecutive block of ``block`` elements randomly permuted (seeded)."""
    x = elements(kind, params, T).copy()
    rng = np.random.default_rng(seed)
    for s in range(0, T, block):
        x[s : s + block] = rng.permutation(x[s : s + block])
    return x


def a_sparse(j: int, m: int, T: int) -> np.ndarray:
    """A_sparse: K = L_{j,m} revealed in increasing order."""
    return elements(0, (j, m, 0), T)


@dataclasses.dataclass(frozen=True)
class PhaseSchedule:
    """The phase adversary's reveal sequence and bookkeeping (V_p, m_p, j_p, phase start/end times)."""

    x: np.ndarray
    V: tuple[int, ...]
    m: tuple[int, ...]
    j: tuple[int, ...]
    fill_start: tuple[int, ...]  # first time of the fill (= f(V_p) + 1)

    @property
    def T(self) -> int:
        return int(self.x.size)


def a_phase(deadline: str, P: int = 4, J: int = 8, E: int = 12) -> PhaseSchedule:
    """A_phase (K = L_0 = U): phase p reveals only multiples of 2^{j_p} in (m_p, V_p] up to time f(V_p), then
    fills (R, V_p] in increasing order; j_p = min(2p, J), m_p = smallest grid value ≥ max(R, 2), V_p = 2^p m_p.
    T = f(V_P) + (V_P − V_{P−1}) (spec: 6016, 24450, 94602 for 2n, n log n, n^{1.5} with P = 4)."""
    check_range("P", P, 1, 12)
    xs: list[np.ndarray] = []
    t, R = 0, 0
    Vs, ms, js, starts = [], [], [], []
    for p in range(1, P + 1):
        jp = min(2 * p, J)
        mp = 2
        while mp < max(R, 2):
            mp *= 2
        if mp > 2**E:
            raise ValueError(f"phase {p}: m_p = {mp} exceeds the grid 2^E = {2**E}; raise E")
        Vp = 2**p * mp
        mult = np.arange(((mp // 2**jp) + 1) * 2**jp, Vp + 1, 2**jp, dtype=np.int64)
        fv = deadline_value(deadline, Vp)
        n_phase = max(fv - t, 0)
        if n_phase:
            xs.append(np.resize(mult, n_phase))
        t += n_phase
        starts.append(t + 1)
        xs.append(np.arange(R + 1, Vp + 1, dtype=np.int64))
        t += Vp - R
        R = Vp
        Vs.append(Vp)
        ms.append(mp)
        js.append(jp)
    return PhaseSchedule(np.concatenate(xs), tuple(Vs), tuple(ms), tuple(js), tuple(starts))
