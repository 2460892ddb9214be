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
        trs, ps, lam0, lmax = [], [], [], []
        m_max = max(opt.widths)
        for s in range(opt.seeds):
            ks = jax.random.fold_in(key, s)
            tr = jax.jit(lambda k: make_triples(k, target, opt.n))(jax.random.fold_in(ks, 0))
            z = np.asarray(features(tr["x"], tr["t"]), np.float64)
            ntk.check_nonparallel(z)
            ev = np.linalg.eigvalsh(ntk.gram_hinf(z))
            lam0.append(ev[0])
            lmax.append(ev[-1])
            trs.append(tr)
            ps.append(jax.jit(lambda k: init_params(k, m_max, target.d))(jax.random.fold_in(ks, 1)))
        stack = lambda xs, k: jnp.stack([x[k] for x in xs])  # noqa: E731
        lam0, lmax = np.array(lam0), np.array(lmax)
        eta = 1.0 / lmax
        # One program for the whole masked grid, or (quick size) one smaller program per width: the masked
        # neurons of the small widths would cost 2.3x the work at m = (256, 1024, 4096).
        groups = [opt.widths] if opt.masked else [(m,) for m in opt.widths]
        dtype = trs[0]["x"].dtype
        parts = [
            _width_sweep(
                stack(ps, "W")[:, : max(g)],
                stack(ps, "a")[:, : max(g)],
                stack(trs, "x"),
                stack(trs, "t"),
                stack(trs, "u"),
                jnp.asarray(eta, dtype),
                jnp.asarray(g, dtype),
                steps=opt.steps,
                record_every=opt.record_every,
            )
            for g in groups
        ]
        hist, lmin0, lmin1, drift = jax.tree.map(lambda *xs: jnp.concatenate(xs, axis=1), *parts)
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
@functools.partial(jax.jit, static_argnames=("steps", "power_iters"))
def _fit(w0, a, x, t, u, key, *, steps: int, power_iters: int):
    """η = 1/λ̂_max (power iterations on the empirical NTK at initialisation), then ``steps`` GD steps."""
    lam = ntk.power_lambda_max(w0, a, features(x, t), key, power_iters)
    tr = {"x": x, "t": t, "u": u}
    params, hist = gd_train({"W": w0, "a": a}, tr, 1.0 / lam, steps, record_every=steps)
    return params, lam, hist["loss"][-1], mean_loss(params, tr)


@functools.partial(jax.jit, static_argnames=("batches",))
def _test_losses(params, x, t, u, v_star, *, batches: int):
    """Per-batch mean ½‖v − u‖² and ½‖v* − u‖² on the test triples (``[batches]`` each)."""
    v = velocity(params, x, t)
    per = 0.5 * jnp.sum((v - u) ** 2, -1).reshape(batches, -1).mean(1)
    per_star = 0.5 * jnp.sum((v_star - u) ** 2, -1).reshape(batches, -1).mean(1)
    return per, per_star


@functools.partial(jax.jit, static_argnames=("steps", "method"))
def _sample(params, x0, *, steps: int, method: str):
    """Samples of the learned flow and Λ̂ = ∫ max_points ‖∂_x v_W‖₂ dt along their trajectories."""
    x1, path = integrate(lambda x, s: velocity(params, x, s), x0, steps, method, return_path=True)
    return x1, lipschitz_along(lambda x, s: jacobian_x(params, x, s), path)


def _test_set(target_cfg: GMMConfig, gen: GeneralisationConfig, seed: int):
    def run():
        target = GMMTarget.from_config(target_cfg)

        @jax.jit  # one program instead of dozens of eagerly compiled small ops
        def draw(key):
            tr = make_triples(key, target, gen.test_size)
            return tr, target.v_star(tr["x"], tr["t"])

        return draw(jax.random.fold_in(jax.random.key(seed), 99))

    return memo.shared("flow_matching/test_set", target_cfg, gen.test_size, seed, fn=run)


def sampling_floor(target_cfg: GMMConfig, samples: int, seed: int) -> tuple[np.ndarray, float]:
    """Target draws used as the W2 reference, and the floor: exact W2 between two independent ``samples``-draws."""

    def run():
        target = GMMTarget.from_config(target_cfg)
        key = jax.random.fold_in(jax.random.key(seed), 98)
        draw = jax.jit(lambda k: target.sample(k, samples))
        y, y2 = np.asarray(draw(jax.random.fold_in(key, 0))), np.asarray(draw(jax.random.fold_in(key, 1)))
        return y, metrics.w2(y, y2)

    return memo.shared("flow_matching/sampling_floor", target_cfg, samples, seed, fn=run)


def generalisation_run(
    target_cfg: GMMConfig, gen: GeneralisationConfig, n: int, m: int, seed: int, *, sample: bool = False
) -> dict:
    """One FM2/FM5 run: GD on n fixed triples at width m; train/test loss, L*, their SEs; with ``sample`` also the
    FM3 quantities (W2 of N generated points to N target draws, the floor, ε_v and Λ̂).

    The triples depend on (seed, n) only and the initial weights on (seed, m) only, so runs differ in one factor."""

    def run():
        target = GMMTarget.from_config(target_cfg)
        key = jax.random.key(seed)
        tr = jax.jit(lambda k: make_triples(k, target, n))(jax.random.fold_in(jax.random.fold_in(key, 1), n))
        p0 = jax.jit(lambda k: init_params(k, m, target.d))(jax.random.fold_in(jax.random.fold_in(key, 2), m))
        params, lam, train_sum, train_mean = _fit(
            p0["W"], p0["a"], tr["x"], tr["t"], tr["u"], jax.random.fold_in(key, 3), steps=gen.steps,
            power_iters=gen.power_iters,
        )
        test, v_star = _test_set(target_cfg, gen, seed)
        per, per_star = (
            np.asarray(v, np.float64)
            for v in _test_losses(params, test["x"], test["t"], test["u"], v_star, batches=gen.test_batches)
        )
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
            x0 = jax.random.normal(jax.random.fold_in(key, 4), (gen.samples, target.d), tr["x"].dtype)
            x1, lip = _sample(params, x0, steps=gen.solver_steps, method=gen.solver)
            y, floor_w2 = sampling_floor(target_cfg, gen.samples, seed)
            eps_v = math.sqrt(max(2.0 * out["excess"], 0.0))
            out.update(w2=metrics.w2(np.asarray(x1), y), w2_floor=floor_w2, eps_v=eps_v, lipschitz=float(lip))
            out["w2_bound"] = floor_w2 + eps_v * math.exp(out["lipschitz"])
        return out

    return memo.shared("flow_matching/generalisation_run", target_cfg, gen, n, m, seed, sample, fn=run)
