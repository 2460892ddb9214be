"""Training COMONet and its baselines through the shared trainer (spec "train.py").

* :func:`make_loss_fn` — MSE or BCE-with-logits (constraints are stated on the logit), plus the
  soft shape penalty for :class:`PenaltyMLP`; signature ``loss_fn(params, batch, key, *, train)``.
* :func:`make_optimizer` — Adam with cosine decay to 0 (or constant); optional weight decay on
  normal weights only (decay on log-weights Ŵ would pull exp(Ŵ) towards 1, not 0).
* :func:`fit` — a thin wrapper over :func:`jaxpapers.core.train.fit` (its checkpoints, metrics,
  resume), with optional early stopping on a validation split through a hook.
* :func:`train_many` — seed/trial grids: ONE jitted computation that vmaps (via ``core.sim``) a
  ``lax.scan`` of the very step function ``core.train.make_train_step`` builds.
* :func:`train` — the ``jaxpapers train --config configs/comonet/<experiment>.py`` entry point.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax

from jaxpapers.comonet import data as data_lib
from jaxpapers.comonet.baselines import ICNN, MLP, SMNN, PenaltyMLP, shape_penalty
from jaxpapers.comonet.certify import compiler_options
from jaxpapers.comonet.model import COMONet
from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.core import axes, sim
from jaxpapers.core import config as config_lib
from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import FitResult, TrainState, init_state, make_train_step
from jaxpapers.core.train import fit as core_fit

MODEL_KINDS: tuple[str, ...] = ("comonet", "mlp", "penalty_mlp", "smnn", "icnn")

SCHEDULES: tuple[str, ...] = ("cosine", "constant")
# Tabular models are tiny: parameters stay replicated, batches are split over the data axes.
RULES = ((axes.BATCH, ("data", "fsdp")),)


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Which model to build and its sizes (from ``cfg.model`` via ``core.config.to_dataclass``)."""

    kind: str = "comonet"
    hidden: int = 16
    depth: int = 2
    act: str = "softplus"
    mlp_hidden: tuple[int, ...] = (64, 64)
    penalty_lam: float = 1.0
    penalty_h: float = 0.1
    penalty_points: int = 128
    penalty_box: tuple[float, float] = (-1.0, 1.0)

    def __post_init__(self):
        check_choice("model.kind", self.kind, MODEL_KINDS)
        check_range("model.hidden", self.hidden, 1)
        check_range("model.depth", self.depth, 1)
        for w in self.mlp_hidden:
            check_range("model.mlp_hidden", w, 1)


def model_config(**overrides: Any) -> ml_collections.ConfigDict:
    """``cfg.model`` for a preset: :class:`ModelConfig`'s defaults with ``overrides`` (validated now)."""
    return ml_collections.ConfigDict(dataclasses.asdict(ModelConfig(**overrides)))


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings (from ``cfg.train``)."""

    steps: int = 1500
    batch_size: int = 256
    lr: float = 1e-2
    schedule: str = "cosine"
    weight_decay: float = 0.0
    task: str = "regression"
    val_fraction: float = 0.0
    patience: int = 0
    eval_every: int = 50
    log_every: int = 100
    seed: int = 0

    def __post_init__(self):
        check_range("train.steps", self.steps, 1)
        check_range("train.batch_size", self.batch_size, 1)
        check_range("train.lr", self.lr, 0.0, lo_open=True)
        check_choice("train.schedule", self.schedule, SCHEDULES)
        check_range("train.weight_decay", self.weight_decay, 0.0)
        check_choice("train.task", self.task, data_lib.TASKS)
        check_range("train.val_fraction", self.val_fraction, 0.0, 1.0, hi_open=True)
        check_range("train.patience", self.patience, 0)
        check_range("train.eval_every", self.eval_every, 1)
        if self.patience and not self.val_fraction:
            raise ConfigError("train.patience > 0 (early stopping) needs train.val_fraction > 0")


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
    check_choice("task", task, data_lib.TASKS)

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


def make_optimizer(tc: TrainConfig) -> optax.GradientTransformation:
    """Adam (cosine decay to 0, or constant); decoupled weight decay on normal ``kernel`` leaves only."""
    lr = optax.cosine_decay_schedule(tc.lr, tc.steps, alpha=0.0) if tc.schedule == "cosine" else tc.lr
    if not tc.weight_decay:
        return optax.adam(lr)

    def normal_kernels(params):
        return jax.tree_util.tree_map_with_path(lambda path, _: getattr(path[-1], "key", None) == "kernel", params)

    return optax.chain(
        optax.scale_by_adam(),
        optax.add_decayed_weights(tc.weight_decay, mask=normal_kernels),
        optax.scale_by_learning_rate(lr),
    )


def predict(model: nn.Module, params: Any, x: np.ndarray | jax.Array) -> jax.Array:
    """Model output column 0 for ``x [n, d]`` (the logit for binary tasks)."""
    return model.apply({"params": params}, jnp.asarray(x))[:, 0]


def fit(
    model: nn.Module,
    data: data_lib.TabularData | Mapping[str, Any],
    cfg: TrainConfig | ml_collections.ConfigDict | Mapping[str, Any] = TrainConfig(),
    *,
    workdir: str | None = None,
    mesh: jax.sharding.Mesh | None = None,
    progress: bool = False,
    model_config: Any = None,
) -> FitResult:
    """Trains ``model`` on ``data`` with the shared trainer (``core.train.fit``).

    ``data`` is a :class:`~jaxpapers.comonet.data.TabularData` or ``{"x": [n, d], "y": [n]}``; the
    grain pipeline of :func:`~jaxpapers.comonet.data.pipeline` feeds it. With ``val_fraction`` and
    ``patience`` set, a hook evaluates the validation loss every ``eval_every`` steps, stops after
    ``patience`` evaluations without improvement and the returned state holds the best parameters.
    ``workdir`` gives checkpoints, ``metrics.jsonl`` and auto-resume.
    """
    tc = cfg if isinstance(cfg, TrainConfig) else config_lib.to_dataclass(TrainConfig, cfg)
    x, y = data_lib.as_arrays(data)
    x_val = y_val = None
    if tc.val_fraction > 0:
        train_idx, val_idx = data_lib.split(len(x), tc.val_fraction, tc.seed)
        x, y, x_val, y_val = x[train_idx], y[train_idx], x[val_idx], y[val_idx]
    tx = make_optimizer(tc)
    loss_fn = make_loss_fn(model, tc.task)
    state, shardings = init_state(
        lambda k: model.init(k, jnp.asarray(x[:1]))["params"],
        tx,
        jax.random.key(tc.seed),
        mesh=mesh,
        rules=RULES if mesh is not None else None,
    )
    hooks, eval_fn, best = [], None, {}
    if x_val is not None:
        val_batch = {"x": jnp.asarray(x_val), "y": jnp.asarray(y_val)}
        val_loss = jax.jit(lambda p: loss_fn(p, val_batch, jax.random.key(0), train=False))

        def eval_fn(s: TrainState) -> dict[str, Any]:
            loss, aux = val_loss(s.params)
            return {"loss": loss, **aux}

        if tc.patience:
            best.update(loss=np.inf, params=None, step=0, waited=0)

            def early_stop(step: int, s: TrainState, metrics: Any) -> bool:
                if step % tc.eval_every:
                    return False
                loss = float(val_loss(s.params)[0])
                if loss < best["loss"]:
                    best.update(loss=loss, params=jax.tree.map(jnp.copy, s.params), step=step, waited=0)
                else:
                    best["waited"] += 1
                return best["waited"] >= tc.patience

            hooks.append(early_stop)

    result = core_fit(
        state,
        make_train_step(loss_fn, tx),
        data_lib.pipeline(x, y, tc.batch_size, seed=tc.seed),
        num_steps=tc.steps,
        workdir=workdir,
        mesh=mesh,
        rules=RULES if mesh is not None else None,
        shardings=shardings,
        log_every=tc.log_every,
        eval_fn=eval_fn,
        eval_every=tc.eval_every if eval_fn is not None else None,
        model_config=model_config,
        hooks=hooks,
        progress=progress,
        description=type(model).__name__,
    )
    if best.get("params") is not None:
        result.state = result.state.replace(params=best["params"])
    return result


def train_many(
    model: nn.Module,
    loss_fn: Any,
    tx: optax.GradientTransformation,
    x: np.ndarray,
    y: np.ndarray,
    keys: jax.Array,
    *,
    steps: int,
    batch_size: int,
    n_valid: np.ndarray | None = None,
    chunk_size: int | None = None,
) -> tuple[Any, jax.Array]:
    """Trains one model per trial in ONE jitted computation: vmap over trials of a ``lax.scan``.

    Args:
      x, y: per-trial data ``[T, n, d]`` and ``[T, n]`` (rows beyond ``n_valid[t]`` are padding).
      keys: ``[T]`` keys; each splits into the init key, the train-state key (per-step keys, e.g.
        the PenaltyMLP's fresh points) and the batch-sampling key.
      steps, batch_size: Adam steps; each draws ``batch_size`` rows uniformly with replacement.
      n_valid: rows of real data per trial (default: all ``n``).
      chunk_size: trials per vmapped chunk (``core.sim.vmap_chunked``), to bound memory.

    Returns:
      ``(params, losses)``: params stacked on a leading trial axis, and the per-step training loss
      ``[T, steps]``. The step function is ``core.train.make_train_step(loss_fn, tx)``, the same one
      :func:`fit` jits.
    """
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    if x.ndim != 3 or y.shape != x.shape[:2]:
        raise ConfigError(f"x has shape {x.shape} and y {y.shape}; expected [T, n, d] and [T, n]")
    n_valid = np.full((x.shape[0],), x.shape[1], np.int32) if n_valid is None else np.asarray(n_valid, np.int32)
    step_fn = make_train_step(loss_fn, tx)

    def one(key: jax.Array, xt: jax.Array, yt: jax.Array, nt: jax.Array):
        init_key, state_key, data_key = jax.random.split(key, 3)
        params = model.init(init_key, xt[:1])["params"]
        state = TrainState(
            step=jnp.zeros((), jnp.int32),
            params=params,
            opt_state=tx.init(params),
            rng=jax.random.key_data(state_key),
        )

        def body(s: TrainState, _):
            idx = jax.random.randint(jax.random.fold_in(data_key, s.step), (batch_size,), 0, nt)
            s, metrics = step_fn(s, {"x": xt[idx], "y": yt[idx]})
            return s, metrics["loss"]

        state, losses = jax.lax.scan(body, state, None, length=steps)
        return state.params, losses

    run = jax.jit(
        lambda k, a, b, c: sim.vmap_chunked(one, k, a, b, c, chunk_size=chunk_size),
        compiler_options=compiler_options(),
    )
    return run(keys, jnp.asarray(x), jnp.asarray(y), jnp.asarray(n_valid))


def train(
    cfg: ml_collections.ConfigDict, workdir: str | None, *, mesh: jax.sharding.Mesh | None = None, progress: bool = True
) -> FitResult:
    """``jaxpapers train`` entry: trains ``cfg.model`` on ``cfg.dataset`` (synthetic, diabetes, breast_cancer)."""
    dataset = cfg.get("dataset", None)
    if dataset is None:
        raise ConfigError("this config configures claims only (it has no 'dataset'); use `jaxpapers verify comonet`")
    mc = config_lib.to_dataclass(ModelConfig, cfg.model)
    tc = config_lib.to_dataclass(TrainConfig, cfg.train)
    if dataset == "synthetic":
        d = data_lib.synthetic_nine(cfg.data.n_train, noise=cfg.data.noise, seed=cfg.seed)
        tab = data_lib.TabularData(
            "synthetic", d["x"], d["y"], tuple(f"x{j}" for j in range(9)), parse_regimes(data_lib.NINE_REGIMES)
        )
    elif dataset in ("diabetes", "breast_cancer"):
        tab = getattr(data_lib, dataset)()
        scaler = data_lib.Standardizer.fit(tab.x)
        y = tab.y
        if tab.task == "regression":
            y = (y - y.mean()) / y.std()
        tab = dataclasses.replace(tab, x=scaler(tab.x), y=y.astype(np.float32))
    else:
        check_choice("dataset", dataset, ("synthetic", "diabetes", "breast_cancer"))
        raise AssertionError  # unreachable
    model = build_model(mc, tab.regimes)
    tc = dataclasses.replace(tc, task=tab.task)
    return fit(model, tab, tc, workdir=workdir, mesh=mesh, progress=progress, model_config=cfg.model)
