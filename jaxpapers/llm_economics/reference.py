"""Plain float64 NumPy/SciPy reference of the solvers: the independent check of the tests and the baseline of
``benchmarks/llm_economics.py``.

It re-implements the compute-bound problem for Pareto demand in its unsaturated region (R = R0·ℓ^{-γ}) with
inference cost, with hand-derived gradient and Hessian in z = (log N, log D) instead of autodiff, and the same
algorithm as ``solve.py``: the best start on the frontier over a coarse grid of log C, then damped Newton with
backtracking for a fixed number of iterations. The data-bound hard cap uses SciPy's ``brentq`` on the same
derivative; the soft cap uses SciPy's Nelder-Mead. One firm at a time, in a Python loop: that is the baseline.

Derivatives: with ℓ = A·e^{−α z1} + B·e^{−β z2}, r = ℓ^{−γ}, h = 1 − ρ e^{z1}/E and q = 6 e^{z1+z2}/(E R0),
J = r·h − q, ∂J/∂z1 = r′ℓ₁h + r h′ − q, ∂J/∂z2 = r′ℓ₂h − q, with r′ = −γℓ^{−γ−1}, r″ = γ(γ+1)ℓ^{−γ−2},
ℓ₁ = −αA e^{−α z1}, ℓ₁₁ = −α ℓ₁ (likewise for z2), h′ = h″ = −ρ e^{z1}/E.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import optimize


@dataclasses.dataclass(frozen=True)
class NpFirm:
    """One firm's numbers as Python floats (Pareto demand, unsaturated)."""

    E0: float
    A: float
    B: float
    alpha: float
    beta: float
    R0: float
    gamma: float
    rho: float
    E: float
    D_max: float = 1e12
    tokens_per_param: float = 20.0
    r_d_star: float = 15.4
    r_n_star: float = 5.3

    @classmethod
    def from_params(cls, params) -> NpFirm:
        """From a single (unbatched, concrete) ``model.FirmParams``."""
        law = params.law
        names = [f.name for f in dataclasses.fields(cls)]
        values = {n: getattr(law, n) if n in ("E0", "A", "B", "alpha", "beta") else getattr(params, n) for n in names}
        return cls(**{k: float(v) for k, v in values.items()})


def frontier_constants(f: NpFirm) -> tuple[float, float, float, float, float]:
    """(a, b, λ, G, K) of the compute-optimal frontier."""
    s = f.alpha + f.beta
    G = (f.alpha * f.A / (f.beta * f.B)) ** (1 / s)
    lam = f.alpha * f.beta / s
    K = 6**lam * (f.A * G**-f.alpha + f.B * G**f.beta)
    return f.beta / s, f.alpha / s, lam, G, K


def scaled_profit(z: np.ndarray, f: NpFirm) -> float:
    """J = Π/R0 at z = (log N, log D)."""
    ell = f.A * math.exp(-f.alpha * z[0]) + f.B * math.exp(-f.beta * z[1])
    return ell**-f.gamma * (1 - f.rho * math.exp(z[0]) / f.E) - 6 * math.exp(z[0] + z[1]) / (f.E * f.R0)


def grad_hess(z: np.ndarray, f: NpFirm) -> tuple[float, np.ndarray, np.ndarray]:
    """(J, ∇J, ∇²J) from the hand-derived formulas of the module docstring."""
    t1, t2 = f.A * math.exp(-f.alpha * z[0]), f.B * math.exp(-f.beta * z[1])
    ell = t1 + t2
    l1, l2 = -f.alpha * t1, -f.beta * t2
    l11, l22 = f.alpha**2 * t1, f.beta**2 * t2
    g = f.gamma
    r, r1, r2 = ell**-g, -g * ell ** (-g - 1), g * (g + 1) * ell ** (-g - 2)
    hp = -f.rho * math.exp(z[0]) / f.E
    h = 1 + hp
    q = 6 * math.exp(z[0] + z[1]) / (f.E * f.R0)
    value = r * h - q
    grad = np.array([r1 * l1 * h + r * hp - q, r1 * l2 * h - q])
    h11 = (r2 * l1 * l1 + r1 * l11) * h + 2 * r1 * l1 * hp + r * hp - q
    h22 = (r2 * l2 * l2 + r1 * l22) * h - q
    h12 = r2 * l1 * l2 * h + r1 * l2 * hp - q
    return value, grad, np.array([[h11, h12], [h12, h22]])


def frontier_start(f: NpFirm, points: int = 161, half_width: float = 20.0) -> np.ndarray:
    """Best frontier point over a grid of log C centred on log(E·R0), as ``solve.frontier_start`` (vectorised)."""
    a, b, _, G, _ = frontier_constants(f)
    log_c6 = math.log(f.E * f.R0) + np.linspace(-half_width, half_width, points) - math.log(6)
    zn, zd = math.log(G) + a * log_c6, -math.log(G) + b * log_c6
    ell = f.A * np.exp(-f.alpha * zn) + f.B * np.exp(-f.beta * zd)
    j = ell**-f.gamma * (1 - f.rho * np.exp(zn) / f.E) - 6 * np.exp(zn + zd) / (f.E * f.R0)
    i = int(np.nanargmax(j))
    return np.array([zn[i], zd[i]])


def damped_newton(z0: np.ndarray, f: NpFirm, iters: int = 60, max_halvings: int = 40) -> np.ndarray:
    """The algorithm of ``solve.damped_newton`` with analytic derivatives (fixed iteration count)."""
    z = np.array(z0, dtype=np.float64)
    noise = 64 * np.finfo(np.float64).eps
    for _ in range(iters):
        j0, g, h = grad_hess(z, f)
        det = h[0, 0] * h[1, 1] - h[0, 1] * h[1, 0]
        newton = -np.array([h[1, 1] * g[0] - h[0, 1] * g[1], h[0, 0] * g[1] - h[1, 0] * g[0]]) / det
        gain = float(newton @ g)
        use_newton = h[0, 0] < 0 and det > 0 and gain > 0 and np.all(np.isfinite(newton))
        gnorm = float(np.linalg.norm(g))
        d = newton if use_newton else g / (gnorm if gnorm > 0 else 1.0)
        if use_newton and 0.5 * gain <= noise * (1 + abs(j0)):
            z = z + d
            continue
        t, j_new = 1.0, scaled_profit(z + d, f)
        k = 0
        while not j_new > j0 and k < max_halvings:
            t, k = t / 2, k + 1
            j_new = scaled_profit(z + t * d, f)
        if j_new > j0:
            z = z + t * d
    return z


def solve_compute_bound(f: NpFirm, iters: int = 60) -> dict[str, float]:
    """N*, D*, C*, spend, revenue of one firm."""
    z = damped_newton(frontier_start(f), f, iters=iters)
    n, d = math.exp(z[0]), math.exp(z[1])
    ell = f.A * n**-f.alpha + f.B * d**-f.beta
    return {"N": n, "D": d, "C": 6 * n * d, "spend": 6 * n * d / f.E, "revenue": f.R0 * ell**-f.gamma}


def sweep_compute_bound(firms: list[NpFirm], iters: int = 60) -> dict[str, np.ndarray]:
    """The baseline: a Python loop of :func:`solve_compute_bound`, results stacked."""
    rows = [solve_compute_bound(f, iters) for f in firms]
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def solve_compute_bound_scipy(f: NpFirm) -> dict[str, float]:
    """The same optimum with SciPy's trust-region Newton (``trust-exact``) and the analytic derivatives."""
    res = optimize.minimize(
        lambda z: -grad_hess(z, f)[0],
        frontier_start(f),
        jac=lambda z: -grad_hess(z, f)[1],
        hess=lambda z: -grad_hess(z, f)[2],
        method="trust-exact",
        options={"gtol": 1e-10},
    )
    n, d = math.exp(res.x[0]), math.exp(res.x[1])
    return {"N": n, "D": d, "C": 6 * n * d, "spend": 6 * n * d / f.E}


def n_opt_for_data(f: NpFirm, d: float) -> float:
    """N_opt(D) = (αA/(βB))^{1/α}·D^{β/α}."""
    return (f.alpha * f.A / (f.beta * f.B)) ** (1 / f.alpha) * d ** (f.beta / f.alpha)


def solve_hard_cap(f: NpFirm, tpp: bool = False) -> float:
    """N* with D = D_max under the hard (or D/20) cap: the cap if dJ/dlog N ≥ 0 there, else SciPy's brentq root."""
    cap = math.log(f.D_max / f.tokens_per_param if tpp else n_opt_for_data(f, f.D_max))

    def deriv(zn: float) -> float:
        return grad_hess(np.array([zn, math.log(f.D_max)]), f)[1][0]

    if deriv(cap) >= 0:
        return math.exp(cap)
    return math.exp(optimize.brentq(deriv, cap - 20, cap, xtol=1e-14, rtol=1e-15))


def soft_cap_profit(z: np.ndarray, f: NpFirm) -> float:
    """J for the Muennighoff soft cap at z = (log N, log(epochs − 1)), from the paper's formulas directly."""
    n, repeats = math.exp(z[0]), math.exp(z[1])
    u = f.D_max
    d_eff = u + u * f.r_d_star * (1 - math.exp(-repeats / f.r_d_star))
    u_n = min(n, n_opt_for_data(f, u))
    r_n = n / u_n - 1
    n_eff = u_n + u_n * f.r_n_star * (1 - math.exp(-r_n / f.r_n_star))
    ell = f.A * n_eff**-f.alpha + f.B * d_eff**-f.beta
    return ell**-f.gamma * (1 - f.rho * n / f.E) - 6 * n * u * (1 + repeats) / (f.E * f.R0)


def solve_soft_cap(f: NpFirm, z0: np.ndarray) -> np.ndarray:
    """(log N*, log(epochs* − 1)) by Nelder-Mead from ``z0`` (value tolerance relative to |J(z0)|: an absolute
    one below J's rounding noise never stops)."""
    res = optimize.minimize(
        lambda z: -soft_cap_profit(z, f),
        z0,
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-14 * max(1.0, abs(soft_cap_profit(np.asarray(z0), f))), "maxiter": 20000},
    )
    return res.x
