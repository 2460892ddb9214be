"""Every claim experiment at a tiny size against an independent computation.

The references are float64 NumPy/SciPy: the equilibrium from the equilibrium condition by nested brentq
(``reference.ne``), the optimum by SLSQP, closed forms, the spec's linear-agent formulas, a brute-force
deviation grid, a NumPy version of the budget cap and the NumPy first-price limit (itself checked against
brute force in ``test_families_bounds``).
"""

import jax
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.config import to_dataclass
from jaxpapers.resource_allocation import bounds
from jaxpapers.resource_allocation.config import FeasibleConfig, InstanceConfig, LiquidConfig, SolverConfig
from jaxpapers.resource_allocation.experiments import audit, budgets, efficiency, first_price, revenue
from jaxpapers.resource_allocation.valuations import random_budgets, sample_instances
from jaxpapers.resource_allocation.welfare import vcg

from . import reference as ref

KEY = 0


def _cfg(name, *overrides):
    return config.load(f"resource_allocation/{name}", "preset=tiny", overrides=list(overrides))


def _numbers_only(m):
    assert not any(isinstance(v, str) for v in m.predicted.values()), m.predicted


def _equilibria(vals, alpha, budgets=None):
    """SciPy equilibria ``[(x, λ)]`` of every instance of ``vals``."""
    return [
        ref.ne(*ref.agents(vals, b), alpha, None if budgets is None else np.asarray(budgets[b]))
        for b in range(vals.w.shape[0])
    ]


def _efficiency(vals, alpha):
    out = []
    for b, (x, _) in enumerate(_equilibria(vals, alpha)):
        w, r, s, kind = ref.agents(vals, b)
        out.append(ref.value(w, r, s, kind, x).sum() / ref.opt_slsqp(w, r, s, kind))
    return np.array(out)


def test_ra1_kelly_family_against_scipy_and_the_closed_form(x64):
    m = efficiency.measure_kelly_tight_family(_cfg("poa"), jax.random.key(KEY))
    _numbers_only(m)
    ns = m.details["n"]
    for k, n in enumerate(ns[:2]):  # SciPy is a plain loop over agents: the small families only
        x, lam = ref.ne(np.r_[1.0, np.full(n, 0.5)], np.zeros(n + 1), np.ones(n + 1), np.zeros(n + 1), 1.0)
        np.testing.assert_allclose(m.details["ratio"][k], x[0] + 0.5 * (1 - x[0]), rtol=1e-10)
        np.testing.assert_allclose(m.details["price"][k], lam, rtol=1e-10)
    closed = (3 * np.asarray(ns) + 2) / (4 * np.asarray(ns) + 2)
    np.testing.assert_allclose(m.measured["max_abs_err"], np.max(np.abs(np.asarray(m.details["ratio"]) - closed)))
    assert m.measured["max_abs_err"] <= 1e-10


@pytest.fixture(scope="module")
def poa_small():
    cfg = _cfg("poa", "instances.num=5", "search.generations=0")
    with jax.enable_x64(True):
        vals = sample_instances(jax.random.key(KEY), to_dataclass(InstanceConfig, cfg.instances))
        eff = {a: _efficiency(vals, a) for a in cfg.alphas}
    return cfg, eff


def test_ra2_ra3_ra5_random_instances_against_scipy(x64, poa_small):
    cfg, eff = poa_small
    key = jax.random.key(KEY)
    alphas = tuple(cfg.alphas)
    worst = np.array([eff[a].min() for a in alphas])
    m2 = efficiency.measure_kelly_bound(cfg, key)
    np.testing.assert_allclose(m2.measured["min_ratio"], eff[1.0].min(), rtol=1e-7)
    m3 = efficiency.measure_alpha_bound(cfg, key)
    np.testing.assert_allclose(m3.measured["min_ratio"], worst, rtol=1e-7)
    np.testing.assert_allclose(m3.measured["min_margin"], np.min(worst - bounds.poa_bound(alphas)), atol=1e-7)
    m5 = efficiency.measure_alpha_monotone(cfg, key)
    order = np.argsort(alphas)
    tight = bounds.alpha_family_efficiency(np.asarray(alphas)[:, None], np.asarray(cfg.tight_ns)[None, :])
    np.testing.assert_allclose(m5.measured["worst"], np.minimum(worst, tight.min(axis=1))[order], rtol=1e-7)
    for m in (m2, m3, m5):
        _numbers_only(m)


def test_ra4_tight_family_against_the_spec_formula(x64):
    m = efficiency.measure_alpha_tight(_cfg("poa"), jax.random.key(KEY))
    _numbers_only(m)  # predicted: the same summary from the NumPy formula (an independent bisection)
    # The efficiencies agree to ~1e-11; the gaps (down to 7.5e-8) are differences of numbers near 1.
    for k in ("min_gap", "gap_n1000"):
        np.testing.assert_allclose(m.measured[k], m.predicted[k], rtol=0, atol=1e-10)
    np.testing.assert_allclose(m.measured["gap_ratio_1000_10"], m.predicted["gap_ratio_1000_10"], rtol=1e-3)
    assert m.details["max_abs_diff_vs_numpy_formula"] <= 1e-10


def test_ra6_audit_against_a_numpy_deviation_grid(x64):
    cfg = _cfg("audit", "instances.num=3", "alphas=(1.0, 0.25)")
    solver = to_dataclass(SolverConfig, cfg.solver)
    vals = sample_instances(jax.random.key(KEY), to_dataclass(InstanceConfig, cfg.instances))
    gain, dx, dlam = audit.audit(vals, cfg.alphas, solver, 201)
    m = audit.measure(cfg, jax.random.key(KEY))
    _numbers_only(m)
    np.testing.assert_allclose(m.measured["max_deviation_gain"], gain.max())
    np.testing.assert_allclose(m.measured["max_abs_x_diff"], dx.max())
    # Independent: SciPy equilibrium, every agent's utility on a dense grid of weights, the others fixed.
    grid = np.geomspace(1e-8, 1e4, 20_001)
    for a in cfg.alphas:
        for b, (x, lam) in enumerate(_equilibria(vals, a)):
            w, r, s, kind = ref.agents(vals, b)
            weights = x * lam ** (1 / a)
            for i in np.flatnonzero(w > 0):
                rest = weights.sum() - weights[i]
                alt = np.r_[0.0, grid * max(rest, weights[i])]
                u = ref.value(w[i], r[i], s[i], kind[i], alt / (alt + rest)) - alt * (alt + rest) ** (a - 1)
                u_now = ref.value(w[i], r[i], s[i], kind[i], x[i]) - lam * x[i]
                assert u.max() - u_now <= 1e-9
    assert gain.max() <= 1e-9 and dx.max() <= 1e-8


def test_ra7_revenue_against_closed_form_and_scipy(x64):
    cfg = _cfg("revenue", "instances.num=4", "search.generations=0")
    m = revenue.measure(cfg, jax.random.key(KEY))
    _numbers_only(m)
    alphas = np.asarray(cfg.alphas)
    np.testing.assert_allclose(m.measured["two_linear_ratio"], 1 / (1 + alphas), rtol=1e-12)  # λ = v/(1+α), VCG = v
    vals = sample_instances(jax.random.key(KEY), to_dataclass(InstanceConfig, cfg.instances))
    rev_vcg = np.asarray(vcg(vals)[1])
    worst = [min(lam / rev_vcg[b] for b, (_, lam) in enumerate(_equilibria(vals, a))) for a in alphas]
    np.testing.assert_allclose(m.measured["random_min_ratio"], worst, rtol=1e-9)


def test_ra8_liquid_welfare_against_scipy(x64):
    cfg = _cfg("budgets", "instances.num=4", "liquid.audit_num=2")
    m = budgets.measure_liquid_welfare(cfg, jax.random.key(KEY))
    _numbers_only(m)
    liq = to_dataclass(LiquidConfig, cfg.liquid)
    k_vals, k_b = jax.random.split(jax.random.fold_in(jax.random.key(KEY), 8))
    vals = sample_instances(k_vals, to_dataclass(InstanceConfig, cfg.instances))
    b_all = np.asarray(random_budgets(k_b, vals.w.shape, tuple(liq.log10_budget_range)))
    mins = []
    for a in liq.alphas:
        ratios = []
        for b, (x, _) in enumerate(_equilibria(vals, a, b_all)):
            w, r, s, kind = ref.agents(vals, b)
            lw = np.minimum(ref.value(w, r, s, kind, x), b_all[b]).sum()
            ratios.append(lw / ref.opt_slsqp(w, r, s, kind, budgets=b_all[b]))
        mins.append(min(ratios))
    np.testing.assert_allclose(m.measured["min_ratio"], mins, rtol=1e-6)


def _capped_payments_numpy(theta, alpha, budgets, iters=200):
    """The budget-capped outcome in plain NumPy: W* = the largest W with W ≤ Σ min(w0, B W^{1-α})."""
    log_w0 = np.log(theta) / alpha
    lo = np.max(np.minimum(log_w0, np.log(budgets) / alpha))
    hi = max(np.logaddexp.reduce(log_w0), lo)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if np.logaddexp.reduce(np.minimum(log_w0, np.log(budgets) + (1 - alpha) * mid)) >= mid:
            lo = mid
        else:
            hi = mid
    w = np.exp(np.minimum(log_w0, np.log(budgets) + (1 - alpha) * lo))
    return w * w.sum() ** (alpha - 1)


def test_ra9_payments_against_a_numpy_budget_cap(x64):
    cfg = _cfg("budgets", "feasible.num=16", "feasible.cross_check_num=2")
    m = budgets.measure_budget_feasible(cfg, jax.random.key(KEY))
    _numbers_only(m)
    fc = to_dataclass(FeasibleConfig, cfg.feasible)
    k_t, k_b = jax.random.split(jax.random.fold_in(jax.random.key(KEY), 9))
    theta = np.asarray(10.0 ** jax.random.uniform(k_t, (fc.num, fc.n), np.float64, *fc.log10_bid_range))
    b_all = np.asarray(random_budgets(k_b, (fc.num, fc.n), tuple(fc.log10_budget_range)))
    ratio = [np.max(_capped_payments_numpy(theta[k], a, b_all[k]) / b_all[k]) for a in fc.alphas for k in range(fc.num)]
    np.testing.assert_allclose(m.details["max_payment_over_budget"], max(ratio), rtol=1e-9)
    assert m.measured["payment_violations"] == int(np.sum(np.asarray(ratio) > 1 + 1e-9)) == 0


def test_ra10_distances_to_the_limit_against_scipy(x64):
    cfg = _cfg("first_price", "instances.num=6")
    m = first_price.measure(cfg, jax.random.key(KEY))
    _numbers_only(m)
    vals = sample_instances(jax.random.key(KEY), to_dataclass(InstanceConfig, cfg.instances))
    fields = [np.asarray(getattr(vals, f)) for f in ("w", "r", "s", "kind")]
    lam0, x0 = bounds.first_price_limit(*fields)
    win = np.argmax(x0, axis=1)
    opt = np.array([ref.opt_slsqp(*ref.agents(vals, b)) for b in range(6)])
    price, share, loss = [], [], []
    for a in cfg.alphas:
        eq = _equilibria(vals, a)
        price.append([abs(lam / lam0[b] - 1) for b, (_, lam) in enumerate(eq)])
        share.append([abs(x[win[b]] - x0[b, win[b]]) for b, (x, _) in enumerate(eq)])
        loss.append([1 - ref.value(*ref.agents(vals, b), x).sum() / opt[b] for b, (x, _) in enumerate(eq)])
    np.testing.assert_allclose(m.measured["median_price_err"], np.median(price, axis=1), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(m.measured["median_share_err"], np.median(share, axis=1), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(m.measured["max_efficiency_loss"], np.max(loss, axis=1), rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(m.measured["price_rate"], np.median(price[-1]) / np.median(price[-2]), rtol=1e-6)
