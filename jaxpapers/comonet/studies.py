"""The two studies several claims share, each memoised on its config and key (``core.memo.shared``).

* The certification study (CO1 and CO2): one COMONet and one MLP trained identically, random inits
  of every activation variant, the identity-exp mutant; everything certified in float64.
* The synthetic study (CO4, CO5 and CO6): one vmapped training run per model over every (noise,
  seed) trial, then :func:`evaluate_trials` — RMSEs, pointwise shape checks at test and out-of-range
  points, the convexity tangent bound.

``jaxpapers verify comonet`` runs each study once; a claim run alone runs it itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.comonet import data as data_lib
from jaxpapers.comonet.baselines import MLP
from jaxpapers.comonet.certify import certify, certify_batch, pointwise_violations
from jaxpapers.comonet.config import (
    AccuracyTrials,
    CertConfig,
    CertModelConfig,
    CheckConfig,
    ModelConfig,
    RobustnessTrials,
    SyntheticDataConfig,
)
from jaxpapers.comonet.model import COMONet, count_params, random_params
from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.comonet.train import build_model, make_trial_trainer, trial_data
from jaxpapers.core import memo, sim
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.train import LoopConfig, OptimConfig, make_optimizer


def _apply_fn(model) -> Callable[[Any, jax.Array], jax.Array]:
    """``(params, x) -> model output``, the form the certifier takes."""
    return lambda p, x: model.apply({"params": p}, x)


def _stack(*trees: Any) -> Any:
    return jax.tree.map(lambda *xs: np.concatenate([np.asarray(x) for x in xs], axis=0), *trees)


def _rmse(model, params: Any, data: dict[str, np.ndarray]) -> float:
    pred = np.asarray(model.apply({"params": params}, jnp.asarray(data["x"])))[:, 0]
    return float(np.sqrt(np.mean((pred - data["y"]) ** 2)))


# ==================================================================================================
# CO1 / CO2: the certification study
# ==================================================================================================


def _train_one(model, data: dict[str, np.ndarray], cfg: ml_collections.ConfigDict, key: jax.Array) -> Any:
    """One model trained by the shared scan trainer (a grid of one trial)."""
    loop = to_dataclass(LoopConfig, cfg.train)
    tx = make_optimizer(to_dataclass(OptimConfig, cfg.optim), loop.steps)
    run = make_trial_trainer(model, tx, steps=loop.steps, batch_size=loop.batch_size)
    result = run(key[None], trial_data(data["x"][None], data["y"][None]))
    return jax.tree.map(lambda a: a[0], result.params)


def trained_models(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """The COMONet trained for CO1/CO2 and the training data the MLP control uses (memoised)."""

    def run() -> dict[str, Any]:
        m = to_dataclass(CertModelConfig, cfg.model)
        train_data = data_lib.synthetic_nine(cfg.data.n_train, noise=cfg.data.noise, seed=cfg.seed)
        comonet = COMONet(data_lib.NINE_REGIMES, hidden=m.hidden, depth=m.depth, act=m.trained_act)
        params = _train_one(comonet, train_data, cfg, jax.random.fold_in(key, 0))
        return {
            "comonet": params,
            "train_rmse_comonet": _rmse(comonet, params, train_data),
            "n_params_comonet": count_params(params),
            "train_data": train_data,
        }

    return memo.shared("comonet/trained", cfg, key, fn=run)


def _parameter_sets(cfg: ml_collections.ConfigDict, key: jax.Array, act: str, trained: Any) -> tuple[Any, Any]:
    """(model, stacked params): ``n_inits`` random raw params ~ N(0, scale²), plus the trained model's."""
    m = to_dataclass(CertModelConfig, cfg.model)
    model = COMONet(data_lib.NINE_REGIMES, hidden=m.hidden, depth=m.depth, act=act)
    template = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, 9)))["params"]  # shapes only
    stacked = random_params(template, jax.random.fold_in(key, list(m.acts).index(act)), cfg.n_inits, cfg.init_scale)
    if act == m.trained_act:
        stacked = _stack(stacked, jax.tree.map(lambda a: a[None], trained))
    return model, stacked


def _cert_kwargs(cfg: ml_collections.ConfigDict) -> dict[str, Any]:
    c = to_dataclass(CertConfig, cfg.cert)
    return dict(box=c.box, n_random=c.n_random, n_adv=c.n_adv, adv_steps=c.adv_steps, h=c.h)


def certification_study(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """CO1: every activation variant certified on random inits, the trained variant on the trained model too."""

    def run() -> dict[str, Any]:
        spec, kw = parse_regimes(data_lib.NINE_REGIMES), _cert_kwargs(cfg)
        trained = trained_models(cfg, key)
        reports = {}
        for i, act in enumerate(to_dataclass(CertModelConfig, cfg.model).acts):
            model, stacked = _parameter_sets(cfg, jax.random.fold_in(key, 1), act, trained["comonet"])
            k = jax.random.fold_in(jax.random.fold_in(key, 2), i)
            reports[act] = certify_batch(_apply_fn(model), stacked, spec, k, hessian=act == "softplus", **kw)
        return {"reports": reports, "train_rmse": trained["train_rmse_comonet"]}

    return memo.shared("comonet/certification", cfg, key, fn=run)


def control_study(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """CO2's controls, certified exactly like COMONet: (a) an MLP trained like the COMONet (ReLU: no
    Hessian check); (b) the identity-exp mutant on the trained variant's parameter sets."""

    def run() -> dict[str, Any]:
        spec, kw = parse_regimes(data_lib.NINE_REGIMES), _cert_kwargs(cfg)
        m = to_dataclass(CertModelConfig, cfg.model)
        trained = trained_models(cfg, key)
        mlp = MLP(tuple(m.mlp_hidden))
        mlp_params = _train_one(mlp, trained["train_data"], cfg, jax.random.fold_in(key, 0))
        k_ctrl = jax.random.fold_in(key, 3)
        out = {"mlp": certify(_apply_fn(mlp), mlp_params, spec, jax.random.fold_in(k_ctrl, 0), hessian=False, **kw)}
        _, stacked = _parameter_sets(cfg, jax.random.fold_in(key, 1), m.trained_act, trained["comonet"])
        mutant = COMONet(
            data_lib.NINE_REGIMES, hidden=m.hidden, depth=m.depth, act=m.trained_act, control="convex_identity"
        )
        out["mutant"] = certify_batch(
            _apply_fn(mutant), stacked, spec, jax.random.fold_in(k_ctrl, 1), hessian=m.trained_act == "softplus", **kw
        )
        out["mlp_train_rmse"] = _rmse(mlp, mlp_params, trained["train_data"])
        return out

    return memo.shared("comonet/controls", cfg, key, fn=run)


# ==================================================================================================
# CO4 / CO5 / CO6: the synthetic nine-regime study
# ==================================================================================================


def synthetic_trials(cfg: ml_collections.ConfigDict) -> list[tuple[float, int]]:
    """(noise fraction, seed) per trial: the CO4 seeds at ``accuracy.noise``, then CO5's grid."""
    acc, rob = to_dataclass(AccuracyTrials, cfg.accuracy), to_dataclass(RobustnessTrials, cfg.robustness)
    return [(float(acc.noise), s) for s in range(acc.seeds)] + [
        (float(nz), s) for nz in rob.noises for s in range(rob.seeds)
    ]


def _study_models(cfg: ml_collections.ConfigDict) -> list[str]:
    """Models of the synthetic study, in order (COMONet and the MLP are on every trial)."""
    return list(dict.fromkeys([*cfg.accuracy.models, *cfg.robustness.models]))


def _model_trials(cfg: ml_collections.ConfigDict, kind: str) -> np.ndarray:
    """Trial rows a model is trained on: CO4's if listed in ``accuracy.models``, CO5's if in ``robustness.models``."""
    n4, n = cfg.accuracy.seeds, len(synthetic_trials(cfg))
    rows = (list(range(n4)) if kind in cfg.accuracy.models else []) + (
        list(range(n4, n)) if kind in cfg.robustness.models else []
    )
    return np.asarray(rows, np.int32)


def trial_index(cfg: ml_collections.ConfigDict, group: str, noise: float | None = None) -> np.ndarray:
    """Trials of CO4 (``group="accuracy"``) or of CO5 at one noise level (``"robustness"``, ``noise``)."""
    n4 = cfg.accuracy.seeds
    if group == "accuracy":
        return np.arange(n4)
    trials = synthetic_trials(cfg)
    return np.asarray([i for i, (nz, _) in enumerate(trials) if i >= n4 and np.isclose(nz, noise)])


def synthetic_study(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """Trains each model on its (noise, seed) trials (:func:`_model_trials`), one vmapped run per model,
    and evaluates every trained model with :func:`evaluate_trials` (memoised)."""
    return memo.shared("comonet/synthetic", cfg, key, fn=lambda: _synthetic_study(cfg, key))


def out_of_range_points(d: SyntheticDataConfig, seed: int) -> dict[str, np.ndarray]:
    """CO6's points: ``x_out`` ~ U[extrap_box]^9 (every coordinate out of range), and per variable j
    ``x_var[j]`` with only x_j ~ U[extrap_box], the others ~ U[-1, 1]; with the noiseless f."""
    rng = np.random.default_rng(seed)
    lo, hi = d.extrap_box
    x_out = rng.uniform(lo, hi, size=(d.n_extrap, 9)).astype(np.float32)
    x_var = rng.uniform(-1.0, 1.0, size=(9, d.n_extrap, 9)).astype(np.float32)
    for j in range(9):
        x_var[j, :, j] = rng.uniform(lo, hi, size=d.n_extrap)
    f_var = data_lib.nine_regime_function(x_var.reshape(-1, 9)).reshape(9, d.n_extrap).astype(np.float32)
    return {
        "x_out": x_out,
        "f_out": data_lib.nine_regime_function(x_out).astype(np.float32),
        "x_var": x_var,
        "f_var": f_var,
    }


def _synthetic_study(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    spec = parse_regimes(data_lib.NINE_REGIMES)
    trials = synthetic_trials(cfg)
    d = to_dataclass(SyntheticDataConfig, cfg.data)
    check = to_dataclass(CheckConfig, cfg.check)
    train_sets, test_sets = [], []
    for t, (noise, seed) in enumerate(trials):
        base = 10_000 * (cfg.seed + 1) + 100 * t + seed
        train_sets.append(data_lib.synthetic_nine(d.n_train, noise=noise, seed=base))
        test_sets.append(data_lib.synthetic_nine(d.n_test, noise=noise, seed=base + 50))
    x_tr = np.stack([s["x"] for s in train_sets])
    y_tr = np.stack([s["y"] for s in train_sets])
    x_te = np.stack([s["x"] for s in test_sets])
    y_te = np.stack([s["y"] for s in test_sets])
    f_te = np.stack([s["f"] for s in test_sets])
    out = out_of_range_points(d, cfg.seed + 7)
    x_chk = x_te[:, : check.n_points]

    keys = jax.random.split(key, len(trials))
    loop = to_dataclass(LoopConfig, cfg.train)
    tx = make_optimizer(to_dataclass(OptimConfig, cfg.optim), loop.steps)
    mc = to_dataclass(ModelConfig, cfg.model)
    rows = {kind: _model_trials(cfg, kind) for kind in _study_models(cfg)}
    params, losses = {}, {}
    for kind, idx in rows.items():
        model = build_model(dataclasses.replace(mc, kind=kind), spec)
        run = make_trial_trainer(model, tx, steps=loop.steps, batch_size=loop.batch_size)
        result = run(keys[idx], trial_data(x_tr[idx], y_tr[idx]))
        params[kind], losses[kind] = result.params, np.asarray(result.losses)

    # Evaluation: MLP and PenaltyMLP share a module (and one compiled evaluation). Metrics are arrays
    # over all trials, NaN where a model was not trained on that trial.
    families = {"comonet": [k for k in rows if k == "comonet"], "mlp": [k for k in rows if k != "comonet"]}
    metrics: dict[str, dict[str, np.ndarray]] = {}
    for family, kinds in families.items():
        if not kinds:
            continue
        idx = np.concatenate([rows[k] for k in kinds])
        ev = evaluate_trials(
            build_model(dataclasses.replace(mc, kind=family), spec),
            _stack(*(params[k] for k in kinds)),
            spec,
            {"x": x_te[idx], "y": y_te[idx], "f": f_te[idx], "x_check": x_chk[idx]},
            out,
            h=check.h,
            rtol=check.rtol,
            tangent_var=check.tangent_var,
            tangent_step=check.tangent_step,
        )
        start = 0
        for kind in kinds:
            n = len(rows[kind])
            metrics[kind] = {}
            for name, values in ev.items():
                full = np.full((len(trials), *values.shape[1:]), np.nan)
                full[rows[kind]] = values[start : start + n]
                metrics[kind][name] = full
            start += n
    return {
        "trials": trials,
        "rows": rows,
        "params": params,
        "losses": losses,
        "metrics": metrics,
        "x_test": x_te,
        "x_out": out["x_out"],
        "noise_std": np.asarray([float(s["noise_std"]) for s in train_sets]),
        "f_std": float(np.std(np.concatenate([s["f"] for s in train_sets]))),
        "n_check": int(x_chk.shape[1]),
        "n_out": int(out["x_out"].shape[0]),
    }


def evaluate_trials(
    model,
    params: Any,
    spec: GroupSpec,
    test: dict[str, ArrayLike],
    out: dict[str, ArrayLike],
    *,
    h: float,
    rtol: float,
    tangent_var: int,
    tangent_step: float,
) -> dict[str, np.ndarray]:
    """Per-trial metrics of models stacked on a leading trial axis T, as NumPy arrays ``[T, ...]``.

    ``test``: per-trial ``x [T, n, 9]``, noisy labels ``y [T, n]``, noiseless ``f [T, n]`` and
    ``x_check [T, p, 9]``; ``out`` (shared by all trials): :func:`out_of_range_points`.

    * float32: ``rmse`` (vs y), ``rmse_clean`` (vs f), ``rmse_out`` (vs f on ``x_out``) and
      ``rmse_out_by_variable [T, 9]`` (vs f on ``x_var[j]``).
    * float64, the certifier's pointwise checks at step ``h``, a point violating when any check
      exceeds ``rtol · (1 + max|f|)`` (max over the points of that set): ``violating_points`` at
      ``x_check``, ``violating_points_out`` at ``x_out``.
    * float64, the convexity tangent bound along ``e = e_{tangent_var}`` at ``x_out``: the gap
      ``y(x) + s ∂_e y(x) − y(x + s e)`` (> 0 breaks it) — ``tangent_violations`` (gap above
      ``rtol · (1 + max|y|)``) and ``tangent_worst_gap``.
    """
    rmse = lambda a, b: jnp.sqrt(jnp.mean((a - b) ** 2))
    x_out, f_out = jnp.asarray(out["x_out"]), jnp.asarray(out["f_out"])
    x_var, f_var = jnp.asarray(out["x_var"]), jnp.asarray(out["f_var"])

    def accuracy(p, xt, yt, ft):
        f = lambda z: model.apply({"params": p}, z)[:, 0]
        pred = f(xt)
        return {
            "rmse": rmse(pred, yt),
            "rmse_clean": rmse(pred, ft),
            "rmse_out": rmse(f(x_out), f_out),
            "rmse_out_by_variable": jnp.sqrt(jnp.mean((f(x_var.reshape(-1, 9)).reshape(f_var.shape) - f_var) ** 2, 1)),
        }

    acc = jax.jit(jax.vmap(accuracy), compiler_options=sim.fast_compile_options(level=1))(
        params, *(jnp.asarray(test[k]) for k in ("x", "y", "f"))
    )
    result = {k: np.asarray(v) for k, v in acc.items()}

    with jax.enable_x64(True):
        p64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        xo = jnp.asarray(out["x_out"], jnp.float64)
        e = jnp.asarray(np.eye(xo.shape[1])[tangent_var], xo.dtype)

        def violating(f, x):
            viol, fmax = pointwise_violations(f, x, spec, (h,), chunk_size=None)
            return jnp.sum(jnp.any(viol > rtol * (1.0 + jnp.max(fmax)), axis=(1, 2)))

        def shapes(p, xc):
            f = lambda z: model.apply({"params": p}, z)[:, 0]
            y0, slope = jax.jvp(f, (xo,), (jnp.broadcast_to(e, xo.shape),))
            y1 = f(xo + tangent_step * e)
            gap = y0 + tangent_step * slope - y1
            scale = 1.0 + jnp.maximum(jnp.max(jnp.abs(y0)), jnp.max(jnp.abs(y1)))
            return {
                "violating_points": violating(f, xc),
                "violating_points_out": violating(f, xo),
                "tangent_violations": jnp.sum(gap > rtol * scale),
                "tangent_worst_gap": jnp.max(gap),
            }

        sh = jax.jit(lambda a, b: sim.vmap_chunked(shapes, a, b), compiler_options=sim.fast_compile_options(level=1))(
            p64, jnp.asarray(test["x_check"], jnp.float64)
        )
        result.update({k: np.asarray(v) for k, v in jax.device_get(sh).items()})
    return result
