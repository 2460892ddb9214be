"""The two codec training phases through the shared trainer (spec §2, "phase 1" / "phase 2").

Both phases use ``core.train.init_state`` + ``core.train.fit`` (orbax checkpoints and resume when a
``workdir`` is given) with ``core.train.make_train_step`` wrapped by :func:`with_dead_code_restart`,
which is the one thing the stock recipe cannot say: it accumulates per-level code counts from the
loss's aux and, every ``restart_every`` steps, replaces codes unused in that window by random recent
encodings (spec §2 RVQ). Optimizers come from ``core.train.make_optimizer``.

* Phase 1 (:func:`train_analysis`): ``L_text + L_vq`` on the analysis branch alone.
* Phase 2 (:func:`train_recon`): ``15·MSMD + L1 + L_vq`` on the reconstruction branch; the analysis
  params are a constant of the loss (frozen: they have no optimizer state at all).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.train import FitResult, LoopConfig, OptimConfig, TrainState, fit, init_state, make_optimizer
from jaxpapers.core.train.step import make_train_step
from jaxpapers.unialm.codec import AnalysisBranch, FactorCodec, codec_phase1_loss, codec_phase2_loss
from jaxpapers.unialm.config import LossConfig
from jaxpapers.unialm.data.worlds import DESCRIBE
from jaxpapers.unialm.quantize import ENC_KEY, USAGE_KEY, restart_dead_codes


def with_dead_code_restart(
    step: Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]],
    rvq_path: tuple[str, ...],
    levels: int,
    every: int,
) -> Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]]:
    """Wraps a train step: accumulate code usage in ``state.extras["usage"]`` and restart dead codes."""

    def wrapped(state: TrainState, batch: Any):
        state, metrics = step(state, batch)
        counts, enc = metrics.pop(USAGE_KEY), metrics.pop(ENC_KEY)
        usage = state.extras["usage"] + counts
        do = (state.step % every) == 0
        params = state.params
        node = params
        for k in rvq_path:
            node = node[k]
        new_node = dict(node)
        key = jax.random.fold_in(state.key, state.step + 1_000_003)
        for lvl in range(levels):
            lv = dict(node[f"level_{lvl}"])
            fresh = restart_dead_codes(lv["codebook"], usage[lvl], enc[lvl], jax.random.fold_in(key, lvl))
            lv["codebook"] = jnp.where(do, fresh, lv["codebook"])
            new_node[f"level_{lvl}"] = lv
        params = _set_path(params, rvq_path, new_node)
        metrics["dead_codes"] = jnp.sum(usage == 0) / levels
        usage = jnp.where(do, jnp.zeros_like(usage), usage)
        return state.replace(params=params, extras={**state.extras, "usage": usage}), metrics

    return wrapped


def _set_path(tree: Mapping[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(tree)
    if len(path) == 1:
        out[path[0]] = value
    else:
        out[path[0]] = _set_path(tree[path[0]], path[1:], value)
    return out


def batches(arrays: Mapping[str, np.ndarray], batch_size: int, seed: int) -> Iterator[dict[str, np.ndarray]]:
    """An endless stream of uniformly drawn (with replacement) batches from equally long arrays."""
    n = len(next(iter(arrays.values())))
    rng = np.random.default_rng(seed)
    while True:
        idx = rng.integers(0, n, batch_size)
        yield {k: v[idx] for k, v in arrays.items()}


def _fit(
    init,
    loss_fn,
    optim,
    loop,
    data,
    key,
    workdir,
    rvq_path,
    levels,
    codebook_size,
    restart_every,
    progress,
    description,
):
    tx = make_optimizer(optim, loop.steps)
    state, shardings = init_state(
        init, tx, key, extras=lambda p: {"usage": jnp.zeros((levels, codebook_size), jnp.float32)}
    )
    step = with_dead_code_restart(make_train_step(loss_fn, tx), rvq_path, levels, restart_every)
    return fit(
        state,
        step,
        data,
        num_steps=loop.steps,
        workdir=workdir,
        shardings=shardings,
        log_every=loop.log_every,
        ckpt_every=loop.ckpt_every,
        progress=progress,
        description=description,
        model_config={"phase": description},
    )


def train_analysis(
    codec: FactorCodec,
    audio: np.ndarray,
    targets: np.ndarray,
    *,
    optim: OptimConfig,
    loop: LoopConfig,
    loss: LossConfig,
    key: jax.Array,
    workdir: str | None = None,
    progress: bool = False,
) -> FitResult:
    """Phase 1: the analysis branch (encoder, RVQ_a, text head) on ``(audio [n, N], targets [n, L])``."""
    codec.cfg.check_length(audio.shape[1], analysis=True)
    c = codec.cfg
    prompt = np.full((len(audio), 1), DESCRIBE, np.int32)
    data = batches({"audio": audio, "prompt": prompt, "target": targets}, loop.batch_size, int(loop.steps))
    x0 = jnp.zeros((1, audio.shape[1]), jnp.float32)
    tok = jnp.zeros((1, targets.shape[1] - 1), jnp.int32)
    init = lambda k: codec.analysis.init(k, x0, tok[:, :1], tok)["params"]  # noqa: E731

    def loss_fn(params, batch, key, *, train):
        return codec_phase1_loss(codec, params, batch, usage=True)

    return _fit(
        init,
        loss_fn,
        optim,
        loop,
        data,
        key,
        workdir,
        ("rvq",),
        c.a_levels,
        c.a_codes,
        loss.restart_every,
        progress,
        "analysis",
    )


def recon_init(codec: FactorCodec, n_samples: int, key: jax.Array, params_analysis: Any = None) -> Any:
    """The reconstruction branch's initial params exactly as :func:`train_recon` draws them from ``key``."""
    param_key = jax.random.split(key)[0]  # init_state's split

    @jax.jit
    def init(k, pa):
        x0 = jnp.zeros((1, n_samples), jnp.float32)
        q_a = None
        if codec.uses_analysis:
            q_a = codec.analysis.apply({"params": pa}, x0, method=AnalysisBranch.encode)["q"]
        return codec.recon.init(k, x0, q_a, jnp.zeros((1,), bool))["params"]

    return init(param_key, params_analysis)


def train_recon(
    codec: FactorCodec,
    audio: np.ndarray,
    *,
    optim: OptimConfig,
    loop: LoopConfig,
    loss: LossConfig,
    key: jax.Array,
    params_analysis: Any = None,
    workdir: str | None = None,
    progress: bool = False,
) -> FitResult:
    """Phase 2: the reconstruction branch on ``audio [n, N]``; FiLM reads the frozen ``params_analysis``."""
    c = codec.cfg
    c.check_length(audio.shape[1], analysis=codec.uses_analysis)
    if codec.uses_analysis and params_analysis is None:
        raise ValueError("a FiLM-conditioned FactorCodec needs params_analysis (train phase 1 first)")
    data = batches({"audio": audio}, loop.batch_size, int(loop.steps) + 1)
    x0 = jnp.zeros((1, audio.shape[1]), jnp.float32)
    frozen = None if not codec.uses_analysis else jax.tree.map(jnp.asarray, params_analysis)

    def q_a_of(x):
        if frozen is None:
            return None
        enc = codec.analysis.apply({"params": frozen}, x, method=AnalysisBranch.encode)
        return jax.lax.stop_gradient(enc["q"])

    def init(k):
        return codec.recon.init(k, x0, q_a_of(x0), jnp.zeros((1,), bool))["params"]

    def loss_fn(params, batch, key, *, train):
        x = batch["audio"]
        return codec_phase2_loss(codec, params, q_a_of(x), x, key, train=train, weights=loss, usage=True)

    return _fit(
        init,
        loss_fn,
        optim,
        loop,
        data,
        key,
        workdir,
        ("rvq",),
        c.r_levels,
        c.r_codes,
        loss.restart_every,
        progress,
        "recon",
    )
