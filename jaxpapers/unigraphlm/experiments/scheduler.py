"""U4: the curriculum scheduler is adaptive and easy-first, by construction (inspect the sampler state).

A pool of ``pool`` samples in ``buckets`` (domain, task) buckets carries a current answer NLL ℓ (bucket-dependent
level times a log-normal spread, the heterogeneity Stage B sees) and a compatibility score κ. The sampler of
:mod:`jaxpapers.unigraphlm.curriculum` is then inspected:

* pacing: ``c(0) = c0``, ``c(T_c) = 1``, ``c`` non-decreasing on every step, ``|A_t| = ⌈c(t)·N⌉`` (against
  ``math.ceil`` in float64);
* easy first: the samples eligible at t = 0 have a lower mean current NLL than the rest;
* every index drawn over a whole run (one ``lax.scan``) lies in its step's ``A_t``; weights are 1 up to ``T_c``
  and have mean 1 afterwards;
* adaptive: after training lowers the NLL of some samples (a refresh scores ``refresh_size`` of them, the rest
  keep their last score), the Spearman correlation of the new ``d`` with the current ℓ.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.unigraphlm import figures
from jaxpapers.unigraphlm.config import AlignConfig, SchedulerCheckConfig
from jaxpapers.unigraphlm.curriculum import CurriculumSampler, competence, eligible_count


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation (average ranks for ties) in float64 NumPy."""

    def ranks(x):
        x = np.asarray(x, np.float64)
        order = np.argsort(x, kind="stable")
        r = np.empty(len(x))
        r[order] = np.arange(len(x))
        _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
        sums = np.bincount(inv, r)
        return sums[inv] / counts[inv]

    ra, rb = ranks(a), ranks(b)
    return float(np.corrcoef(ra, rb)[0, 1])


def synthetic_pool(c: SchedulerCheckConfig, seed: int) -> dict[str, np.ndarray]:
    """Current NLL ℓ, compatibility κ and bucket of every pool sample (heterogeneous levels per bucket)."""
    rng = np.random.default_rng(seed)
    buckets = rng.integers(0, c.buckets, c.pool)
    level = np.linspace(0.3, 2.0, c.buckets)[buckets]
    nll = level * rng.lognormal(0.0, 0.5, c.pool)
    kappa = rng.uniform(0.2, 0.8, c.pool)
    return {"nll": nll.astype(np.float32), "kappa": kappa.astype(np.float32), "buckets": buckets.astype(np.int32)}


def run_sampler(sampler: CurriculumSampler, state, key: jax.Array):
    """All ``steps`` batches of one run in one ``lax.scan``: indices [T, B], weights [T, B], |A_t| [T]."""

    def step(s, t):
        idx, w, s = sampler(s, t, jax.random.fold_in(key, t))
        return s, (idx, w, eligible_count(t, sampler.n, sampler.c0, sampler.t_c))

    _, out = jax.lax.scan(step, state, jnp.arange(sampler.steps))
    return out


def _program(sampler: CurriculumSampler):
    """One jitted program for the whole inspection (pacing, init, eligibility, the scanned run, a refresh)."""

    @jax.jit
    def run(nll, kappa, buckets, sub, new_nll_sub, key):
        t = jnp.arange(sampler.steps + 1)
        comp = competence(t, sampler.c0, sampler.t_c)
        sizes = eligible_count(t, sampler.n, sampler.c0, sampler.t_c)
        c_tc = competence(sampler.t_c, sampler.c0, sampler.t_c)
        state = sampler.init(nll, kappa, buckets, key)
        order, n0 = sampler.eligible(state, 0)
        idx, w, count = run_sampler(sampler, state, jax.random.fold_in(key, 1))
        state2 = sampler.refresh(state, sub, new_nll_sub, kappa[sub], jax.random.fold_in(key, 2))
        return comp, sizes, c_tc, order, n0, idx, w, count, state2.difficulty

    return run


def inspect(c: SchedulerCheckConfig, a: AlignConfig, seed: int) -> dict[str, float]:
    """The measured quantities of U4 (see the module docstring)."""
    pool = synthetic_pool(c, seed)
    key = jax.random.key(seed)
    sampler = CurriculumSampler(c.pool, c.batch, c.steps, c0=a.c0, tc_frac=a.tc_frac, beta=a.beta, norm=a.norm,
                                loss_weight=a.loss_weight)
    nll = pool["nll"].astype(np.float64)
    # training lowers the NLL of a random half of the pool; a refresh re-scores refresh_size samples
    rng = np.random.default_rng(seed + 1)
    improved = rng.random(c.pool) < 0.5
    new_nll = np.where(improved, nll * rng.uniform(0.1, 0.5, c.pool), nll)
    sub = rng.choice(c.pool, min(c.refresh_size, c.pool), replace=False)
    out = _program(sampler)(pool["nll"], pool["kappa"], pool["buckets"], jnp.asarray(sub, jnp.int32),
                                      jnp.asarray(new_nll[sub], jnp.float32), key)
    comp, sizes, c_tc, order, n0, idx, w, count, d2 = (np.asarray(x) for x in out)
    comp = comp.astype(np.float64)
    t = np.arange(c.steps + 1)
    c_ref = np.minimum(1.0, np.sqrt(a.c0**2 + (1 - a.c0**2) * t / sampler.t_c))
    sizes_ref = np.array([min(c.pool, max(1, math.ceil(round(x * c.pool, 4)))) for x in c_ref])
    elig0 = np.zeros(c.pool, bool)
    elig0[order[: int(n0)]] = True
    rank = np.empty(c.pool, int)
    rank[order] = np.arange(c.pool)
    outside = int((rank[idx] >= count[:, None]).sum())
    late = np.arange(c.steps) > sampler.t_c
    weight_err = float(max(np.abs(w[~late] - 1).max(initial=0), np.abs(w[late].mean(1) - 1).max(initial=0)))
    current = nll.copy()
    current[sub] = new_nll[sub]
    return {
        "c_at_0": float(comp[0]),
        "c_at_Tc": float(c_tc),
        "pacing_violations": int((np.diff(comp) < 0).sum() + (np.abs(comp - c_ref) > 1e-6).sum()),
        "size_violations": int((sizes != sizes_ref).sum()),
        "draws_outside_eligible": outside,
        "weight_mean_error": weight_err,
        "nll_gap_rest_minus_eligible0": float(nll[~elig0].mean() - nll[elig0].mean()),
        "spearman_d_nll_after_refresh": spearman(d2, current),
        "spearman_d_stale_nll_after_refresh": spearman(d2, new_nll),
        "eligible0": int(n0),
        "competence": comp,
        "eligible_frac": sizes / c.pool,
        "served_nll": nll[idx].mean(1),
        "pool_nll": float(nll.mean()),
        "t_c": float(sampler.t_c),
    }


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U4 on the synthetic pool of ``cfg.sched`` with the pacing of ``cfg.align``."""
    del key
    c = to_dataclass(SchedulerCheckConfig, cfg.sched)
    a = to_dataclass(AlignConfig, cfg.align)
    out = inspect(c, a, int(cfg.seed))
    keys = ("c_at_0", "c_at_Tc", "pacing_violations", "size_violations", "draws_outside_eligible",
            "weight_mean_error", "nll_gap_rest_minus_eligible0", "spearman_d_nll_after_refresh")
    return Measurement(
        measured={k: out[k] for k in keys},
        predicted={"c_at_0": a.c0, "c_at_Tc": 1.0},
        n=c.pool,
        details={"eligible_at_0": out["eligible0"],
                 "spearman_d_true_nll_after_refresh": out["spearman_d_stale_nll_after_refresh"]},
        figures={"pacing": figures.pacing(out["competence"], out["eligible_frac"], out["served_nll"],
                                          out["pool_nll"], out["t_c"])},
        captions={"pacing": figures.PACING_CAPTION},
    )
