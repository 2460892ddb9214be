"""Training COMONet and its baselines with the core recipes (spec "train.py").

* :func:`build_model` — the model a :class:`~jaxpapers.comonet.config.ModelConfig` names.
* :func:`make_loss_fn` — MSE or BCE-with-logits (constraints are stated on the logit), plus the
  soft shape penalty for :class:`PenaltyMLP`; signature ``loss_fn(params, batch, key, *, train)``.
* :func:`fit` — ``core.train.train_model`` (sharded state, checkpoints, metrics, resume) with the
  optimizer of ``core.train.make_optimizer``; optional early stopping on a validation split (a hook).
* :func:`make_trial_trainer` — seed/trial grids: ``core.train.make_seed_trainer`` (one jitted vmap of
  a ``lax.scan`` of the very step ``fit`` uses) with uniform batches from each trial's valid rows.
* :func:`train` — the ``jaxpapers train --config configs/comonet/<experiment>.py`` entry point.

Optimizer: ``core.train.OptimConfig``; the claims use ``schedule="cosine"`` (decay to 0). Weight
decay, when set, should use ``decay_mask="kernels"``: it then touches normal ``kernel`` leaves only
(decay on COMONet's log-weights Ŵ would pull exp(Ŵ) towards 1, not 0).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax
from jax.sharding import Mesh
from jaxtyping import ArrayLike

from jaxpapers.comonet import data as data_lib
from jaxpapers.comonet.baselines import ICNN, MLP, SMNN, PenaltyMLP, shape_penalty
from jaxpapers.comonet.config import TASKS, EarlyStopConfig, ModelConfig
from jaxpapers.comonet.model import COMONet
from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.core import config as config_lib
from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core import sim
from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import (
    FitResult,
    LoopConfig,
    OptimConfig,
    ScanFitResult,
    TrainState,
    make_optimizer,
    make_seed_trainer,
    train_model,
    uniform_batch,
)


def build_model(mc: ModelConfig, regimes: GroupSpec | tuple[str, ...]) -> nn.Module:
    """The model ``mc.kind`` for inputs with these regimes (baselines ignore what they cannot use)."""
    spec = regimes if isinstance(regimes, GroupSpec) else parse_regimes(regimes)
    if mc.kind == "comonet":
        return COMONet(spec.regimes, hidden=mc.hidden, depth=mc.depth, act=mc.act)
    if mc.kind == "mlp":
        return MLP(hidden=tuple(mc.mlp_hidden))
    if mc.kind == "penalty_mlp":
        return PenaltyMLP(
            hidden=tuple(mc.mlp_hidden),
            regimes=spec.regimes,
            lam=mc.penalty_lam,
            h=mc.penalty_h,
            n_points=mc.penalty_points,
            box=tuple(mc.penalty_box),
        )
    if mc.kind == "smnn":
        mono = spec.group("M")
        if set(spec.regimes) - {"free", "inc", "dec"}:
            raise ConfigError("model.kind='smnn' supports only free, inc and dec regimes")
        return SMNN(mono, tuple(spec.flip[j] for j in mono), mc.hidden, mc.hidden, mc.hidden, mc.depth)
    if set(spec.regimes) - {"free", "cvx"}:
        raise ConfigError("model.kind='icnn' supports only free and cvx regimes")
    return ICNN(spec.group("C"), mc.hidden, mc.hidden, mc.depth, mc.act)


def make_loss_fn(model: nn.Module, task: str = "regression"):
    """``loss_fn(params, batch, key, *, train) -> (loss, aux)`` for ``batch = {"x": [B, d], "y": [B]}``.

    Regression: mean squared error (aux ``mse``). Binary: sigmoid cross-entropy on the logit (aux
    ``accuracy``). For a :class:`PenaltyMLP` in training, ``lam · shape_penalty`` on ``n_points``
    fresh uniform points of its box is added (aux ``penalty``).
    """
    check_choice("task", task, TASKS)

    def loss_fn(params: Any, batch: Mapping[str, jax.Array], key: jax.Array, *, train: bool):
        pred = model.apply({"params": params}, batch["x"])[:, 0]
        y = batch["y"].astype(pred.dtype)
        if task == "regression":
            loss = jnp.mean((pred - y) ** 2)
            aux = {"mse": loss}
        else:
            loss = jnp.mean(optax.sigmoid_binary_cross_entropy(pred, y))
            aux = {"accuracy": jnp.mean((pred > 0) == (y > 0.5))}
        if isinstance(model, PenaltyMLP) and train:
            lo, hi = model.box
            pts = jax.random.uniform(key, (model.n_points, batch["x"].shape[-1]), pred.dtype, lo, hi)
            f = lambda z: model.apply({"params": params}, z)[:, 0]
            penalty = shape_penalty(f, pts, model.regimes, model.h)
            loss = loss + model.lam * penalty
            aux["penalty"] = penalty
        return loss, aux

    return loss_fn


# fit's defaults: the synthetic study's settings (Adam 1e-2 cosine-decayed to 0, 1500 steps of 256).
DEFAULT_OPTIM = OptimConfig(lr=1e-2, schedule="cosine")
DEFAULT_LOOP = LoopConfig(steps=1500, batch_size=256, log_every=100)
NO_EARLY_STOP = EarlyStopConfig()


def fit(
    model: nn.Module,
    data: data_lib.TabularData | Mapping[str, Any],
    *,
    optim: OptimConfig = DEFAULT_OPTIM,
    loop: LoopConfig = DEFAULT_LOOP,
    early_stop: EarlyStopConfig = NO_EARLY_STOP,
    task: str = "regression",
    seed: int = 0,
    workdir: str | None = None,
    mesh: Mesh | None = None,
    rules: sharding_lib.Rules | None = None,
    progress: bool = False,
    model_config: Any = None,
) -> FitResult:
    """Trains ``model`` on ``data`` with ``core.train.train_model`` (the shared ``fit`` loop).

    ``data`` is a :class:`~jaxpapers.comonet.data.TabularData` or ``{"x": [n, d], "y": [n]}``; the
    grain pipeline of :func:`~jaxpapers.comonet.data.pipeline` feeds it. With
    ``early_stop.val_fraction`` set, the validation loss is logged every ``loop.eval_every`` steps;
    with ``early_stop.patience`` too, a hook stops after ``patience`` evaluations without improvement
    and the returned state holds the best parameters. ``workdir`` gives checkpoints,
    ``metrics.jsonl`` and auto-resume.
    """
    x, y = data_lib.as_arrays(data)
    if early_stop.val_fraction > 0 and loop.eval_every is None:
        raise ConfigError("early_stop.val_fraction > 0 needs train.eval_every (steps between validations)")
    val_batch = None
    if early_stop.val_fraction > 0:
        train_idx, val_idx = data_lib.split(len(x), early_stop.val_fraction, seed)
        x, y, val_batch = x[train_idx], y[train_idx], {"x": x[val_idx], "y": y[val_idx]}
    tx = make_optimizer(optim, loop.steps)
    loss_fn = make_loss_fn(model, task)
    hooks, best = [], {}
    if val_batch is not None and early_stop.patience:
        held_out = jax.tree.map(jnp.asarray, val_batch)
        val_loss = jax.jit(lambda p: loss_fn(p, held_out, jax.random.key(0), train=False)[0])
        best.update(loss=np.inf, params=None, waited=0)

        def early_stopping(step: int, s: TrainState, metrics: Any) -> bool:
            if step % loop.eval_every:
                return False
            loss = float(val_loss(s.params))
            if loss < best["loss"]:
                best.update(loss=loss, params=jax.tree.map(jnp.copy, s.params), waited=0)
            else:
                best["waited"] += 1
            return best["waited"] >= early_stop.patience

        hooks.append(early_stopping)

    result = train_model(
        lambda k: model.init(k, jnp.asarray(x[:1]))["params"],
        loss_fn,
        tx,
        data_lib.pipeline(x, y, loop.batch_size, seed=seed),
        loop=loop,
        key=jax.random.key(seed),
        workdir=workdir,
        mesh=mesh,
        rules=rules if mesh is not None else None,
        eval_batch=val_batch,
        model_config=model_config,
        hooks=hooks,
        progress=progress,
        description=type(model).__name__,
    )
    if best.get("params") is not None:
        result.state = result.state.replace(params=best["params"])
    return result


def make_trial_trainer(
    model: nn.Module,
    tx: optax.GradientTransformation,
    *,
    steps: int,
    batch_size: int,
    task: str = "regression",
    chunk_size: int | None = None,
) -> Callable[[jax.Array, Mapping[str, Any]], ScanFitResult]:
    """``run(keys [T], {"x": [T, n, d], "y": [T, n], "n_valid": [T]}) -> ScanFitResult``: one model per trial.

    ``core.train.make_seed_trainer`` with :func:`make_loss_fn`'s loss: ONE jitted computation, a vmap
    over trials of a ``lax.scan`` of ``core.train.make_train_step`` (the step :func:`fit` runs). Each
    key splits into the init, train-state and batch keys; every step draws ``batch_size`` rows
    uniformly with replacement from the trial's first ``n_valid`` rows (the rest is padding).
    """
    return make_seed_trainer(
        lambda key, d: model.init(key, d["x"][:1])["params"],
        make_loss_fn(model, task),
        tx,
        uniform_batch(batch_size, "n_valid"),
        steps=steps,
        chunk_size=chunk_size,
        compiler_options=sim.fast_compile_options(level=1),
    )


def trial_data(x: ArrayLike, y: ArrayLike, n_valid: ArrayLike | None = None) -> dict[str, jax.Array]:
    """``{"x", "y", "n_valid"}`` for :func:`make_trial_trainer` from ``x [T, n, d]``, ``y [T, n]``."""
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    if x.ndim != 3 or y.shape != x.shape[:2]:
        raise ConfigError(f"x has shape {x.shape} and y {y.shape}; expected [T, n, d] and [T, n]")
    n = np.full((x.shape[0],), x.shape[1], np.int32) if n_valid is None else np.asarray(n_valid, np.int32)
    return {"x": jnp.asarray(x), "y": jnp.asarray(y), "n_valid": jnp.asarray(n)}


def train(
    cfg: ml_collections.ConfigDict,
    workdir: str | None,
    *,
    mesh: Mesh | None = None,
    rules: sharding_lib.Rules | None = None,
    progress: bool = True,
) -> FitResult:
    """``jaxpapers train`` entry: trains ``cfg.model`` on ``cfg.dataset`` (synthetic, diabetes, breast_cancer)."""
    dataset = cfg.get("dataset", None)
    if dataset is None:
        raise ConfigError("this config configures claims only (it has no 'dataset'); use `jaxpapers verify comonet`")
    check_choice("dataset", dataset, ("synthetic", "diabetes", "breast_cancer"))
    mc = config_lib.to_dataclass(ModelConfig, cfg.model)
    if dataset == "synthetic":
        d = data_lib.synthetic_nine(cfg.data.n_train, noise=cfg.data.noise, seed=cfg.seed)
        tab = data_lib.TabularData(
            "synthetic", d["x"], d["y"], tuple(f"x{j}" for j in range(9)), parse_regimes(data_lib.NINE_REGIMES)
        )
    else:
        tab = getattr(data_lib, dataset)()
        scaler = data_lib.Standardizer.fit(tab.x)
        y = tab.y
        if tab.task == "regression":
            y = (y - y.mean()) / y.std()
        tab = dataclasses.replace(tab, x=scaler(tab.x), y=y.astype(np.float32))
    early_stop = cfg.get("early_stop", None)
    return fit(
        build_model(mc, tab.regimes),
        tab,
        optim=config_lib.to_dataclass(OptimConfig, cfg.optim),
        loop=config_lib.to_dataclass(LoopConfig, cfg.train),
        early_stop=config_lib.to_dataclass(EarlyStopConfig, early_stop) if early_stop else EarlyStopConfig(),
        task=tab.task,
        seed=cfg.seed,
        workdir=workdir,
        mesh=mesh,
        rules=rules,
        progress=progress,
        model_config=cfg.model,
    )
