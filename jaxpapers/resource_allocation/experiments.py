"""One experiment per claim: ``fn(cfg, key) -> Measurement``; the claims' predicates decide the verdicts.

Every sweep is a single vmapped, jitted program (``batching.batched`` over ``core.sim``): instances are
swept against the α grid with :func:`batching.batched_over_alphas`. The random-instance sweep behind RA2, RA3
and RA5 (same config) is memoised, so it runs once when they run in one process.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import memo, plots, sim
from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation import bounds, families
from jaxpapers.resource_allocation.batching import batched, batched_over_alphas
from jaxpapers.resource_allocation.equilibrium import (
    SolverConfig,
    alpha_ne_one,
    best_reply_ne_one,
    deviation_gains_one,
    log_weights,
)
from jaxpapers.resource_allocation.mechanisms import (
    alpha_outcome_logw,
    budget_capped_log_weights,
    capping_iteration_log_weights,
    kelly_outcome,
)
from jaxpapers.resource_allocation.search import SearchConfig, adversarial_search
from jaxpapers.resource_allocation.sweeps import efficiency_one, liquid_efficiency_one, over_alphas
from jaxpapers.resource_allocation.valuations import InstanceConfig, Valuation, random_budgets
from jaxpapers.resource_allocation.welfare import social_welfare, vcg_one

# ------------------------------------------------------------------------------------------------
# Config groups (models never see a ConfigDict)
# ------------------------------------------------------------------------------------------------


def _alphas(name: str, values) -> tuple[float, ...]:
    a = tuple(float(x) for x in values)
    if not a:
        raise ConfigError(f"{name} is empty; give at least one α in (0, 1]")
    for x in a:
        check_range(name, x, 0.0, 1.0, lo_open=True)
    return a


def _ns(name: str, values) -> tuple[int, ...]:
    ns = tuple(int(n) for n in values)
    if not ns or any(n < 1 for n in ns) or list(ns) != sorted(set(ns)):
        raise ConfigError(f"{name}={tuple(values)!r} is not allowed; need increasing integers >= 1")
    return ns


@dataclasses.dataclass(frozen=True)
class LiquidConfig:
    """RA8: budget-constrained equilibria against the liquid optimum."""

    alphas: tuple[float, ...] = (1.0, 0.5, 0.2, 0.05)
    log10_budget_range: tuple[float, float] = (-3.0, 0.0)
    audit_num: int = 128
    grid_size: int = 2001

    def __post_init__(self):
        object.__setattr__(self, "alphas", _alphas("liquid.alphas", self.alphas))
        if 1.0 not in self.alphas or min(self.alphas) == 1.0:
            raise ConfigError(f"liquid.alphas={self.alphas!r} must contain 1.0 (Kelly) and at least one α < 1")
        check_range("liquid.audit_num", self.audit_num, 0)
        check_range("liquid.grid_size", self.grid_size, 3)


@dataclasses.dataclass(frozen=True)
class FeasibleConfig:
    """RA9: the budget-capped outcome on random bids and budgets."""

    num: int = 10_000
    n: int = 8
    alphas: tuple[float, ...] = (1.0, 0.5, 0.2, 0.05)
    log10_bid_range: tuple[float, float] = (-2.0, 1.0)
    log10_budget_range: tuple[float, float] = (-3.0, 0.0)
    bisection_iters: int = 200
    cross_check_num: int = 64
    max_rounds: int = 20_000

    def __post_init__(self):
        object.__setattr__(self, "alphas", _alphas("feasible.alphas", self.alphas))
        check_range("feasible.num", self.num, 1)
        check_range("feasible.n", self.n, 2)
        check_range("feasible.bisection_iters", self.bisection_iters, 1)
        check_range("feasible.cross_check_num", self.cross_check_num, 0, self.num)
        check_range("feasible.max_rounds", self.max_rounds, 1)


@dataclasses.dataclass(frozen=True)
class FirstPriceConfig:
    """RA10: bid vectors whose top bid exceeds the second by at least ``min_gap``."""

    num: int = 1000
    n: int = 8
    alpha: float = 1e-3
    min_gap: float = 1.01
    log10_gap_range: tuple[float, float] = (0.0, 0.3)
    log10_bid_range: tuple[float, float] = (-2.0, 1.0)

    def __post_init__(self):
        check_range("bids.num", self.num, 1)
        check_range("bids.n", self.n, 2)
        check_range("bids.alpha", self.alpha, 0.0, 1.0, lo_open=True)
        check_range("bids.min_gap", self.min_gap, 1.0, lo_open=True)


def _solver(cfg) -> SolverConfig:
    return to_dataclass(SolverConfig, cfg.solver)


def _instances(cfg) -> InstanceConfig:
    return to_dataclass(InstanceConfig, cfg.instances)


def _search(cfg) -> SearchConfig:
    return to_dataclass(SearchConfig, cfg.search)


def _iters(solver: SolverConfig) -> dict:
    return dict(outer_iters=solver.outer_iters, inner_iters=solver.inner_iters)


def _np(x) -> np.ndarray:
    return np.asarray(jax.device_get(x))


def _instance_dict(vals: Valuation) -> dict:
    return {f: _np(getattr(vals, f)).tolist() for f in ("w", "r", "s", "kind")}


def _key_tuple(key) -> tuple[int, ...]:
    return tuple(int(v) for v in np.asarray(jax.random.key_data(key)).ravel())


# ------------------------------------------------------------------------------------------------
# Shared sweeps
# ------------------------------------------------------------------------------------------------


def _efficiency_sweep(vals: Valuation, alphas, solver: SolverConfig) -> np.ndarray:
    """``SW(NE)/OPT`` for every (α, instance): ``[A, B]``, one vmapped program."""
    fn = batched_over_alphas(efficiency_one, solver.chunk_size, **_iters(solver))
    return _np(fn(jnp.asarray(alphas, vals.w.dtype), vals))


def _random_sweep(key_tuple, inst: InstanceConfig, alphas: tuple[float, ...], solver: SolverConfig):
    """The α sweep over random instances shared by RA2, RA3 and RA5 (``core.memo``: runs once per process)."""

    def run():
        key = jax.random.wrap_key_data(jnp.asarray(key_tuple, jnp.uint32))
        vals = inst.sample(key)
        return vals, _efficiency_sweep(vals, alphas, solver)

    return memo.shared("resource_allocation/random_sweep", key_tuple, inst, alphas, solver, fn=run)


def _run_searches(key, alphas, inst: InstanceConfig, search: SearchConfig, solver: SolverConfig) -> np.ndarray:
    """Worst efficiency found by the adversarial search, one search per α (vmapped over α)."""
    init = dataclasses.replace(inst, num=search.population).sample(jax.random.fold_in(key, 7))
    objective = functools.partial(efficiency_one, **_iters(solver))

    def one(k, alpha):
        _, _, worst = adversarial_search(k, init, lambda v: objective(v, alpha), search, chunk_size=solver.chunk_size)
        return worst

    keys = jax.random.split(jax.random.fold_in(key, 8), len(alphas))
    return _np(jax.jit(jax.vmap(one))(keys, jnp.asarray(alphas, init.w.dtype)))


def _tight_family(alphas, ns, solver: SolverConfig) -> np.ndarray:
    vals, al, _ = families.family_batch(alphas, ns)
    fn = batched(efficiency_one, solver.chunk_size, **_iters(solver))
    return _np(fn(vals, jnp.asarray(al, vals.w.dtype))).reshape(len(alphas), len(ns))


# ------------------------------------------------------------------------------------------------
# RA1-RA5: efficiency
# ------------------------------------------------------------------------------------------------


def kelly_tight_family(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA1: Kelly (α = 1) on one slope-1 agent plus n slope-1/2 agents vs (3n+2)/(4n+2)."""
    del key
    ns = _ns("kelly_ns", cfg.kelly_ns)
    if 1000 not in ns:
        raise ConfigError(f"kelly_ns={ns!r} must contain 1000 (the claim checks the value there)")
    solver = _solver(cfg)
    vals, al, _ = families.family_batch([1.0], ns)
    fn = batched(alpha_ne_one, solver.chunk_size, **_iters(solver))
    x, lam, theta = fn(vals, jnp.asarray(al, vals.w.dtype))
    ratio = _np(social_welfare(vals, x))  # OPT = 1: agent 1 takes everything
    closed = bounds.kelly_family_closed_form(ns)
    # Kelly's mechanism fed the equilibrium bids must reproduce the allocation (bids = payments at α = 1).
    x_kelly = jax.vmap(lambda b: kelly_outcome(b)[0])(theta)
    fig, ax = plots.figure()
    ax.semilogx(ns, ratio, "o", label="solver")
    ax.semilogx(ns, closed, "-", lw=1, label="(3n+2)/(4n+2)")
    ax.axhline(0.75, ls="--", color="gray", lw=1)
    ax.set_xlabel("n (agents of slope 1/2 added)")
    ax.set_ylabel("SW(NE)/OPT, Kelly")
    ax.legend(fontsize=7)
    return Measurement(
        measured={"max_abs_err": float(np.max(np.abs(ratio - closed))), "ratio_n1000": float(ratio[ns.index(1000)])},
        predicted={"max_abs_err": 0.0, "ratio_n1000": float(bounds.kelly_family_closed_form(1000))},
        n=len(ns),
        details={
            "n": list(ns),
            "ratio": ratio.tolist(),
            "closed_form": closed.tolist(),
            "price": _np(lam).tolist(),
            "price_closed_form": [n / (2 * n + 1) for n in ns],
            "kelly_outcome_max_abs_diff": float(np.max(np.abs(_np(x_kelly - x)))),
        },
        figures={"kelly_family": fig},
    )


def kelly_bound(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA2: Kelly's efficiency on random concave instances (and, if configured, adversarial search) ≥ 3/4."""
    inst, solver, search = _instances(cfg), _solver(cfg), _search(cfg)
    # The same instances at α = 1 are one row of RA3's sweep: compute that sweep once (memoised).
    alphas = _alphas("alphas", cfg.alphas)
    alphas = alphas if 1.0 in alphas else (1.0,)
    vals, sweep = _random_sweep(_key_tuple(key), inst, alphas, solver)
    ratio = sweep[alphas.index(1.0)]
    worst = float(ratio.min())
    details = {
        "instances": inst.num,
        "quantiles_0_1_50": np.quantile(ratio, [0.0, 0.01, 0.5]).tolist(),
        "worst_instance": _instance_dict(vals[int(ratio.argmin())]),
    }
    if search.generations:
        found = float(_run_searches(key, (1.0,), inst, search, solver)[0])
        details["search_worst"] = found
        worst = min(worst, found)
    return Measurement(measured={"min_ratio": worst}, predicted={"min_ratio": 0.75}, n=inst.num, details=details)


def alpha_bound(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA3: min over random instances of SW(NE)/OPT minus (1+2√α)/(1+√α)², for every α."""
    alphas, inst, solver, search = _alphas("alphas", cfg.alphas), _instances(cfg), _solver(cfg), _search(cfg)
    _, ratio = _random_sweep(_key_tuple(key), inst, alphas, solver)
    worst = ratio.min(axis=1)
    details = {"alphas": list(alphas), "random_min": worst.tolist()}
    if search.generations:
        found = _run_searches(key, alphas, inst, search, solver)
        details["search_min"] = found.tolist()
        worst = np.minimum(worst, found)
    bound = bounds.poa_bound(alphas)
    fig, ax = plots.figure()
    order = np.argsort(alphas)
    ax.semilogx(np.asarray(alphas)[order], bound[order], "-", label="bound (1+2√α)/(1+√α)²")
    ax.semilogx(np.asarray(alphas)[order], worst[order], "o", label="worst measured")
    ax.set_xlabel("α")
    ax.set_ylabel("SW(NE)/OPT")
    ax.legend(fontsize=7)
    return Measurement(
        measured={"min_margin": float(np.min(worst - bound)), "min_ratio": worst},
        predicted={"min_margin": 0.0, "min_ratio": bound},
        n=inst.num * len(alphas),
        details=details | {"bound": bound.tolist()},
        figures={"alpha_bound": fig},
    )


def alpha_tight(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA4: the α tight family's efficiency decreases in n towards the bound, gap ∝ 1/n."""
    del key
    alphas, ns, solver = _alphas("alphas", cfg.alphas), _ns("tight_ns", cfg.tight_ns), _solver(cfg)
    for need in (10, 1000):
        if need not in ns:
            raise ConfigError(f"tight_ns={ns!r} must contain {need} (the claim compares gaps at n = 10 and 1000)")
    ratio = _tight_family(alphas, ns, solver)  # [A, K]
    bound = bounds.poa_bound(alphas)
    gap = ratio - bound[:, None]
    reference = bounds.alpha_family_efficiency(np.asarray(alphas)[:, None], np.asarray(ns)[None, :])
    fig, ax = plots.figure()
    for a, g in zip(alphas, gap, strict=True):
        ax.loglog(ns, g, "o-", ms=3, label=f"α = {a:g}")
    ax.set_xlabel("n (agents added)")
    ax.set_ylabel("SW(NE)/OPT − bound")
    ax.legend(fontsize=7)
    i10, i1000 = ns.index(10), ns.index(1000)
    return Measurement(
        measured={
            "min_gap": float(gap.min()),
            "min_decrease": float(np.min(-np.diff(ratio, axis=1))),
            "gap_n1000": gap[:, i1000],
            "gap_ratio_1000_10": gap[:, i1000] / gap[:, i10],
        },
        predicted={"min_gap": "> 0", "min_decrease": "> 0", "gap_n1000": "≤ 2e-4", "gap_ratio_1000_10": "≈ 0.01"},
        n=ratio.size,
        details={
            "alphas": list(alphas),
            "n": list(ns),
            "ratio": ratio.tolist(),
            "bound": bound.tolist(),
            "max_abs_diff_vs_numpy_formula": float(np.max(np.abs(ratio - reference))),
        },
        figures={"tight_gap": fig},
    )


def alpha_monotone(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA5 (key figure): worst measured efficiency per α (random instances ∪ tight family), by ascending α."""
    alphas, inst, solver = _alphas("alphas", cfg.alphas), _instances(cfg), _solver(cfg)
    ns = _ns("tight_ns", cfg.tight_ns)
    _, ratio = _random_sweep(_key_tuple(key), inst, alphas, solver)
    random_worst = ratio.min(axis=1)
    tight = _tight_family(alphas, ns, solver)
    worst = np.minimum(random_worst, tight.min(axis=1))
    order = np.argsort(alphas)
    a_sorted = np.asarray(alphas)[order]
    fig = efficiency_figure(a_sorted, random_worst[order], tight[order], ns)
    return Measurement(
        measured={"worst": worst[order], "worst_at_smallest_alpha": float(worst[order][0])},
        predicted={"worst": bounds.poa_bound(a_sorted), "worst_at_smallest_alpha": "≥ 0.99"},
        n=ratio.size + tight.size,
        details={
            "alphas_ascending": a_sorted.tolist(),
            "random_worst": random_worst[order].tolist(),
            "tight_family_worst": tight[order].min(axis=1).tolist(),
            "bound": bounds.poa_bound(a_sorted).tolist(),
        },
        figures={"efficiency_vs_alpha": fig},
    )


def efficiency_figure(alphas, random_worst, tight, ns):
    """Efficiency vs α: the bound curve, the worst random instance and the tight family per α (the key figure)."""
    fig, ax = plots.figure(width=5.0, height=3.6)
    dense = np.geomspace(min(1e-3, float(np.min(alphas))), 1.0, 200)
    ax.semilogx(dense, bounds.poa_bound(dense), "-", color="k", lw=1.2, label="bound (1+2√α)/(1+√α)²")
    ax.semilogx(alphas, random_worst, "o", ms=5, label="worst random instance")
    for k, n in enumerate(ns):
        ax.semilogx(alphas, tight[:, k], "x", ms=5, label=f"tight family, n = {n}")
    ax.axhline(0.75, ls="--", color="gray", lw=1)
    ax.set_xlabel("α (1 = Kelly, → 0: first price)")
    ax.set_ylabel("SW(NE) / OPT")
    ax.legend(fontsize=7)
    return fig


# ------------------------------------------------------------------------------------------------
# RA6: equilibrium audit
# ------------------------------------------------------------------------------------------------


def _audit_one(vals, alpha, *, outer_iters, inner_iters, grid_size):
    x, lam, _ = alpha_ne_one(vals, alpha, outer_iters=outer_iters, inner_iters=inner_iters)
    x_br, lam_br = best_reply_ne_one(vals, alpha, outer_iters=outer_iters, inner_iters=inner_iters)
    gains = deviation_gains_one(vals, alpha, log_weights(x, lam, alpha), grid_size=grid_size)
    return jnp.max(gains), jnp.max(jnp.abs(x_br - x)), jnp.abs(lam_br / lam - 1.0)


def equilibrium_audit(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA6: deviation audit and best-reply cross-check of the nested-bisection equilibria."""
    alphas, inst, solver = _alphas("alphas", cfg.alphas), _instances(cfg), _solver(cfg)
    check_range("grid_size", cfg.grid_size, 3)
    vals = inst.sample(key)
    fn = batched_over_alphas(_audit_one, solver.chunk_size, grid_size=int(cfg.grid_size), **_iters(solver))
    gain, dx, dlam = (_np(v) for v in fn(jnp.asarray(alphas, vals.w.dtype), vals))
    return Measurement(
        measured={"max_deviation_gain": float(gain.max()), "max_abs_x_diff": float(dx.max())},
        predicted={"max_deviation_gain": 0.0, "max_abs_x_diff": 0.0},
        n=gain.size,
        details={
            "alphas": list(alphas),
            "max_gain_per_alpha": gain.max(axis=1).tolist(),
            "max_x_diff_per_alpha": dx.max(axis=1).tolist(),
            "max_price_rel_diff": float(dlam.max()),
        },
    )


# ------------------------------------------------------------------------------------------------
# RA7: revenue vs VCG (our conjecture)
# ------------------------------------------------------------------------------------------------


def _price_one(vals, alpha, **kw):
    return alpha_ne_one(vals, alpha, **kw)[1]


def _revenue_ratio_one(vals, alpha, **kw):
    return _price_one(vals, alpha, **kw) / vcg_one(vals)[1]


def revenue_vcg(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA7: NE revenue λ over VCG revenue, two identical linear agents and random instances."""
    alphas, inst, solver, search = _alphas("alphas", cfg.alphas), _instances(cfg), _solver(cfg), _search(cfg)
    check_range("two_linear_slope", cfg.two_linear_slope, 0.0, lo_open=True)
    conj = bounds.revenue_conjecture(alphas)
    v = float(cfg.two_linear_slope)
    # The two-linear instance rides along as one more row, so it shares the compiled programs.
    vals = inst.sample(key)
    pair = families.two_linear(v, v).pad(inst.n_max)
    both = jax.tree.map(lambda a, b: jnp.concatenate([a, b[None].astype(a.dtype)]), vals, pair)
    rev_all = _np(batched(vcg_one, solver.chunk_size)(both)[1])  # independent of α: once per instance
    fn = batched_over_alphas(_price_one, solver.chunk_size, **_iters(solver))
    price_all = _np(fn(jnp.asarray(alphas, both.w.dtype), both))  # [A, B + 1]
    price, rev_vcg = price_all[:, :-1], rev_all[:-1]
    ratio = price / rev_vcg[None, :]
    worst = ratio.min(axis=1)
    details = {
        "alphas": list(alphas),
        "conjecture": conj.tolist(),
        "random_min_ratio": worst.tolist(),
        "violations_per_alpha": (ratio < conj[:, None] - 1e-6).sum(axis=1).tolist(),
    }
    if search.generations:
        init = dataclasses.replace(inst, num=search.population).sample(jax.random.fold_in(key, 7))
        objective = functools.partial(_revenue_ratio_one, **_iters(solver))

        def one(k, alpha):
            return adversarial_search(k, init, lambda v: objective(v, alpha), search)[2]

        keys = jax.random.split(jax.random.fold_in(key, 8), len(alphas))
        found = _np(jax.jit(jax.vmap(one))(keys, jnp.asarray(alphas, init.w.dtype)))
        details["search_min_ratio"] = found.tolist()
        worst = np.minimum(worst, found)
    pair_price, pair_vcg = price_all[:, -1], float(rev_all[-1])
    two_linear = pair_price / pair_vcg
    return Measurement(
        measured={
            "two_linear_ratio": two_linear,
            "random_margin": float(np.min(worst - conj)),
            "random_min_ratio": worst,
        },
        predicted={"two_linear_ratio": conj, "random_margin": 0.0, "random_min_ratio": conj},
        n=ratio.size,
        details=details | {"two_linear_vcg_revenue": pair_vcg, "two_linear_price": pair_price.tolist()},
    )


# ------------------------------------------------------------------------------------------------
# RA8: liquid welfare with budgets
# ------------------------------------------------------------------------------------------------


def _budget_gains_one(vals, alpha, budgets, x, lam, *, grid_size):
    return jnp.max(deviation_gains_one(vals, alpha, log_weights(x, lam, alpha), budgets, grid_size=grid_size))


def liquid_welfare_claim(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA8: LW(NE)/LW-OPT of the budget-constrained equilibrium, random budgets 10^U(-3, 0)."""
    liq, inst, solver = to_dataclass(LiquidConfig, cfg.liquid), _instances(cfg), _solver(cfg)
    k_vals, k_b = jax.random.split(jax.random.fold_in(key, 8))
    vals = inst.sample(k_vals)
    budgets = random_budgets(k_b, vals.w.shape, tuple(liq.log10_budget_range))
    fn = batched_over_alphas(liquid_efficiency_one, solver.chunk_size, **_iters(solver))
    ratio, x, lam = fn(jnp.asarray(liq.alphas, vals.w.dtype), vals, budgets)  # [A, B], [A, B, N], [A, B]
    overpay = _np(jnp.max(jnp.where(vals.active, lam[..., None] * x / budgets - 1.0, -1.0), axis=-1))
    ratio = _np(ratio)
    # Budget-restricted deviation audit of the first ``audit_num`` equilibria of every α.
    m = min(liq.audit_num, inst.num)
    gain = np.zeros(1)
    if m:
        tiled, grid, (b_tiled,) = over_alphas(vals[:m], liq.alphas, budgets[:m])
        flat = lambda z: z.reshape((-1,) + z.shape[2:])  # noqa: E731
        gain = _np(
            batched(_budget_gains_one, solver.chunk_size, grid_size=liq.grid_size)(
                jax.tree.map(flat, tiled), flat(grid), flat(b_tiled), flat(x[:, :m]), flat(lam[:, :m])
            )
        )
    mins = ratio.min(axis=1)
    alphas = np.asarray(liq.alphas)
    kelly = mins[alphas == 1.0]
    others = mins[alphas < 1.0]
    return Measurement(
        measured={
            "min_ratio_kelly": float(kelly.min()),
            "min_ratio_alpha_lt_1": float(others.min()),
            "max_deviation_gain": float(gain.max()),
            "min_ratio": mins,
        },
        predicted={"min_ratio_kelly": 0.5, "min_ratio_alpha_lt_1": "report (≈ 0.5)", "max_deviation_gain": 0.0},
        n=ratio.size,
        details={
            "alphas": list(liq.alphas),
            "min_ratio_per_alpha": mins.tolist(),
            "audited_instances_per_alpha": min(liq.audit_num, inst.num),
            "max_payment_over_budget_rel": float(overpay.max()),
            "fraction_with_a_binding_budget": float(np.mean(overpay > -1e-9)),
        },
    )


# ------------------------------------------------------------------------------------------------
# RA9: budget feasibility with public budgets (our construction)
# ------------------------------------------------------------------------------------------------


def _capped_one(theta, alpha, budgets, *, iters):
    log_w = budget_capped_log_weights(theta, alpha, budgets, iters=iters)
    x, _, pay = alpha_outcome_logw(log_w, alpha)
    capped = log_w < jnp.log(theta) / alpha - 1e-12
    return log_w, jnp.max(pay / budgets), jnp.abs(jnp.sum(x) - 1.0), jnp.mean(capped)


@functools.partial(jax.jit, static_argnums=0)
def _feasible_batch(fc: FeasibleConfig, key):
    """Random bids and budgets laid out against the α grid; the capped outcome of every row and the
    capping iteration on the first ``cross_check_num`` rows of every α."""
    dtype = jnp.result_type(float)
    k_t, k_b = jax.random.split(key)
    theta = 10.0 ** jax.random.uniform(k_t, (fc.num, fc.n), dtype, *fc.log10_bid_range)
    budgets = random_budgets(k_b, (fc.num, fc.n), tuple(fc.log10_budget_range))
    a = len(fc.alphas)
    alphas = jnp.broadcast_to(jnp.asarray(fc.alphas, dtype)[:, None], (a, fc.num))
    th, bu = (jnp.broadcast_to(z, (a,) + z.shape) for z in (theta, budgets))
    flat = lambda z: z.reshape((a * fc.num,) + z.shape[2:])  # noqa: E731
    capped = functools.partial(_capped_one, iters=fc.bisection_iters)
    log_w, max_pay, sum_err, frac = sim.vmap_chunked(capped, flat(th), flat(alphas), flat(bu))
    m = fc.cross_check_num
    sub = lambda z: z[:, :m].reshape((a * m,) + z.shape[2:])  # noqa: E731
    iteration = functools.partial(capping_iteration_log_weights, max_rounds=fc.max_rounds)
    log_w_iter, rounds = sim.vmap_chunked(iteration, sub(th), sub(alphas), sub(bu))
    log_w_sub = log_w.reshape(a, fc.num, fc.n)[:, :m].reshape(-1, fc.n)
    rel = jnp.where(jnp.isfinite(log_w_sub), jnp.abs(jnp.expm1(log_w_iter - log_w_sub)), 0.0)
    return max_pay, sum_err, frac, rel.max(initial=0.0), rounds.reshape(a, m)


def budget_feasible(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA9: payments ≤ budgets for arbitrary bids; Σx = 1; equals the capping iteration on a subset."""
    fc = to_dataclass(FeasibleConfig, cfg.feasible)
    max_pay, sum_err, frac, rel, rounds = (_np(v) for v in _feasible_batch(fc, jax.random.fold_in(key, 9)))
    return Measurement(
        measured={
            "payment_violations": int(np.sum(max_pay > 1.0 + 1e-9)),
            "allocation_violations": int(np.sum(sum_err > 1e-12)),
            "max_rel_diff_vs_iteration": float(rel),
        },
        predicted={"payment_violations": 0, "allocation_violations": 0, "max_rel_diff_vs_iteration": 0.0},
        n=int(max_pay.size),
        details={
            "alphas": list(fc.alphas),
            "max_payment_over_budget": float(max_pay.max()),
            "max_abs_allocation_sum_err": float(sum_err.max()),
            "fraction_of_weights_capped": float(frac.mean()),
            "iteration_rounds_max_per_alpha": rounds.max(axis=1, initial=0).tolist(),
        },
    )


# ------------------------------------------------------------------------------------------------
# RA10: the first-price limit
# ------------------------------------------------------------------------------------------------


def _first_price_one(log_theta, alpha):
    x, lam, _ = alpha_outcome_logw(log_theta / alpha, alpha)
    top = jnp.argmax(log_theta)
    log_ratio = log_theta - log_theta[top]  # log(θ_j/θ_max) ≤ 0
    bound = 1.0 - jnp.sum(jnp.where(jnp.arange(log_theta.shape[0]) == top, 0.0, jnp.exp(log_ratio / alpha)))
    return x[top], lam * jnp.exp(-log_theta[top]), bound


@functools.partial(jax.jit, static_argnums=0)
def _first_price_batch(fp: FirstPriceConfig, key):
    """Random log-bids whose top bid is ≥ min_gap × the second (top placed at a random position)."""
    dtype = jnp.result_type(float)
    k_b, k_g, k_p = jax.random.split(key, 3)
    log_rest = jnp.log(10.0) * jax.random.uniform(k_b, (fp.num, fp.n - 1), dtype, *fp.log10_bid_range)
    log_gap = jnp.log(fp.min_gap) + jnp.log(10.0) * jax.random.uniform(k_g, (fp.num,), dtype, *fp.log10_gap_range)
    bids = jnp.concatenate([(jnp.max(log_rest, axis=1) + log_gap)[:, None], log_rest], axis=1)
    perm = jnp.argsort(jax.random.uniform(k_p, (fp.num, fp.n)), axis=1)
    log_theta = jnp.take_along_axis(bids, perm, axis=1)
    return sim.vmap_chunked(_first_price_one, log_theta, jnp.full((fp.num,), fp.alpha, dtype))


def first_price_limit(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA10: at α = 10^-3 the top bidder gets ≥ 0.999 and the price lies in [θ_max, n^α θ_max]."""
    fp = to_dataclass(FirstPriceConfig, cfg.bids)
    share, price_over_top, bound = (_np(v) for v in _first_price_batch(fp, key))
    cap = fp.n**fp.alpha
    predicted_share = bounds.first_price_share_bound(1.0 / fp.min_gap, fp.n, fp.alpha)
    return Measurement(
        measured={
            "min_top_share": float(share.min()),
            "min_price_over_top_bid": float(price_over_top.min()),
            "max_price_over_cap": float((price_over_top / cap).max()),
            "share_bound_violations": int(np.sum(share < bound - 1e-12)),
        },
        predicted={
            "min_top_share": f"≥ {predicted_share:.5f}",
            "min_price_over_top_bid": "≥ 1",
            "max_price_over_cap": f"≤ 1 (cap n^α = {cap:.5f})",
            "share_bound_violations": 0,
        },
        n=fp.num,
        details={"max_price_over_top_bid": float(price_over_top.max()), "predicted_min_share": predicted_share},
    )
