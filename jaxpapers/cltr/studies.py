"""Studies shared by several claims: the LT-digits features, the weighted radius sweep (C1, C4) and the
subsampled sweep over seeds x profiles x class IFs (C2). Each is one vmapped float64 Newton program,
memoised per process with ``core.memo.shared``."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.cltr.config import DigitsConfig, TheoryConfig
from jaxpapers.cltr.data.digits_lt import DigitsSplit, load_digits_split
from jaxpapers.cltr.data.lt import lt_counts, make_long_tailed
from jaxpapers.cltr.solvers import logreg_grad, logreg_hessian, logreg_loss, solve_logreg
from jaxpapers.core import memo

NUM_CLASSES = 10
HEAD = np.arange(5)  # digits 0-4: the Head partition (the first C/2 classes by frequency in both profiles)


def digits(cfg: DigitsConfig) -> DigitsSplit:
    """The LT-digits split of ``cfg`` (memoised)."""
    return memo.shared("cltr/digits", cfg, fn=lambda: load_digits_split(cfg))


def partition_weights(y: np.ndarray, selected: np.ndarray, r_weight: float | None = None) -> np.ndarray:
    """``[3, N]`` weight rows (LT, Head, Tail) over the pool: uniform over the selected Head / Tail samples,
    and the LT row ``(n_H L_H + n_T L_T)/n`` (subsampling) or, with ``r_weight = r``, the weighted mixture
    ``(L_H + r L_T)/(1+r)`` of the full partitions (C1)."""
    sel = np.zeros(len(y), bool)
    sel[selected] = True
    head = sel & np.isin(y, HEAD)
    tail = sel & ~np.isin(y, HEAD)
    wh, wt = head / head.sum(), tail / tail.sum()
    if r_weight is None:
        lt = sel / sel.sum()
    else:
        lt = (wh + r_weight * wt) / (1.0 + r_weight)
    return np.stack([lt, wh, wt])


@jax.jit
def _losses(theta, x, y1h, w, mu):
    """``logreg_loss`` of every ``(theta [B, P], w [B, N])`` pair in one program."""
    return jax.vmap(logreg_loss, in_axes=(0, None, None, 0, None))(theta, x, y1h, w, mu)


def radius_sweep(dcfg: DigitsConfig, tcfg: TheoryConfig) -> dict:
    """C1: for every ``IF_part`` (Tail weighted by ``r = 1/IF_part``): ``dist = ||theta* - theta_H*||``, both
    forms of Theorem A's bound, the linear-response distance, and the solver's gradient norms (float64)."""

    def run():
        d = digits(dcfg)
        x, y1h = jnp.asarray(d.x_pool), jnp.asarray(np.eye(NUM_CLASSES)[d.y_pool])
        all_idx = np.arange(len(d.y_pool))
        rs = 1.0 / np.asarray(tcfg.if_parts, np.float64)
        rows = [partition_weights(d.y_pool, all_idx, r) for r in rs]
        w = np.concatenate([rows[0][1:], np.stack([r[0] for r in rows])])  # Head, Tail, LT(r) ...
        theta, gnorm = solve_logreg(x, y1h, w, tcfg.mu, iters=tcfg.newton_iters, tol=tcfg.newton_tol)
        theta_h, theta_lt = theta[0], theta[2:]
        wt = jnp.asarray(w[1])
        lt = np.asarray(_losses(theta, x, y1h, jnp.broadcast_to(wt, (len(w), len(wt))), tcfg.mu))
        lt_head, lt_min, lt_opt = float(lt[0]), float(lt[1]), lt[2:]
        dist = np.asarray(jnp.linalg.norm(theta_lt - theta_h[None], axis=1))
        hess = np.asarray(logreg_hessian(theta_h, x, y1h, jnp.asarray(w[0]), tcfg.mu))
        grad_t = np.asarray(logreg_grad(theta_h, x, y1h, wt, tcfg.mu))
        from jaxpapers.cltr.theory import linear_response_radius, neighborhood_bound

        return {
            "if_part": np.asarray(tcfg.if_parts, np.float64),
            "r": rs,
            "dist": dist,
            "bound": neighborhood_bound(tcfg.mu, rs, lt_head, lt_opt),
            "bound_fixed": neighborhood_bound(tcfg.mu, rs, lt_head, lt_min),
            "linear_response": np.asarray([linear_response_radius(r, hess, grad_t) for r in rs]),
            "grad_norm": np.asarray(gnorm),
            "theta_head": np.asarray(theta_h),
            "hess_head": hess,
        }

    return memo.shared("cltr/radius_sweep", dcfg, tcfg, fn=run)


def subsample_sweep(dcfg: DigitsConfig, tcfg: TheoryConfig) -> dict:
    """C2: seeds x profiles x class IFs with real subsampling (LDAM draw from the pool, seed = 0..S-1);
    ``theta*`` (LT subset) and ``theta_H*`` (its Head part) recomputed per draw. Identical weight rows (the
    step profile keeps every Head image, so its Head solve is the same in every draw) are solved once; all
    solves run in one compiled program."""

    def run():
        d = digits(dcfg)
        x, y1h = jnp.asarray(d.x_pool), jnp.asarray(np.eye(NUM_CLASSES)[d.y_pool])
        shape = (tcfg.seeds, len(tcfg.profiles), len(tcfg.class_ifs))
        rows, if_part = [], np.zeros(shape)
        for s in range(tcfg.seeds):
            for p, prof in enumerate(tcfg.profiles):
                for k, imb in enumerate(tcfg.class_ifs):
                    counts = lt_counts(NUM_CLASSES, dcfg.n_pool, imb, prof)
                    rows.append(partition_weights(d.y_pool, make_long_tailed(d.y_pool, counts, s))[:2])
                    if_part[s, p, k] = counts[HEAD].sum() / counts[5:].sum()
        w = np.concatenate(rows)  # [(S P K) * 2, N]: LT, Head per draw
        uniq, inverse = np.unique(w, axis=0, return_inverse=True)
        theta_u, gnorm_u = solve_logreg(x, y1h, uniq, tcfg.mu, iters=tcfg.newton_iters, tol=tcfg.newton_tol)
        theta = np.asarray(theta_u)[inverse.reshape(-1)].reshape(*shape, 2, -1)
        wt = np.stack([partition_weights(d.y_pool, np.flatnonzero(ww > 0))[2] for ww in w[0::2]]).reshape(*shape, -1)
        n_draws, p = int(np.prod(shape)), theta.shape[-1]
        both = np.concatenate([theta[..., 0, :].reshape(n_draws, p), theta[..., 1, :].reshape(n_draws, p)])
        w_tail = jnp.asarray(np.tile(wt.reshape(n_draws, -1), (2, 1)))
        lt = np.asarray(_losses(jnp.asarray(both), x, y1h, w_tail, tcfg.mu))
        lt_opt, lt_head = lt[:n_draws].reshape(shape), lt[n_draws:].reshape(shape)
        dist = np.linalg.norm(theta[..., 0, :] - theta[..., 1, :], axis=-1)
        from jaxpapers.cltr.theory import neighborhood_bound

        return {
            "class_if": np.asarray(tcfg.class_ifs, np.float64),
            "profiles": tuple(tcfg.profiles),
            "if_part": if_part,
            "dist": dist,
            "bound": neighborhood_bound(tcfg.mu, 1.0 / if_part, lt_head, lt_opt),
            "grad_norm": np.asarray(gnorm_u)[inverse.reshape(-1)].reshape(*shape, 2),
            "unique_solves": int(len(uniq)),
        }

    return memo.shared("cltr/subsample_sweep", dcfg, tcfg, fn=run)


def replace(cfg, **kw):
    """``dataclasses.replace`` (a short alias used by the experiments)."""
    return dataclasses.replace(cfg, **kw)
