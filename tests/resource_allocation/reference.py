"""Independent float64 NumPy/SciPy references for the resource_allocation tests (plain loops, brentq, SLSQP)."""

from __future__ import annotations

import numpy as np
from scipy import optimize

LINEAR, POWER, LOG = 0, 1, 2


def agents(vals, b=None):
    """Host copies ``(w, r, s, kind)`` of instance ``b`` (or of a single instance)."""
    fields = [np.asarray(getattr(vals, f)) for f in ("w", "r", "s", "kind")]
    return [f if b is None else f[b] for f in fields]


def value(w, r, s, kind, x):
    """Naive closed forms of v(x), elementwise."""
    x = np.asarray(x, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        power = w * ((x + s) ** (1 - r) - s ** (1 - r)) / (1 - r)
        log = w * np.log(1 + x / s)
    return np.where(kind == LINEAR, w * x, np.where(kind == POWER, power, log))


def marginal(w, r, s, kind, x):
    x = np.asarray(x, np.float64)
    return np.where(kind == LINEAR, w, np.where(kind == POWER, w * (x + s) ** (-r), w / (x + s)))


def ne(w, r, s, kind, alpha, budgets=None):
    """Equilibrium (x, λ) from the equilibrium condition by nested brentq (a different root finder)."""
    active = w > 0
    v0 = marginal(w, r, s, kind, 0.0)

    def share(i, lam):
        if not active[i] or v0[i] <= lam:
            return 0.0

        def h(x):
            return marginal(w[i], r[i], s[i], kind[i], x) * (1 - x) - lam * (1 - (1 - alpha) * x)

        x = optimize.brentq(h, 0.0, 1.0, xtol=1e-16, rtol=1e-15, maxiter=500)
        if budgets is not None:
            x = min(x, budgets[i] / lam)
        return x

    def excess(lam):
        return sum(share(i, lam) for i in range(len(w))) - 1.0

    lam = optimize.brentq(excess, 1e-300, float(v0.max()), xtol=1e-300, rtol=1e-15, maxiter=1000)
    x = np.array([share(i, lam) for i in range(len(w))])
    return x / x.sum(), lam


def opt_slsqp(w, r, s, kind, caps=None, budgets=None, starts=4, seed=0):
    """max Σ v_i(x_i) (or Σ min(v_i, B_i)) over the simplex by SLSQP from several starts."""
    n = len(w)
    rng = np.random.default_rng(seed)

    def objective(x):
        v = value(w, r, s, kind, np.clip(x, 0, 1))
        if budgets is not None:
            v = np.minimum(v, budgets)
        return -float(np.sum(v))

    best = -np.inf
    for k in range(starts):
        x0 = np.full(n, 1.0 / n) if k == 0 else rng.dirichlet(np.ones(n))
        res = optimize.minimize(
            objective,
            x0,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * n,
            constraints=[{"type": "ineq", "fun": lambda x: 1.0 - np.sum(x)}],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        best = max(best, -res.fun)
    return best


def opt_grid_2(w, r, s, kind, budgets=None, num=200_001):
    """Brute-force optimum of a two-agent instance on a grid of x_1 (x_2 = 1 - x_1)."""
    x1 = np.linspace(0.0, 1.0, num)
    x = np.stack([x1, 1 - x1], axis=1)
    v = value(w[None, :], r[None, :], s[None, :], kind[None, :], x)
    if budgets is not None:
        v = np.minimum(v, budgets[None, :])
    return float(v.sum(axis=1).max())
