"""Claims C3, C5a, C5b: MLPs on LT-digits, trained by the generic weighted loss of :mod:`jaxpapers.cltr.cltr`.

* C3 (:func:`measure_nonconvex`): an MLP from one init trained on the full LT set and on its Head only, at
  every class IF (rows of 0/1 weights in one vmapped run); Spearman(dist, IF) per seed (report).
* C5a / C5b (:func:`measure_methods`): joint baselines (ERM, logit adjustment, class-balanced) against
  Head-then-Tail training (Head-only stage, then FT / replay / LwF / EWC / l2_anchor). Joint methods run
  ``joint_steps = 2 * stage_steps`` as two continued halves, so every method and seed shares one compiled
  stage program: round 1 = joint first half + Head stage, round 2 = joint second half + Tail stages.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from scipy.stats import spearmanr

from jaxpapers.cltr import cltr, figures, studies
from jaxpapers.cltr.config import CLConfig, DigitsConfig, NetConfig
from jaxpapers.cltr.data.lt import lt_counts, make_long_tailed
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError

C = studies.NUM_CLASSES
JOINT = ("erm", "la", "cb")
STAGED = ("ft", "replay", "lwf", "ewc", "l2_anchor")


def _accuracies(pred: np.ndarray, y_test: np.ndarray) -> dict[str, np.ndarray]:
    head = np.isin(y_test, studies.HEAD)
    ok = pred == y_test[None]
    return {"balanced": ok.mean(-1), "head": ok[..., head].mean(-1), "tail": ok[..., ~head].mean(-1)}


def run_methods(dcfg: DigitsConfig, ccfg: CLConfig) -> dict:
    """Test accuracies ``{method: {"balanced"|"head"|"tail": [seeds]}}`` of every method in ``ccfg.methods``
    plus the Head-only model (``"head"``), over seeds ``first_seed ..``; see the module docstring."""
    if ccfg.joint_steps != 2 * ccfg.stage_steps:
        raise ConfigError(
            f"cl.joint_steps={ccfg.joint_steps} must equal 2 * cl.stage_steps={2 * ccfg.stage_steps} "
            "(joint runs are two continued halves of the stage program)"
        )
    d = studies.digits(dcfg)
    x = jnp.asarray(d.x_pool, jnp.float32)
    y = jnp.asarray(d.y_pool, jnp.int32)
    n, dim = x.shape
    p = sum(int(np.prod(s)) for s in cltr.mlp_shapes(dim, ccfg.hidden, C))
    counts = lt_counts(C, dcfg.n_pool, ccfg.imbalance, ccfg.profile)
    prior = counts / counts.sum()
    joint = [m for m in JOINT if m in ccfg.methods]
    staged = [m for m in STAGED if m in ccfg.methods]
    r1 = joint + ["head"]
    r2 = joint + staged
    k = max(len(r1), len(r2))
    seeds = list(range(ccfg.first_seed, ccfg.first_seed + ccfg.seeds))
    kw = dict(
        hidden=ccfg.hidden,
        c=C,
        mu=ccfg.mu,
        temperature=ccfg.lwf_temperature,
        lr=ccfg.lr,
        weight_decay=ccfg.weight_decay,
    )
    is_head = np.isin(d.y_pool, studies.HEAD)

    masks, specs1 = [], []
    for s in seeds:
        sel = np.zeros(n, bool)
        sel[make_long_tailed(d.y_pool, counts, s)] = True
        rs = np.random.RandomState(10_000 + s)
        replay = np.zeros(n, bool)
        for c in studies.HEAD:
            idx = np.flatnonzero(sel & (d.y_pool == c))
            replay[rs.choice(idx, min(ccfg.replay_per_class, len(idx)), replace=False)] = True
        masks.append((sel, sel & is_head, sel & ~is_head, replay))
        eff = (1.0 - ccfg.cb_beta) / (1.0 - ccfg.cb_beta ** counts[d.y_pool])
        rows = {
            "erm": cltr.make_spec(n, C, p, sel / sel.sum()),
            "la": cltr.make_spec(n, C, p, sel / sel.sum(), offset=ccfg.la_tau * np.log(prior)),
            "cb": cltr.make_spec(n, C, p, sel * eff / np.sum(sel * eff)),
            "head": cltr.make_spec(n, C, p, (sel & is_head) / np.sum(sel & is_head)),
        }
        specs1 += [rows[m] for m in r1] + [rows["head"]] * (k - len(r1))
    # Every row trains on its selected samples only (the LT subset, or a part of it), padded to one size so that
    # both rounds share one compiled program: the same loss and gradient as 0/1 weights over the pool.
    size = max(int(m[0].sum()) for m in masks)
    theta0 = jnp.stack([cltr.mlp_init(jax.random.key(s), dim, ccfg.hidden, C) for s in seeds for _ in range(k)])
    st0 = cltr.init_opt_state(theta0, ccfg.lr, ccfg.weight_decay)
    sp1, x1, y1 = cltr.gather_selected(cltr.stack(specs1), x, y, size)
    theta1, st1 = cltr.train_stage(theta0, st0, sp1, x1, y1, steps=ccfg.stage_steps, **kw)
    theta1 = np.asarray(theta1).reshape(len(seeds), k, p)
    head_theta = theta1[:, len(joint)]

    specs2 = []
    fisher_trace, emp_trace = [], []
    teacher = np.asarray(jax.vmap(lambda t: cltr.mlp_apply(t, x, ccfg.hidden, C))(jnp.asarray(head_theta)))
    for j in range(len(seeds)):
        sel, hsel, tsel, replay = masks[j]
        anchor = head_theta[j]
        rows = {m: None for m in joint}
        if "ewc" in staged:
            f = np.asarray(cltr.true_fisher(jnp.asarray(anchor), x[hsel], hidden=ccfg.hidden, c=C))
            fe = np.asarray(cltr.empirical_fisher(jnp.asarray(anchor), x[hsel], y[hsel], hidden=ccfg.hidden, c=C))
            fisher_trace.append(float(f.sum()))
            emp_trace.append(float(fe.sum()))
        tw = tsel / tsel.sum()
        rw = (tsel | replay) / np.sum(tsel | replay)
        staged_rows = {
            "ft": cltr.make_spec(n, C, p, tw),
            "replay": cltr.make_spec(n, C, p, rw),
            "lwf": cltr.make_spec(n, C, p, tw, alpha=ccfg.lwf_alpha, q=teacher[j]),
            "ewc": cltr.make_spec(
                n, C, p, tw, anchor=anchor, fisher=f if "ewc" in staged else np.zeros(p), lam=ccfg.ewc_lambda
            ),
            "l2_anchor": cltr.make_spec(n, C, p, tw, anchor=anchor, fisher=np.ones(p), lam=ccfg.l2_lambda),
        }
        joint_specs = [specs1[j * k + i] for i in range(len(joint))]
        row = joint_specs + [staged_rows[m] for m in staged]
        specs2 += row + [staged_rows["ft"]] * (k - len(row))
    theta2_init = np.concatenate(
        [
            np.concatenate([theta1[j, : len(joint)], np.repeat(head_theta[j][None], k - len(joint), 0)])
            for j in range(len(seeds))
        ]
    )
    fresh = cltr.init_opt_state(jnp.asarray(theta2_init), ccfg.lr, ccfg.weight_decay)
    keep = np.tile(np.arange(k) < len(joint), len(seeds))
    st2 = jax.tree.map(
        lambda a, b: jnp.where(keep.reshape((-1,) + (1,) * (a.ndim - 1)), a, b) if a.ndim else b, st1, fresh
    )
    sp2, x2, y2 = cltr.gather_selected(cltr.stack(specs2), x, y, size)
    theta2, _ = cltr.train_stage(jnp.asarray(theta2_init), st2, sp2, x2, y2, steps=ccfg.stage_steps, **kw)
    xt = jnp.asarray(d.x_test, jnp.float32)
    pred1 = np.asarray(cltr.predict(jnp.asarray(theta1.reshape(-1, p)), xt, hidden=ccfg.hidden, c=C))
    pred2 = np.asarray(cltr.predict(theta2, xt, hidden=ccfg.hidden, c=C))
    acc1 = _accuracies(pred1.reshape(len(seeds), k, -1), d.y_test)
    acc2 = _accuracies(pred2.reshape(len(seeds), k, -1), d.y_test)
    out = {m: {key: v[:, i] for key, v in acc2.items()} for i, m in enumerate(r2)}
    out["head"] = {key: v[:, len(joint)] for key, v in acc1.items()}
    for m in staged:
        out[m]["forgetting"] = out["head"]["head"] - out[m]["head"]
    extra = {"true_fisher_trace": fisher_trace, "empirical_fisher_trace": emp_trace, "counts": counts.tolist()}
    return {"acc": out, "extra": extra}


def _cfgs(cfg):
    return to_dataclass(DigitsConfig, cfg.digits), to_dataclass(CLConfig, cfg.cl)


def measure_methods(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """C5a/C5b: balanced/Head/Tail accuracy per method; ``gain_*`` = replay - ERM (balanced) per seed,
    ``tail_gain_mean``, replay ``forgetting_mean`` (Head acc after stage 1 - after stage 2) and the largest
    FT Head accuracy over seeds; LA beside them."""
    del key
    dcfg, ccfg = _cfgs(cfg)
    res = run_methods(dcfg, ccfg)
    acc = res["acc"]
    measured = {}
    details = {m: {k: np.asarray(v).round(4).tolist() for k, v in a.items()} for m, a in acc.items()}
    if "replay" in acc:
        gain = acc["replay"]["balanced"] - acc["erm"]["balanced"]
        measured.update(
            gain_mean=float(gain.mean()),
            gain_min=float(gain.min()),
            tail_gain_mean=float((acc["replay"]["tail"] - acc["erm"]["tail"]).mean()),
            forgetting_mean=float(acc["replay"]["forgetting"].mean()),
        )
        details["gain_std"] = float(gain.std(ddof=1)) if len(gain) > 1 else 0.0
    if "ft" in acc:
        measured["ft_head_acc_max"] = float(acc["ft"]["head"].max())
    if "la" in acc:
        measured["la_balanced_mean"] = float(acc["la"]["balanced"].mean())
        if "replay" in acc:
            details["la_minus_replay_per_seed"] = (acc["la"]["balanced"] - acc["replay"]["balanced"]).round(4).tolist()
    measured["erm_balanced_mean"] = float(acc["erm"]["balanced"].mean())
    details["mean_balanced"] = {m: float(a["balanced"].mean()) for m, a in acc.items()}
    details["mean_head"] = {m: float(a["head"].mean()) for m, a in acc.items()}
    details["mean_tail"] = {m: float(a["tail"].mean()) for m, a in acc.items()}
    details["regime"] = (
        f"{ccfg.profile} IF={ccfg.imbalance:g}, mu={ccfg.mu:g} in the loss, "
        f"{'AdamW wd=' + format(ccfg.weight_decay, 'g') if ccfg.weight_decay else 'Adam'} lr={ccfg.lr:g}, "
        f"{ccfg.joint_steps}/{ccfg.stage_steps} steps, seeds {ccfg.first_seed}..{ccfg.first_seed + ccfg.seeds - 1}"
    )
    details.update(res["extra"])
    return Measurement(
        measured=measured,
        n=ccfg.seeds,
        details=details,
        figures={"methods": figures.method_accuracies(acc)},
        captions={"methods": figures.METHODS_CAPTION},
    )


def measure_nonconvex(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """C3: ``dist = ||theta_LT - theta_H||`` of an MLP trained from one init on the LT set and on its Head, per
    (seed, profile, class IF); Spearman(dist, IF) per seed and profile (predicted negative)."""
    del key
    dcfg, ncfg = to_dataclass(DigitsConfig, cfg.digits), to_dataclass(NetConfig, cfg.net)
    d = studies.digits(dcfg)
    x = jnp.asarray(d.x_pool, jnp.float32)
    y = jnp.asarray(d.y_pool, jnp.int32)
    n, dim = x.shape
    p = sum(int(np.prod(s)) for s in cltr.mlp_shapes(dim, ncfg.hidden, C))
    is_head = np.isin(d.y_pool, studies.HEAD)
    # Runs are (seed, selected subset) pairs; identical ones (the step profile keeps every Head image, so its
    # Head-only run is the same at every IF) are trained once, each on its selected samples only.
    runs, which = {}, []
    for s in range(ncfg.seeds):
        for prof in ncfg.profiles:
            for imb in ncfg.class_ifs:
                sel = np.zeros(n, bool)
                sel[make_long_tailed(d.y_pool, lt_counts(C, dcfg.n_pool, imb, prof), s)] = True
                for subset in (sel, sel & is_head):
                    which.append(runs.setdefault((s, subset.tobytes()), len(runs)))
    keys = sorted(runs, key=runs.get)
    subsets = [np.frombuffer(b, bool) for _, b in keys]
    specs = [cltr.make_spec(n, C, p, m / m.sum()) for m in subsets]
    inits = {s: cltr.mlp_init(jax.random.key(s), dim, ncfg.hidden, C) for s in range(ncfg.seeds)}
    theta0 = jnp.stack([inits[s] for s, _ in keys])
    st = cltr.init_opt_state(theta0, ncfg.lr, ncfg.weight_decay)
    sp, xs, ys = cltr.gather_selected(cltr.stack(specs), x, y)
    theta, _ = cltr.train_stage(
        theta0,
        st,
        sp,
        xs,
        ys,
        hidden=ncfg.hidden,
        c=C,
        steps=ncfg.steps,
        mu=ncfg.mu,
        temperature=1.0,
        lr=ncfg.lr,
        weight_decay=ncfg.weight_decay,
    )
    theta = np.asarray(theta)[np.asarray(which)].reshape(ncfg.seeds, len(ncfg.profiles), len(ncfg.class_ifs), 2, p)
    dist = np.linalg.norm(theta[..., 0, :] - theta[..., 1, :], axis=-1)
    rho = np.asarray(
        [
            [spearmanr(ncfg.class_ifs, dist[s, q]).statistic for q in range(len(ncfg.profiles))]
            for s in range(ncfg.seeds)
        ]
    )
    return Measurement(
        measured={"spearman_max": float(rho.max()), "spearman_mean": float(rho.mean())},
        predicted={"spearman_max": -1.0},
        n=int(rho.size),
        details={
            "spearman": {prof: rho[:, q].tolist() for q, prof in enumerate(ncfg.profiles)},
            "dist": dist.tolist(),
            "class_if": list(ncfg.class_ifs),
            "distinct_runs": len(keys),
        },
    )
