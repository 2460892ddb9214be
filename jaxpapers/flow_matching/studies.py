"""Studies shared by several claims: the width sweep of FM1 and the fixed-triple GD runs of FM2, FM3 and FM5.

* :func:`optimisation_sweep` (FM1): n fixed triples, H∞ and λ₀ in float64, then full-batch GD for every
  (seed, width) as **one** jitted program (masked max-width net vmapped over widths, vmapped over seeds).
* :func:`generalisation_run` (FM2/FM3/FM5): one GD run at (n, m), its train/test CFM losses, the floor L* on the
  same test triples (shared Monte-Carlo noise), and, when asked, samples of the learned flow with W2 and Λ̂.
  Memoised with ``core.memo.shared``: FM5's (n = 256, m = 1024) run is FM2's, FM3 reuses FM2's runs.

Triples, initial weights and heads are jit **arguments** (closing over them makes XLA constant-fold n×m products).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.sim import fast_compile_options
from jaxpapers.flow_matching import metrics, ntk
from jaxpapers.flow_matching.config import GeneralisationConfig, GMMConfig, OptimisationConfig
from jaxpapers.flow_matching.model import features, init_params, jacobian_x, neuron_mask, velocity
from jaxpapers.flow_matching.sampler import integrate, lipschitz_along
from jaxpapers.flow_matching.targets import GMMTarget
from jaxpapers.flow_matching.train import gd_train, make_triples, mean_loss


# --------------------------------------------------------------------------------------------------------- FM1
@functools.partial(jax.jit, static_argnames=("steps", "record_every"))
def _width_sweep(w0, a, x, t, u, eta, widths, *, steps: int, record_every: int):
    """GD for every (seed, width): ``w0 [S, m_max, p]``, ``a [S, m_max, d]``, triples ``[S, n, ...]``, ``eta [S]``,
    ``widths [M]``; returns the per-step history ``[S, M, T+1]`` and the empirical-NTK λ_min and drift."""
    m_max = w0.shape[1]

    def one(w0, a, x, t, u, eta, m):
        mask = neuron_mask(m_max, m)
        params, hist = gd_train({"W": w0, "a": a}, {"x": x, "t": t, "u": u}, eta, steps, width=m, mask=mask,
                                record_every=record_every)
        z = features(x, t)
        h0 = ntk.empirical_ntk(w0, a, z, m, mask)
        h1 = ntk.empirical_ntk(params["W"], a, z, m, mask)
        ev0, ev1 = jnp.linalg.eigvalsh(h0), jnp.linalg.eigvalsh(h1)
        drift = jnp.linalg.norm(h1 - h0, ord=2) / ev0[-1]
        return hist, ev0[0], ev1[0], drift

    over_widths = jax.vmap(one, in_axes=(None, None, None, None, None, None, 0))
    return jax.vmap(over_widths, in_axes=(0, 0, 0, 0, 0, 0, None))(w0, a, x, t, u, eta, widths)


def optimisation_sweep(target_cfg: GMMConfig, opt: OptimisationConfig, seed: int) -> dict:
    """FM1's sweep: per seed the triples, λ₀ and λ_max of H∞ (float64), η = 1/λ_max, and the GD history of every
    width (``loss``, ``delta_max``, ``flips`` as ``[S, M, T+1]`` NumPy arrays), plus the empirical-NTK diagnostics."""

    def run():
        target = GMMTarget.from_config(target_cfg)
        key = jax.random.key(seed)
        m_max = max(opt.widths)

        @functools.partial(jax.jit, compiler_options=fast_compile_options(0))  # runs for ms, compiles for seconds
        def draw():
            ks = [jax.random.fold_in(key, s) for s in range(opt.seeds)]
            trs = [make_triples(jax.random.fold_in(k, 0), target, opt.n) for k in ks]
            ps = [init_params(jax.random.fold_in(k, 1), m_max, target.d) for k in ks]
            return jax.tree.map(lambda *xs: jnp.stack(xs), *trs), jax.tree.map(lambda *xs: jnp.stack(xs), *ps)

        trs, ps = jax.tree.map(np.asarray, draw())  # [S, ...] each
        lam0, lmax = [], []
        for s in range(opt.seeds):
            t = np.asarray(trs["t"][s], np.float64)[:, None]
            z = np.concatenate([np.asarray(trs["x"][s], np.float64), t, np.ones_like(t)], axis=1)  # z = (x, t, 1)
            ntk.check_nonparallel(z)
            ev = np.linalg.eigvalsh(ntk.gram_hinf(z))
            lam0.append(ev[0])
            lmax.append(ev[-1])
        lam0, lmax = np.array(lam0), np.array(lmax)
        eta = 1.0 / lmax
        # One program for the whole masked grid, or (quick size) one smaller program per width: the masked
        # neurons of the small widths would cost 2.3x the work at m = (256, 1024, 4096).
        groups = [opt.widths] if opt.masked else [(m,) for m in opt.widths]
        dtype = trs["x"].dtype
        parts = [
            jax.tree.map(
                np.asarray,
                _width_sweep(ps["W"][:, : max(g)], ps["a"][:, : max(g)], trs["x"], trs["t"], trs["u"],
                             eta.astype(dtype), np.asarray(g, dtype), steps=opt.steps, record_every=opt.record_every),
            )
            for g in groups
        ]
        hist, lmin0, lmin1, drift = jax.tree.map(lambda *xs: np.concatenate(xs, axis=1), *parts)
        out = {k: np.asarray(v, np.float64) for k, v in hist.items()}
        out.update(lambda0=lam0, lambda_max=lmax, eta=eta, ntk_lmin_init=np.asarray(lmin0, np.float64))
        out.update(ntk_lmin_final=np.asarray(lmin1, np.float64), gram_drift=np.asarray(drift, np.float64))
        return out

    return memo.shared("flow_matching/optimisation_sweep", target_cfg, opt, seed, fn=run)


def rate_check(loss: np.ndarray, lambda0: float, eta: float, horizon: float, slack: float) -> dict:
    """Compares L̂(k) with (1 − ηλ₀/2)^k L̂(0) (Du et al., adapted) for one run ``loss [T+1]`` (float64).

    Returns K_b = min(T, ⌈horizon/(ηλ₀)⌉), the number of steps k ≤ K_b where L̂(k) > bound·(1 + slack), and the
    first failing k over all k ≤ T (−1 when none)."""
    steps = loss.size - 1
    k = np.arange(loss.size)
    bound = loss[0] * np.exp(k * np.log1p(-eta * lambda0 / 2)) * (1 + slack)
    bad = loss > bound
    k_b = int(min(steps, math.ceil(horizon / (eta * lambda0))))
    return {
        "K_b": k_b,
        "violations_within_K_b": int(np.sum(bad[: k_b + 1])),
        "first_fail_k": int(np.argmax(bad)) if bad.any() else -1,
        "bound_T": float(bound[-1]),
    }


# -------------------------------------------------------------------------------------------- FM2, FM3, FM5
@functools.partial(jax.jit, static_argnames=("steps", "power_iters", "batches"))
def _fit(w0, a, x, t, u, key, test_x, test_t, test_u, *, steps: int, power_iters: int, batches: int):
    """η = 1/λ̂_max (power iterations on the empirical NTK at initialisation), ``steps`` GD steps, then the per-batch
    mean ½‖v − u‖² on the test triples (``[batches]``). One program per (n, m)."""
    lam = ntk.power_lambda_max(w0, a, features(x, t), key, power_iters)
    tr = {"x": x, "t": t, "u": u}
    params, hist = gd_train({"W": w0, "a": a}, tr, 1.0 / lam, steps, record_every=steps)
    v = velocity(params, test_x, test_t)
    per = 0.5 * jnp.sum((v - test_u) ** 2, -1).reshape(batches, -1).mean(1)
    return params, lam, hist["loss"][-1], mean_loss(params, tr), per


@functools.partial(jax.jit, static_argnames=("steps", "method"))
def _sample(params, x0, *, steps: int, method: str):
    """Samples of the learned flow and Λ̂ = ∫ max_points ‖∂_x v_W‖₂ dt along their trajectories."""
    x1, path = integrate(lambda x, s: velocity(params, x, s), x0, steps, method, return_path=True)
    return x1, lipschitz_along(lambda x, s: jacobian_x(params, x, s), path)


def _run_keys(seed: int):
    key = jax.random.key(seed)
    return {
        "triples": lambda n: jax.random.fold_in(jax.random.fold_in(key, 1), n),  # depends on (seed, n) only
        "init": lambda m: jax.random.fold_in(jax.random.fold_in(key, 2), m),  # depends on (seed, m) only
        "power": jax.random.fold_in(key, 3),
        "source": jax.random.fold_in(key, 4),
        "target": jax.random.fold_in(key, 98),
        "test": jax.random.fold_in(key, 99),
    }


def _inputs(target_cfg: GMMConfig, gen: GeneralisationConfig, seed: int) -> dict:
    """Every random input of the FM2/FM3/FM5 runs of one seed, drawn by **one** jitted program (instead of one small
    compile per n and per m): triples for each n in ``gen.ns`` ∪ {n_fixed}, initial weights for each m in
    ``gen.widths`` ∪ {width}, the test triples with v* on them and the per-batch floor ½‖v* − u‖², the N source
    points of the sampler and two independent N-draws of the target (W2 reference and sampling floor)."""

    def run():
        target = GMMTarget.from_config(target_cfg)
        ns = tuple(sorted(set(gen.ns) | {gen.n_fixed}))
        ms = tuple(sorted(set(gen.widths) | {gen.width}))
        keys = _run_keys(seed)

        @functools.partial(jax.jit, compiler_options=fast_compile_options(0))  # runs for ms, compiles for seconds
        def draw():
            test = make_triples(keys["test"], target, gen.test_size)
            v_star = target.v_star(test["x"], test["t"])
            per_star = 0.5 * jnp.sum((v_star - test["u"]) ** 2, -1).reshape(gen.test_batches, -1).mean(1)
            draws = [target.sample(jax.random.fold_in(keys["target"], i), gen.samples) for i in (0, 1)]
            return {
                "triples": {n: make_triples(keys["triples"](n), target, n) for n in ns},
                "init": {m: init_params(keys["init"](m), m, target.d) for m in ms},
                "test": test,
                "v_star": v_star,
                "per_star": per_star,
                "source": jax.random.normal(keys["source"], (gen.samples, target.d), test["x"].dtype),
                "target": jnp.stack(draws),
            }

        return draw()

    return memo.shared("flow_matching/generalisation_inputs", target_cfg, gen, seed, fn=run)


def _test_set(target_cfg: GMMConfig, gen: GeneralisationConfig, seed: int):
    """The test triples of a seed (fixed for all runs) and v* on them."""
    inputs = _inputs(target_cfg, gen, seed)
    return inputs["test"], inputs["v_star"]


def sampling_floor(target_cfg: GMMConfig, gen: GeneralisationConfig, seed: int) -> tuple[np.ndarray, float]:
    """Target draws used as the W2 reference, and the floor: exact W2 between two independent ``gen.samples``-draws."""

    def run():
        y = np.asarray(_inputs(target_cfg, gen, seed)["target"])
        return y[0], metrics.w2(y[0], y[1])

    return memo.shared("flow_matching/sampling_floor", target_cfg, gen, seed, fn=run)


def generalisation_run(
    target_cfg: GMMConfig, gen: GeneralisationConfig, n: int, m: int, seed: int, *, sample: bool = False
) -> dict:
    """One FM2/FM5 run: GD on n fixed triples at width m; train/test loss, L*, their SEs; with ``sample`` also the
    FM3 quantities (W2 of N generated points to N target draws, the floor, ε_v and Λ̂).

    The triples depend on (seed, n) only and the initial weights on (seed, m) only, so runs differ in one factor;
    ``n`` must be in ``gen.ns`` or ``gen.n_fixed`` and ``m`` in ``gen.widths`` or ``gen.width``."""

    def run():
        inputs = _inputs(target_cfg, gen, seed)
        if n not in inputs["triples"] or m not in inputs["init"]:
            raise ValueError(
                f"generalisation_run(n={n}, m={m}): n must be one of {sorted(inputs['triples'])} and m one of "
                f"{sorted(inputs['init'])} (gen.ns/gen.n_fixed and gen.widths/gen.width)"
            )
        tr, p0, test = inputs["triples"][n], inputs["init"][m], inputs["test"]
        params, lam, train_sum, train_mean, per = _fit(
            p0["W"], p0["a"], tr["x"], tr["t"], tr["u"], _run_keys(seed)["power"], test["x"], test["t"], test["u"],
            steps=gen.steps, power_iters=gen.power_iters, batches=gen.test_batches,
        )
        per, per_star = np.asarray(per, np.float64), np.asarray(inputs["per_star"], np.float64)
        b = gen.test_batches
        excess = per - per_star
        out = {
            "n": n,
            "m": m,
            "eta": float(1.0 / lam),
            "train": float(train_mean),
            "train_sum_final": float(train_sum),
            "test": float(per.mean()),
            "test_se": float(per.std(ddof=1) / math.sqrt(b)),
            "floor": float(per_star.mean()),
            "excess": float(excess.mean()),
            "excess_se": float(excess.std(ddof=1) / math.sqrt(b)),
        }
        if sample:
            x1, lip = _sample(params, inputs["source"], steps=gen.solver_steps, method=gen.solver)
            y, floor_w2 = sampling_floor(target_cfg, gen, seed)
            eps_v = math.sqrt(max(2.0 * out["excess"], 0.0))
            out.update(w2=metrics.w2(np.asarray(x1), y), w2_floor=floor_w2, eps_v=eps_v, lipschitz=float(lip))
            out["w2_bound"] = floor_w2 + eps_v * math.exp(out["lipschitz"])
        return out

    return memo.shared("flow_matching/generalisation_run", target_cfg, gen, n, m, seed, sample, fn=run)
