"""Claims C1, C2, C4: Theorem A's radius law and Theorem B's upper bound on LT-digits (float64, exact minimizers).

* C1 (:func:`measure_radius`): Tail weighted by ``r = 1/IF_part``; ``dist = ||theta* - theta_H*||`` against
  Theorem A's bound, its log-log slope over ``IF_part`` in ``[10, 1000]``, and the linear-response ratio.
  The axis is ``IF_part`` (= ``n_H/n_T``).
* C2 (:func:`measure_subsample`): real LDAM subsampling, step and exponential profiles; the step-profile
  slope is taken against the class IF (the spec's criterion), the exponential slopes against ``IF_part``
  and class IF are reported (pre-asymptotic).
* C4 (:func:`measure_cl_bound`): ``L_H(theta) - L_H(theta_H*) <= (beta/2)||theta - theta_H*||^2`` with the
  global ``beta = lambda_max(X_H^T X_H/n_H)/2 + mu`` at random, Hessian-eigen and ``l2_anchor``-trajectory
  points; tightness along the top eigen-directions; the local beta from power iteration (report).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.cltr import figures, studies
from jaxpapers.cltr.config import DigitsConfig, TheoryConfig
from jaxpapers.cltr.solvers import logreg_grad, logreg_loss, single_thread_blas
from jaxpapers.cltr.theory import global_beta, loglog_slope, smoothness_constant
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass


def _cfgs(cfg: ml_collections.ConfigDict) -> tuple[DigitsConfig, TheoryConfig]:
    return to_dataclass(DigitsConfig, cfg.digits), to_dataclass(TheoryConfig, cfg.theory)


def measure_radius(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """C1: ``max dist/bound``, ``slope`` of log dist on log IF_part over ``theory.slope_window`` and the
    linear-response ratios ``dist / (r ||H_H^{-1} grad L_T(theta_H*)||)`` at ``IF_part >= lr_min_if_part``."""
    del key
    dcfg, tcfg = _cfgs(cfg)
    r = studies.radius_sweep(dcfg, tcfg)
    ratio = r["dist"] / r["bound"]
    lr_ratio = r["dist"] / r["linear_response"]
    big = r["if_part"] >= tcfg.lr_min_if_part
    windows = {f"slope_{int(a)}_{int(b)}": (a, b) for a, b in ((1, 10), (10, 100), (100, 1000))}
    return Measurement(
        measured={
            "bound_violations": int(np.sum(r["dist"] > r["bound"] * (1 + 1e-9))),
            "max_dist_over_bound": float(ratio.max()),
            "slope": loglog_slope(r["if_part"], r["dist"], tcfg.slope_window),
            "lr_ratio_min": float(lr_ratio[big].min()) if big.any() else float("nan"),
            "lr_ratio_max": float(lr_ratio[big].max()) if big.any() else float("nan"),
        },
        predicted={"slope": -0.5},
        n=len(r["if_part"]),
        details={
            "axis": "IF_part = n_H/n_T (Tail weighted by r = 1/IF_part)",
            "if_part": r["if_part"].tolist(),
            "dist": r["dist"].tolist(),
            "bound": r["bound"].tolist(),
            "bound_fixed_numerator_slope": loglog_slope(r["if_part"], r["bound_fixed"], tcfg.slope_window),
            "lr_ratio": lr_ratio.tolist(),
            "max_grad_norm": float(r["grad_norm"].max()),
            **{
                k: loglog_slope(r["if_part"], r["dist"], w)
                for k, w in windows.items()
                if np.sum((r["if_part"] >= w[0]) & (r["if_part"] <= w[1])) >= 2
            },
        },
        figures={"radius": figures.radius_law(r["if_part"], r["dist"], r["bound"], r["linear_response"])},
        captions={"radius": figures.RADIUS_CAPTION},
    )


def measure_subsample(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """C2: bound violations over every seed/profile/IF, the step-profile slope vs class IF per seed (max over
    seeds is judged) and, reported, the exponential-profile slopes vs IF_part and vs class IF."""
    del key
    dcfg, tcfg = _cfgs(cfg)
    s = studies.subsample_sweep(dcfg, tcfg)
    profiles = list(s["profiles"])
    out = {}
    for p, name in enumerate(profiles):
        out[f"{name}_slope_vs_class_if"] = [loglog_slope(s["class_if"], s["dist"][k, p]) for k in range(tcfg.seeds)]
        out[f"{name}_slope_vs_if_part"] = [loglog_slope(s["if_part"][k, p], s["dist"][k, p]) for k in range(tcfg.seeds)]
    measured = {
        "bound_violations": int(np.sum(s["dist"] > s["bound"] * (1 + 1e-9))),
        "max_dist_over_bound": float((s["dist"] / s["bound"]).max()),
    }
    if "step" in profiles:
        measured["step_slope_worst_seed"] = float(max(out["step_slope_vs_class_if"]))
    if "exp" in profiles:
        measured["exp_slope_vs_if_part_mean"] = float(np.mean(out["exp_slope_vs_if_part"]))
    return Measurement(
        measured=measured,
        n=int(s["dist"].size),
        details={
            "axis": "step: class IF (IF_part = IF up to floors); exp: IF_part and class IF, reported",
            "class_if": s["class_if"].tolist(),
            "if_part": s["if_part"].tolist(),
            "dist": s["dist"].tolist(),
            "max_dist_over_bound_per_profile": {
                n: float((s["dist"][:, p] / s["bound"][:, p]).max()) for p, n in enumerate(profiles)
            },
            "max_grad_norm": float(s["grad_norm"].max()),
            "unique_solves": s["unique_solves"],
            **out,
        },
        figures={"subsample": figures.subsample_law(s["if_part"], s["dist"], s["bound"], profiles)},
        captions={"subsample": figures.SUBSAMPLE_CAPTION},
    )


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def cl_bound_points(
    theta_h: np.ndarray, hess_h: np.ndarray, tcfg: TheoryConfig, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The C4 probe points ``theta_H* + t u`` as ``(points [M, P], is_random [M])``: ``directions`` random unit
    ``u`` with ``log t ~ U[log t_lo, log t_hi]``, then the top ``eig_directions`` Hessian eigenvectors and
    ``-theta_H*/||theta_H*||`` at ``t in eig_ts + (||theta_H*||,)``."""
    rng = np.random.default_rng(seed)
    p = theta_h.size
    u = _unit(rng.normal(size=(tcfg.directions, p)))
    t = np.exp(rng.uniform(np.log(tcfg.t_range[0]), np.log(tcfg.t_range[1]), tcfg.directions))
    with single_thread_blas():
        _, vecs = np.linalg.eigh(hess_h)
    eig = [vecs[:, -1 - k] for k in range(tcfg.eig_directions)] + [-theta_h / np.linalg.norm(theta_h)]
    ts = (*tcfg.eig_ts, float(np.linalg.norm(theta_h)))
    pts = [theta_h + ti * ui for ui in eig for ti in ts]
    points = np.concatenate([theta_h + t[:, None] * u, np.stack(pts)])
    return points, np.arange(len(points)) < tcfg.directions


def measure_cl_bound(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """C4: violations of ``L_H(theta) - L_H* <= beta/2 ||theta - theta_H*||^2`` (global beta) at every probe and
    ``l2_anchor`` trajectory point; tightness ``max [L_H(theta) - L_H*] / (beta/2 ||.||^2)`` overall and over
    random directions only; the local beta from power iteration and its ratio along the top eigenvector."""
    del key
    dcfg, tcfg = _cfgs(cfg)
    r = studies.radius_sweep(dcfg, tcfg)
    d = studies.digits(dcfg)
    head = np.isin(d.y_pool, studies.HEAD)
    x, y1h = jnp.asarray(d.x_pool), jnp.asarray(np.eye(studies.NUM_CLASSES)[d.y_pool])
    wh = jnp.asarray(head / head.sum())
    wt = jnp.asarray(~head / (~head).sum())
    mu = tcfg.mu
    beta = global_beta(d.x_pool[head], mu)
    theta_h = r["theta_head"]
    points, is_random = cl_bound_points(theta_h, r["hess_head"], tcfg, cfg.seed)

    # The l2_anchor Tail stage (Theorem B with lambda = beta): gradient descent on L_T + beta/2 ||theta - theta_H*||^2.
    lr = 1.0 / (2.0 * beta + mu)

    def anchor_step(th, _):
        g = logreg_grad(th, x, y1h, wt, mu) + beta * (th - theta_h)
        nxt = th - lr * g
        return nxt, nxt

    @jax.jit
    def evaluate(pts, th0):
        _, traj = jax.lax.scan(anchor_step, th0, length=tcfg.anchor_steps)
        allp = jnp.concatenate([pts, traj])
        lh = jax.vmap(lambda t: logreg_loss(t, x, y1h, wh, mu))(jnp.concatenate([th0[None], allp]))
        return allp, lh[1:], lh[0]

    with single_thread_blas():
        allp, lh, lh_star = evaluate(jnp.asarray(points), jnp.asarray(theta_h))
        lh_star = float(lh_star)
        lam_local, _ = smoothness_constant(
            logreg_loss, jnp.asarray(theta_h), x, y1h, wh, jnp.asarray(mu), iters=tcfg.power_iters
        )
    allp, lh = np.asarray(allp), np.asarray(lh)
    sq = np.sum((allp - theta_h) ** 2, axis=1)
    gap = lh - lh_star
    ratio = gap / (0.5 * beta * sq)
    n_probe = len(points)
    top = n_probe - (tcfg.eig_directions + 1) * (len(tcfg.eig_ts) + 1)  # first top-eigenvector point
    t1 = top + list(tcfg.eig_ts).index(1.0) if 1.0 in tcfg.eig_ts else top
    slack = 0.5 * beta * sq - gap
    return Measurement(
        measured={
            "violations": int(np.sum(gap > 0.5 * beta * sq * (1 + 1e-12) + 1e-14)),
            "tightness": float(ratio.max()),
        },
        n=len(allp),
        details={
            "beta_global": beta,
            "beta_local_power_iteration": float(lam_local),
            "tightness_random_directions": float(ratio[:n_probe][is_random].max()),
            "tightness_eigen_directions": float(ratio[:n_probe][~is_random].max()),
            "tightness_trajectory": float(ratio[n_probe:].max()),
            "median_slack": float(np.median(slack)),
            "local_beta_ratio_top_eig_t1": float(gap[t1] / (0.5 * lam_local * sq[t1])),
            "points": {
                "random": int(is_random.sum()),
                "eigen": int((~is_random).sum()),
                "trajectory": tcfg.anchor_steps,
            },
        },
        figures={"cl_bound": figures.cl_bound(np.sqrt(sq), gap, beta, float(lam_local), n_probe, is_random)},
        captions={"cl_bound": figures.CL_BOUND_CAPTION},
    )
