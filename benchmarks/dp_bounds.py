"""Benchmark: the multi-target tail bound B3 over an accountant profile (the bound every empirical check calls):
G = 200 ε-grid points × m = 1000 targets, each a Poisson-binomial recursion, minimised over the grid — jitted and
vmapped over the grid (``dpb.multi_tail_bound``) against (a) the plain NumPy loop a theorist would write (a Python
loop over grid points and targets; timed on 10 grid points and scaled by 20) and (b) NumPy vectorised over the
grid (a loop over targets only).

    .venv/bin/python benchmarks/dp_bounds.py
"""

from __future__ import annotations

import jax
import numpy as np

import jaxpapers.dp_bounds as dpb
from jaxpapers.core.bench import report_ratio, time_interleaved

M, Q, SIGMA, T = 1000, 0.01, 1.0, 1000


def gamma(k, e):
    return k * np.exp(e) / (k * np.exp(e) + 1 - k)


def numpy_loop(eps, delta, kap):
    """A Python loop over grid points and individuals."""
    best = np.ones(len(kap) + 1)
    for e, d in zip(eps, delta, strict=True):
        pmf = np.zeros(len(kap) + 1)
        pmf[0] = 1.0
        for k in kap:
            g = gamma(k, e)
            pmf[1:] = pmf[1:] * (1 - g) + pmf[:-1] * g
            pmf[0] *= 1 - g
        tail = pmf[::-1].cumsum()[::-1] + np.sum(d / (1 - kap + np.exp(e) * kap))
        best = np.minimum(best, tail)
    return best


def numpy_vectorised(eps, delta, kap):
    """Vectorised over the ε-grid; a loop over individuals (the recursion is sequential in i)."""
    G, m = len(eps), len(kap)
    pmf = np.zeros((G, m + 1))
    pmf[:, 0] = 1.0
    for k in kap:
        g = gamma(k, eps)[:, None]
        pmf[:, 1:] = pmf[:, 1:] * (1 - g) + pmf[:, :-1] * g
        pmf[:, :1] *= 1 - g
    err = np.sum(delta[:, None] / (1 - kap[None] + np.exp(eps)[:, None] * kap[None]), axis=1)
    return np.min(pmf[:, ::-1].cumsum(1)[:, ::-1] + err[:, None], axis=0)


def main():
    eps, delta = dpb.dpsgd_profile(Q, SIGMA, T, relation="replace_one")
    kap = np.random.default_rng(0).uniform(0.001, 0.2, M)
    with jax.enable_x64(True):
        prof = dpb.tradeoff_from_profile(eps, delta)
        ref = numpy_vectorised(eps, delta, kap)
        np.testing.assert_allclose(np.asarray(dpb.multi_tail_bound(prof, kap))[1:], np.minimum(ref, 1)[1:], atol=1e-9)
        t = time_interleaved(
            {
                "jax": lambda: dpb.multi_tail_bound(prof, kap),
                "numpy_vec": lambda: numpy_vectorised(eps, delta, kap),
                "numpy_loop10": lambda: numpy_loop(eps[:10], delta[:10], kap),
            },
            rounds=3,
        )
    loop = t["numpy_loop10"] * len(eps) / 10
    report_ratio(f"B3 tail bound, G={len(eps)}, m={M} (loop)", loop, t["jax"], baseline="numpy loop")
    report_ratio(f"B3 tail bound, G={len(eps)}, m={M} (vectorised)", t["numpy_vec"], t["jax"], baseline="numpy vec")


if __name__ == "__main__":
    main()
