"""Studies shared by several claims (memoised per process with ``core.memo.shared``).

* :func:`lm_study` — setting A (DP-SGD fine-tune + extraction attack) per seed: D4, D6 and D8.
* :func:`tabular_study` — setting B (noisy 3-way marginals + relax-and-round attack) per seed: D5 and D8.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

from jaxpapers.core import memo
from jaxpapers.core.train.optim import OptimConfig, make_optimizer
from jaxpapers.core.train.scan import scan_fit, uniform_batch
from jaxpapers.dp_bounds import accounting, attack_lm, data_tabular, data_text
from jaxpapers.dp_bounds.bounds import high_prob_cap, rero_bound
from jaxpapers.dp_bounds.config import LMConfig, TabularConfig
from jaxpapers.dp_bounds.dpsgd import dp_finetune
from jaxpapers.dp_bounds.lm import CharTransformer, LMSpec, suffix_logprob, token_nll
from jaxpapers.dp_bounds.tradeoff import Profile, default_eps_grid, gdp_mu_for_eps, gdp_profile, gdp_tradeoff

GROUPS = ("zipf", "uniform")
PREDS = ("exact", "top10")
ATTACKS = ("lr", "prior")


def _binom_quantile(m: int, b: float, level: float = 0.999) -> int:
    return int(stats.binom.ppf(level, m, min(max(b, 0.0), 1.0)))


def bound_rows(kappa: float, m: int, f_add, profile_replace, beta: float, report_beta: float) -> dict:
    """B2 (expectation, add/remove curve), its Binomial 0.999-quantile, and B3 caps (replace-one profile); beside
    them ``cap_add_remove``, the cap the add/remove profile would give (smaller: the spec's Pitfall of mixing
    the two relations up makes B3 invalid), reported so that a B3 computed from the wrong relation shows."""
    with jax.enable_x64(True):
        b1 = float(rero_bound(f_add, kappa))
        kap = jnp.full(m, kappa)
        cap = int(high_prob_cap(profile_replace, kap, beta))
        cap_r = int(high_prob_cap(profile_replace, kap, report_beta))
        cap_add = int(high_prob_cap(f_add, kap, beta))
    return {
        "B1": b1,
        "B2": m * b1,
        "binq": _binom_quantile(m, b1),
        "cap": cap,
        "cap_report": cap_r,
        "cap_add_remove": cap_add,
    }


def _f64(a):
    return jnp.asarray(a, jnp.float64)


def lm_profiles(q: float, sigma: float, steps: int, grid, **acct) -> tuple[Profile, Profile]:
    """``(add/remove profile, replace-one profile)`` of DP-SGD in float64 (PLD accountant): B2 reads the first
    (an add/remove guarantee on each target), B3 the second (it needs replace-one, spec "Bounds")."""
    with jax.enable_x64(True):
        f_add = Profile(*map(_f64, accounting.dpsgd_profile(q, sigma, steps, grid, "add_remove", **acct)))
        prof_rep = Profile(*map(_f64, accounting.dpsgd_profile(q, sigma, steps, grid, "replace_one", **acct)))
    return f_add, prof_rep


def tabular_mus(eps: float, delta: float, s_add: float, s_replace: float) -> tuple[float, float, float]:
    """``(σ, μ_add, μ_replace)`` of the Gaussian marginal release at (ε, δ): σ calibrated on the add/remove
    sensitivity (μ_add-GDP ⇔ (ε, δ)), and the replace-one μ = s_replace / σ that B3 reads (ε = ∞: σ = 0)."""
    if math.isinf(eps):
        return 0.0, math.inf, math.inf
    mu = gdp_mu_for_eps(eps, delta)
    sigma = s_add / mu
    return sigma, mu, s_replace / sigma


@functools.cache
def _lm_programs(spec: LMSpec, pretrain_steps: int, batch: int, lr: float):
    model = CharTransformer(spec)

    def loss_fn(params, b, key, *, train):
        return jnp.mean(token_nll(model.apply({"params": params}, b["x"]), b["y"], b["mask"])), {}

    tx = make_optimizer(OptimConfig(lr=lr), pretrain_steps)

    @jax.jit
    def pretrain(key, data):
        return scan_fit(
            key,
            data,
            init_params=lambda k, d: model.init(k, d["x"][:1])["params"],
            loss_fn=loss_fn,
            tx=tx,
            sample_batch=uniform_batch(batch),
            steps=pretrain_steps,
        )

    score = jax.jit(lambda p, pre, plen, c, clen: suffix_logprob(model, p, pre, plen, c, clen))
    loss = jax.jit(lambda p, d: jnp.mean(token_nll(model.apply({"params": p}, d["x"]), d["y"], d["mask"])))
    return model, pretrain, score, loss


def _lm_run(lc: LMConfig, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    cands = data_text.password_candidates(lc.k_pw, seed)
    priors = data_text.make_priors(lc.k_pw, lc.zipf_s, rng)
    public = data_text.draw_population(lc.n_public, cands, priors, rng)
    private = data_text.draw_population(lc.n_private, cands, priors, rng, taken=set(public.names))

    def enc(pop):
        texts = [data_text.record_text(nm, cands[s]) for nm, s in zip(pop.names, pop.secret, strict=True)]
        return dict(zip(("x", "y", "mask"), data_text.encode(texts, lc.context), strict=True))

    pub, priv = enc(public), enc(private)
    spec = LMSpec(lc.layers, lc.d_model, lc.heads, lc.context)
    model, pretrain, score, loss = _lm_programs(spec, lc.pretrain_steps, lc.pretrain_batch, lc.pretrain_lr)
    key = jax.random.key(seed)
    k_pre, k_dp, k_tie = jax.random.split(key, 3)
    pre = pretrain(k_pre, pub)
    prefixes, plen = attack_lm.encode_prefixes([data_text.record_prefix(nm) for nm in private.names], lc.context)
    ctoks, clen = attack_lm.encode_candidates(cands)
    lp_pre = np.asarray(score(pre.params, prefixes, plen, ctoks, clen))
    log_prior = np.log(priors[private.group])  # [m, K]: each target's own prior
    priv_j = jax.tree.map(jnp.asarray, priv)
    n = lc.n_private
    grid = default_eps_grid()
    kappas = {
        g: {"exact": float(priors[i].max()), "top10": float(np.sort(priors[i])[::-1][: lc.topk].sum())}
        for i, g in enumerate(GROUPS)
    }
    m_g = {g: int((private.group == i).sum()) for i, g in enumerate(GROUPS)}
    runs = []
    for j, eps in enumerate(lc.eps):
        private_run = not math.isinf(eps)
        sigma = accounting.calibrate_sigma(
            eps, lc.q, lc.dp_steps, lc.delta, "add_remove", lc.capacity, n, lc.discretization
        )
        params, sizes = dp_finetune(
            model,
            pre.params,
            priv_j,
            jax.random.fold_in(k_dp, j),
            steps=lc.dp_steps,
            q=lc.q,
            capacity=lc.capacity,
            clip=lc.clip if private_run else jnp.inf,
            noise_std=sigma * lc.clip,
            lr=lc.lr_private if private_run else lc.lr_nonprivate,
        )
        lp_ft = np.asarray(score(params, prefixes, plen, ctoks, clen))
        attacks = {"lr": attack_lm.lr_scores(log_prior, lp_ft, lp_pre), "prior": jnp.asarray(log_prior)}
        run = {
            "eps": eps,
            "sigma": sigma,
            "loss_pre": float(loss(pre.params, priv_j)),
            "loss_ft": float(loss(params, priv_j)),
            "batch_sizes": np.asarray(sizes),
            "K": {},
            "rate": {},
            "bounds": {},
        }
        if private_run:
            acct = dict(truncated_batch_size=lc.capacity, dataset_size=n, discretization=lc.discretization)
            f_add, prof_rep = lm_profiles(lc.q, sigma, lc.dp_steps, grid, **acct)
            run["eps_replace"] = accounting.dpsgd_epsilon(lc.q, sigma, lc.dp_steps, lc.delta, "replace_one", **acct)
            with jax.enable_x64(True):
                for g in GROUPS:
                    for p in PREDS:
                        run["bounds"][(g, p)] = bound_rows(
                            kappas[g][p], m_g[g], f_add, prof_rep, lc.beta, lc.report_beta
                        )
        for a, sc in attacks.items():
            ex, top = attack_lm.successes(sc, private.secret, lc.topk, jax.random.fold_in(k_tie, 100 * j + len(a)))
            for i, g in enumerate(GROUPS):
                sel = private.group == i
                for p, s in zip(PREDS, (ex, top), strict=False):
                    k_ = int(np.asarray(s)[sel].sum())
                    run["K"][(g, p, a)] = k_
                    run["rate"][(g, p, a)] = k_ / m_g[g]
        runs.append(run)
    return {"seed": seed, "kappas": kappas, "m": m_g, "runs": runs, "pretrain_loss": np.asarray(pre.losses)}


def lm_study(lc: LMConfig) -> list[dict]:
    """Setting A for every seed of ``lc`` (memoised: D4, D6 and D8 share it)."""
    return memo.shared("dp_bounds/lm", lc, fn=lambda: [_lm_run(lc, s) for s in lc.seeds])


def _tab_run(tc: TabularConfig, seed: int) -> dict:
    from jaxpapers.dp_bounds import attack_tabular, marginals
    from jaxpapers.dp_bounds.priors import bits_kappa

    table = data_tabular.synthetic_table(tc.n, tc.d_pub, tc.d_sec, seed, tc.weight_scale)
    tri_all = marginals.triples(tc.d_pub + tc.d_sec)
    tri_sec = marginals.secret_triples(tc.d_pub, tc.d_sec)
    sec_rows = np.isin(np.arange(len(tri_all)), np.nonzero((tri_all >= tc.d_pub).any(1))[0])
    s_add, s_rep = marginals.sensitivities(tc.d_pub, tc.d_sec)
    noise = [tabular_mus(e, tc.delta, s_add, s_rep) for e in tc.eps]
    mus = [mu for _, mu, _ in noise]
    sigmas = np.array([sg for sg, _, _ in noise])
    # Host NumPy draws: a jax.random.normal per shape costs seconds of XLA compile on a busy CPU.
    rng = np.random.default_rng(1000 + seed)
    full = np.concatenate([table.public, table.secret], axis=1)
    exact = np.asarray(marginals.marginals(full.astype(np.float32), tri_all))
    released = exact[None] + sigmas[:, None, None, None, None] * rng.standard_normal((len(sigmas), *exact.shape))
    noisy_sec = jnp.asarray(released[:, sec_rows], jnp.float32)
    init = jnp.asarray(rng.standard_normal((len(sigmas), tc.restarts, tc.n, tc.d_sec)), jnp.float32)
    guess, objs = attack_tabular.reconstruct(
        init,
        jnp.asarray(table.public, jnp.float32),
        jnp.asarray(table.prior, jnp.float32),
        noisy_sec,
        jnp.asarray(tri_sec),
        jnp.asarray(sigmas, jnp.float32),
        steps=tc.steps,
        lr=tc.lr,
        floor=tc.sigma_floor,
    )
    mode = (table.prior > 0.5).astype(np.float64)
    kap = {
        "exact": np.prod(np.maximum(table.prior, 1 - table.prior), axis=1),
        "approx": bits_kappa(table.prior, tc.approx_bits),
    }
    secret = jnp.asarray(table.secret, jnp.float32)
    runs = []
    for j, (eps, mu, sg) in enumerate(zip(tc.eps, mus, sigmas, strict=False)):
        run = {"eps": eps, "sigma": float(sg), "mu_add": mu, "K": {}, "rate": {}, "bounds": {}}
        for a, g in (("recon", guess[j]), ("prior", jnp.asarray(mode))):
            ex, ap = attack_tabular.row_success(g, secret, tc.approx_bits)
            for p, s in (("exact", ex), ("approx", ap)):
                run["K"][(p, a)] = int(np.asarray(s).sum())
                run["rate"][(p, a)] = float(np.asarray(s).mean())
        if not math.isinf(eps):
            mu_rep = noise[j][2]
            run["mu_replace"] = mu_rep
            with jax.enable_x64(True):
                f_add = gdp_tradeoff(mu)
                prof = gdp_profile(mu_rep)
                for p in ("exact", "approx"):
                    k = jnp.asarray(kap[p])
                    b2 = float(jnp.sum(rero_bound(f_add, k)))
                    run["bounds"][p] = {
                        "B2": b2,
                        "binq": _binom_quantile(tc.n, b2 / tc.n),
                        "cap": int(high_prob_cap(prof, k, tc.beta)),
                        "cap_report": int(high_prob_cap(prof, k, tc.report_beta)),
                    }
        runs.append(run)
    return {
        "seed": seed,
        "m": tc.n,
        "kappa_mean": {p: float(v.mean()) for p, v in kap.items()},
        "runs": runs,
        "objectives": np.asarray(objs),
        "T": len(tri_all),
        "T_s": len(tri_sec),
    }


def tabular_study(tc: TabularConfig) -> list[dict]:
    """Setting B for every generator seed of ``tc`` (memoised: D5 and D8 share it)."""
    return memo.shared("dp_bounds/tabular", tc, fn=lambda: [_tab_run(tc, s) for s in tc.seeds])
