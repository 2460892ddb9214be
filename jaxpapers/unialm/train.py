"""The two codec training phases through the shared trainer (spec §2, "phase 1" / "phase 2").

Both phases use ``core.train.init_state`` + ``core.train.fit`` (orbax checkpoints and resume when a
``workdir`` is given) with ``core.train.make_train_step`` wrapped by :func:`with_dead_code_restart`,
which is the one thing the stock recipe cannot say: it accumulates per-level code counts from the
loss's aux and, every ``restart_every`` steps, replaces codes unused in that window by random recent
encodings (spec §2 RVQ). With EMA codebooks (``codec.a_ema_decay``/``r_ema_decay`` > 0) it also keeps
the EMA counts and sums in ``state.extras`` (so they are checkpointed with the state) and sets each
codebook from them after every step; a restarted code's statistics restart too (count 1, sum = the new
code). Optimizers come from ``core.train.make_optimizer``.

Input batches come from grain (:func:`jaxpapers.unialm.data.pipeline.codec_stream`: per-process
slices, a seeded shuffle per epoch), so the trainer checkpoints the iterator and a resumed run continues
the same batch sequence.

* Phase 1 (:func:`train_analysis`): ``L_text + L_vq`` on the analysis branch alone.
* Phase 2 (:func:`train_recon`): ``15·MSMD + L1 + L_vq`` on the reconstruction branch; the analysis
  params are a constant of the loss (frozen: they have no optimizer state at all). With a
  :class:`~jaxpapers.unialm.config.GanConfig` it adds ``1·L_adv + 2·L_fm`` through
  :func:`jaxpapers.unialm.gan.make_gan_step` (alternating discriminator/generator updates; the
  discriminator's params and optimizer state ride in ``state.extras["disc"]``). Without one, the step
  is the stock ``make_train_step`` exactly as before.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.train import FitResult, LoopConfig, OptimConfig, TrainState, fit, init_state, make_optimizer
from jaxpapers.core.train.step import make_train_step
from jaxpapers.unialm import gan as gan_lib
from jaxpapers.unialm.codec import AnalysisBranch, FactorCodec, codec_phase1_loss, codec_phase2_terms
from jaxpapers.unialm.config import GanConfig, LossConfig
from jaxpapers.unialm.data.pipeline import ClipSource, codec_stream
from jaxpapers.unialm.data.worlds import DESCRIBE
from jaxpapers.unialm.quantize import (
    ENC_KEY,
    ENC_SUM_KEY,
    USAGE_KEY,
    ema_codebook,
    ema_codebook_update,
    ema_init,
    restart_dead_codes,
)


def with_dead_code_restart(
    step: Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]],
    rvq_path: tuple[str, ...],
    levels: int,
    every: int,
    ema_decay: float = 0.0,
) -> Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]]:
    """Wraps a train step: accumulate code usage in ``state.extras["usage"]`` and restart dead codes.

    ``ema_decay`` > 0: first set every level's codebook by :func:`ema_codebook_update` from this batch's
    counts and encoding sums (EMA state in ``extras["ema_count"] [Q, K]``, ``extras["ema_sum"] [Q, K, C]``),
    then restart dead codes in the EMA statistics.
    """
    check_range("ema_decay", ema_decay, 0.0, 1.0, hi_open=True)
    check_range("every", every, 1)

    def wrapped(state: TrainState, batch: Any):
        state, metrics = step(state, batch)
        counts, enc = metrics.pop(USAGE_KEY), metrics.pop(ENC_KEY)
        sums = metrics.pop(ENC_SUM_KEY, None)
        usage = state.extras["usage"] + counts
        do = (state.step % every) == 0
        params = state.params
        node = params
        for k in rvq_path:
            node = node[k]
        new_node = dict(node)
        key = jax.random.fold_in(state.key, state.step + 1_000_003)
        extras = dict(state.extras)
        ema_n, ema_m = [], []
        for lvl in range(levels):
            lv = dict(node[f"level_{lvl}"])
            lkey = jax.random.fold_in(key, lvl)
            if ema_decay > 0:
                n, m, _ = ema_codebook_update(
                    extras["ema_count"][lvl], extras["ema_sum"][lvl], counts[lvl], sums[lvl], ema_decay
                )
                dead = do & (usage[lvl] == 0)
                m = jnp.where(dead[:, None], restart_dead_codes(m, usage[lvl], enc[lvl], lkey), m)
                n = jnp.where(dead, 1.0, n)
                lv["codebook"] = ema_codebook(n, m)
                ema_n.append(n)
                ema_m.append(m)
            else:
                fresh = restart_dead_codes(lv["codebook"], usage[lvl], enc[lvl], lkey)
                lv["codebook"] = jnp.where(do, fresh, lv["codebook"])
            new_node[f"level_{lvl}"] = lv
        params = _set_path(params, rvq_path, new_node)
        if ema_decay > 0:
            extras["ema_count"], extras["ema_sum"] = jnp.stack(ema_n), jnp.stack(ema_m)
        metrics["dead_codes"] = jnp.sum(usage == 0) / levels
        extras["usage"] = jnp.where(do, jnp.zeros_like(usage), usage)
        return state.replace(params=params, extras=extras), metrics

    return wrapped


def codec_extras(params: Any, rvq_path: tuple[str, ...], levels: int, codebook_size: int, ema: bool) -> dict:
    """``state.extras`` for a codec phase: the usage window, plus EMA statistics from the initial codebooks."""
    extras = {"usage": jnp.zeros((levels, codebook_size), jnp.float32)}
    if ema:
        node = params
        for k in rvq_path:
            node = node[k]
        stats = [ema_init(node[f"level_{lvl}"]["codebook"]) for lvl in range(levels)]
        extras["ema_count"] = jnp.stack([s[0] for s in stats])
        extras["ema_sum"] = jnp.stack([s[1] for s in stats])
    return extras


def _set_path(tree: Mapping[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(tree)
    if len(path) == 1:
        out[path[0]] = value
    else:
        out[path[0]] = _set_path(tree[path[0]], path[1:], value)
    return out


def _fit(
    init,  # init(key) -> params, or the params themselves (core.train.init_state)
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
    ema_decay=0.0,
    gan=None,
):
    """``gan``: None (the plain step) or ``(GanConfig, OptimConfig of the discriminator, terms_fn, n_samples)``."""
    tx = make_optimizer(optim, loop.steps)
    model_config: dict[str, Any] = {"phase": description}
    disc_state = None
    if gan is None:
        inner = make_train_step(loss_fn, tx)
    else:
        gan_cfg, optim_d, terms_fn, n_samples = gan
        disc, tx_d = gan_lib.make_discriminator(gan_cfg), make_optimizer(optim_d, loop.steps)
        disc_key = jax.random.fold_in(key, 0x6A4)  # not a key init_state splits off: the generator's init is unchanged

        def disc_state():
            return gan_lib.disc_extras(disc, tx_d, disc_key, n_samples)

        inner = gan_lib.make_gan_step(terms_fn, disc, tx, tx_d, gan_cfg)
        model_config["gan"] = dataclasses.asdict(gan_cfg)

    def extras(p):
        out = codec_extras(p, rvq_path, levels, codebook_size, ema_decay > 0)
        if disc_state is not None:
            out[gan_lib.DISC_KEY] = disc_state()
        return out

    state, shardings = init_state(init, tx, key, extras=extras)
    step = with_dead_code_restart(inner, rvq_path, levels, restart_every, ema_decay)
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
        model_config=model_config,
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
    data = codec_stream({"audio": audio, "prompt": prompt, "target": targets}, loop.batch_size, seed=int(loop.steps))
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
        c.a_ema_decay,
    )


@functools.cache
def _recon_init_fn(codec: FactorCodec, n_samples: int) -> Callable[[jax.Array, Any], Any]:
    """One jitted init program per (codec, clip length): :func:`recon_init` and :func:`train_recon` share it, so a
    study that needs the params at init (U1's MSMD_0) compiles the init once (it is mostly RNG code: seconds)."""

    @jax.jit
    def init(k, pa):
        x0 = jnp.zeros((1, n_samples), jnp.float32)
        q_a = None
        if codec.uses_analysis:
            q_a = codec.analysis.apply({"params": pa}, x0, method=AnalysisBranch.encode)["q"]
        return codec.recon.init(k, x0, q_a, jnp.zeros((1,), bool))["params"]

    return init


def recon_init(codec: FactorCodec, n_samples: int, key: jax.Array, params_analysis: Any = None) -> Any:
    """The reconstruction branch's initial params exactly as :func:`train_recon` draws them from ``key``."""
    param_key = jax.random.split(key)[0]  # init_state's split
    return _recon_init_fn(codec, n_samples)(param_key, params_analysis)


def train_recon(
    codec: FactorCodec,
    audio: np.ndarray | ClipSource,
    *,
    optim: OptimConfig,
    loop: LoopConfig,
    loss: LossConfig,
    key: jax.Array,
    params_analysis: Any = None,
    workdir: str | None = None,
    progress: bool = False,
    gan: GanConfig | None = None,
    optim_d: OptimConfig | None = None,
) -> FitResult:
    """Phase 2: the reconstruction branch on ``audio [n, N]`` (cached clips) or a :class:`ClipSource` (files
    on disk); FiLM reads the frozen ``params_analysis``.

    ``gan``: add the adversarial and feature-matching terms (spec §2 recon step 5) with a discriminator
    trained by ``optim_d`` (default: ``optim``); None keeps the plain step bit for bit.
    """
    c = codec.cfg
    n_samples = audio.n if isinstance(audio, ClipSource) else audio.shape[1]
    c.check_length(n_samples, analysis=codec.uses_analysis)
    if codec.uses_analysis and params_analysis is None:
        raise ValueError("a FiLM-conditioned FactorCodec needs params_analysis (train phase 1 first)")
    src = audio if isinstance(audio, ClipSource) else {"audio": audio}
    data = codec_stream(src, loop.batch_size, seed=int(loop.steps) + 1)
    frozen = None if not codec.uses_analysis else jax.tree.map(jnp.asarray, params_analysis)

    def q_a_of(x):
        if frozen is None:
            return None
        enc = codec.analysis.apply({"params": frozen}, x, method=AnalysisBranch.encode)
        return jax.lax.stop_gradient(enc["q"])

    # init_state would draw the params from split(key)[0]; recon_init draws the same ones with the program
    # it shares with U1's untrained codec, and init_state takes them as its argument
    params0 = recon_init(codec, n_samples, key, frozen)

    def terms_fn(params, batch, key, *, train=True):
        x = batch["audio"]
        return codec_phase2_terms(codec, params, q_a_of(x), x, key, train=train, weights=loss, usage=True)

    def loss_fn(params, batch, key, *, train):
        return terms_fn(params, batch, key, train=train)[:2]

    return _fit(
        params0,
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
        c.r_ema_decay,
        None if gan is None else (gan, optim_d or optim, terms_fn, n_samples),
    )
