"""The toy suite, built in the stages the spec assigns to claims (memoised with ``core.memo.shared``).

* :func:`recon_study` (owned by U1; U2 reuses it): the digit world (cached on disk), U1's mixture, the
  reconstruction branch trained with the FiLM condition dropped for every example (the PlainCodec
  path, spec "What the quick suite costs"), and MSMD on the 66 held-out clips: at init, after
  training with each clip's own codes at every level count q = 1..Q_r, and with another clip's codes
  (cyclic shift within its domain).
* :func:`analysis_study` (owned by U3; U4 reuses it): phase 1 of the analysis branch on the
  training voices (:func:`analysis_branch`), the text head's held-out-voice accuracy on the digit token,
  and single-voice linear probes on dequantized A, on dequantized R (from the U1 codec) and on continuous z_a.

The ``full`` preset (paper-scale codec, accelerator only: :func:`require_accelerator` makes every claim
``skipped`` on a CPU) trains the analysis branch on the attribute world (``cfg.analysis_world``) and the
reconstruction branch with the FiLM condition on the frozen analysis branch (``cfg.recon_film``); U3/U4
still probe the digit world's held-out voices.
"""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.checks import check_choice
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ClaimSkipped
from jaxpapers.core.train import LoopConfig, OptimConfig
from jaxpapers.unialm import audio
from jaxpapers.unialm.codec import FactorCodec, PlainCodec
from jaxpapers.unialm.config import (
    AttributeWorldConfig,
    CodecConfig,
    DigitWorldConfig,
    LossConfig,
    MixConfig,
    ProbeConfig,
)
from jaxpapers.unialm.data import attributes, worlds
from jaxpapers.unialm.probes import probe_accuracies, single_voice_sets
from jaxpapers.unialm.quantize import code_usage_stats
from jaxpapers.unialm.train import recon_init, train_analysis, train_recon


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(t0: tuple[float, float]) -> dict[str, float]:
    return {"wall_s": time.perf_counter() - t0[0], "cpu_s": time.process_time() - t0[1]}


def digit_world(cfg: ml_collections.ConfigDict) -> dict[str, np.ndarray]:
    """The digit world of ``cfg.data`` (memoised in-process; on disk under ``cfg.cache_dir``)."""
    data = to_dataclass(DigitWorldConfig, cfg.data)
    return memo.shared(
        "unialm/digit_world", data, cfg.cache_dir, fn=lambda: worlds.digit_world(data, cfg.cache_dir or None)
    )


def require_accelerator(cfg: ml_collections.ConfigDict) -> None:
    """The ``full`` preset trains the paper-scale codec: report ``skipped`` on a CPU instead of running for days."""
    if cfg.get("preset") == "full" and jax.default_backend() == "cpu":
        raise ClaimSkipped(
            "the full preset trains the paper-scale codec (5k + 20k steps at batch 32, 24 kHz) and needs an "
            "accelerator; run it on a GPU/TPU host"
        )


def attribute_world(cfg: ml_collections.ConfigDict) -> dict[str, np.ndarray]:
    """The attribute world of ``cfg.attributes`` (memoised in-process; on disk under ``cfg.cache_dir``)."""
    data = to_dataclass(AttributeWorldConfig, cfg.attributes)
    return memo.shared(
        "unialm/attribute_world",
        data,
        cfg.cache_dir,
        fn=lambda: attributes.attribute_world(data, cfg.cache_dir or None),
    )


def _analysis_data(cfg: ml_collections.ConfigDict) -> tuple[np.ndarray, np.ndarray]:
    """Phase-1 training clips and text targets (training voices only) of ``cfg.analysis_world``."""
    check_choice("analysis_world", cfg.get("analysis_world", "digits"), ("digits", "attributes"))
    if cfg.get("analysis_world", "digits") == "attributes":
        world = attribute_world(cfg)
        texts = attributes.texts(world, to_dataclass(AttributeWorldConfig, cfg.attributes))
    else:
        world = digit_world(cfg)
        texts = worlds.analysis_texts(world, to_dataclass(DigitWorldConfig, cfg.data))
    train_rows = ~world["heldout"]
    return world["audio"][train_rows], worlds.text_targets(texts)[train_rows]


def analysis_branch(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """Phase 1 (spec §2): the analysis branch trained on ``cfg.analysis_world``'s training voices (memoised)."""

    def run() -> dict[str, Any]:
        codec = FactorCodec(to_dataclass(CodecConfig, cfg.codec), len(worlds.TEXT_VOCAB))
        clips, targets = _analysis_data(cfg)
        t1 = _clock()
        result = train_analysis(
            codec,
            clips,
            targets,
            optim=to_dataclass(OptimConfig, cfg.analysis.optim),
            loop=to_dataclass(LoopConfig, cfg.analysis.train),
            loss=to_dataclass(LossConfig, cfg.loss),
            key=jax.random.fold_in(key, 1),
        )
        return {"codec": codec, "params": result.state.params, "history": result.history, "train": _since(t1)}

    return memo.shared("unialm/analysis_branch", cfg.to_dict(), key, fn=run)


def _chunked(fn, x: np.ndarray, chunk: int) -> list[Any]:
    """``fn`` on fixed-size chunks (the last one padded), so one compiled shape serves every call."""
    out = []
    for i in range(0, len(x), chunk):
        part = x[i : i + chunk]
        n = len(part)
        if n < chunk:
            part = np.concatenate([part, np.zeros((chunk - n, *part.shape[1:]), part.dtype)])
        out.append(jax.tree.map(lambda a, n=n: np.asarray(a)[:n], fn(jnp.asarray(part))))
    return out


def _cat(parts: list[Any]) -> Any:
    return jax.tree.map(lambda *a: np.concatenate(a), *parts)


def timing_details(study: dict[str, Any]) -> dict[str, float]:
    """A study's stage timings flattened for ``Measurement.details`` (``<stage>_wall_s``, ``<stage>_cpu_s``)."""
    return {f"{k}_{u}": round(v[u], 2) for k, v in study["timing"].items() for u in ("wall_s", "cpu_s")}


def swap_index(domain: np.ndarray) -> np.ndarray:
    """For each clip, the next clip of the same domain (cyclic shift within domain)."""
    out = np.arange(len(domain))
    for d in np.unique(domain):
        idx = np.nonzero(domain == d)[0]
        out[idx] = np.roll(idx, -1)
    return out


def make_msmd_eval(codec: FactorCodec):
    """Jitted ``(params, x [B, N], swap [B]) -> (own [Q, B], swap [B], R codes)``: per-clip MSMD decoding from the
    first q levels of each clip's own codes (q = 1..Q), and from all levels of the codes of clip ``swap[i]``."""
    levels = codec.cfg.r_levels

    def run(params, x, swap):
        a, r = codec.tokenize(params, x)
        own = jax.lax.map(
            lambda q: audio.multiscale_mel_distance(x, codec.detokenize(params, a, r, q), codec.cfg.sr),
            jnp.arange(1, levels + 1),
        )
        sw = audio.multiscale_mel_distance(x, codec.detokenize(params, a[swap], r[swap]), codec.cfg.sr)
        return own, sw, r

    return jax.jit(run)


def recon_study(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """U1's stage: data + the reconstruction branch (FiLM off; on with ``cfg.recon_film``) + held-out MSMD tables."""

    def run() -> dict[str, Any]:
        require_accelerator(cfg)
        t0 = _clock()
        world = digit_world(cfg)
        t_data = _since(t0)
        mix_cfg = to_dataclass(MixConfig, cfg.mix)
        codec_cfg = to_dataclass(CodecConfig, cfg.codec)
        mix = worlds.mixture(world, mix_cfg, codec_cfg.sr)
        pa = None
        if cfg.get("recon_film", False):  # FiLM-conditioned FactorCodec: phase 2 reads the frozen phase-1 branch
            codec = FactorCodec(codec_cfg, len(worlds.TEXT_VOCAB))
            pa = analysis_branch(cfg, key)["params"]
        else:
            codec = PlainCodec(codec_cfg, len(worlds.TEXT_VOCAB))
        loop = to_dataclass(LoopConfig, cfg.recon.train)
        key_r = jax.random.fold_in(key, 2)
        params0 = {"analysis": pa, "recon": recon_init(codec, mix["train"].shape[1], key_r, pa)}
        t1 = _clock()
        result = train_recon(
            codec,
            mix["train"],
            optim=to_dataclass(OptimConfig, cfg.recon.optim),
            loop=loop,
            loss=to_dataclass(LossConfig, cfg.loss),
            key=key_r,
            params_analysis=pa,
        )
        t_train = _since(t1)
        params = {"analysis": pa, "recon": result.state.params}
        evaluate = make_msmd_eval(codec)
        swap = swap_index(mix["eval_domain"])
        x = jnp.asarray(mix["eval"])
        own0, _, _ = evaluate(params0, x, swap)
        own, sw, r_codes = evaluate(params, x, swap)
        return {
            "codec": codec,
            "params": params,
            "history": result.history,
            "msmd0": np.asarray(own0[-1]),
            "msmd_q": np.asarray(own),
            "msmd_swap": np.asarray(sw),
            "domain": mix["eval_domain"],
            "usage": code_usage_stats(np.asarray(r_codes), codec_cfg.r_codes),
            "timing": {"data": t_data, "train": t_train, "total": _since(t0)},
        }

    return memo.shared("unialm/recon", cfg.to_dict(), key, fn=run)


def analysis_study(cfg: ml_collections.ConfigDict, key: jax.Array) -> dict[str, Any]:
    """U3's stage: phase-1 analysis branch, head accuracy, single-voice probes on A, R and z_a."""

    def run() -> dict[str, Any]:
        require_accelerator(cfg)
        t0 = _clock()
        world = digit_world(cfg)
        codec_cfg = to_dataclass(CodecConfig, cfg.codec)
        branch = analysis_branch(cfg, key)
        codec = branch["codec"]
        t_train = branch["train"]
        params = {"analysis": branch["params"], "recon": None}
        chunk = int(cfg.eval_chunk)
        prompt = jnp.full((chunk, 1), worlds.DESCRIBE, jnp.int32)

        @jax.jit
        def encode(x):
            enc = codec.analyze(params, x)
            first = codec.describe(params, enc["codes"], prompt, 1)[:, 0]
            return {"q": enc["q"], "z": enc["z"], "codes": enc["codes"], "first": first}

        enc = _cat(_chunked(encode, world["audio"], chunk))
        digit_ids = np.asarray([worlds.WORD_ID[d] for d in worlds.DIGITS])[world["digit"]]
        held = world["heldout"]
        head_acc = float(np.mean(enc["first"][held] == digit_ids[held]))

        recon = recon_study(cfg, key)
        rc, rp = recon["codec"], recon["params"]

        @jax.jit
        def recon_embed(x):
            _, r = rc.tokenize(rp, x)
            return rc.embed_R(rp, r)

        r_emb = _cat(_chunked(recon_embed, world["audio"], chunk))
        t2 = _clock()
        probe = to_dataclass(ProbeConfig, cfg.probe)
        feats = {"A": enc["q"], "R": r_emb, "z_a": enc["z"]}
        dim = max(int(np.prod(f.shape[1:])) for f in feats.values())
        sets = {}
        for name, f in feats.items():
            f = f.reshape(len(f), -1)
            f = np.pad(f, ((0, 0), (0, dim - f.shape[1])))  # zero columns standardise to 0: no effect
            sets[name] = single_voice_sets(f, world["voice"], world["digit"], held, probe.voices)
        names = list(sets)
        n_v = len(probe.voices)
        acc = probe_accuracies(
            np.concatenate([sets[n][0] for n in names]),
            np.concatenate([sets[n][1] for n in names]),
            np.concatenate([np.broadcast_to(sets[n][2], (n_v, *sets[n][2].shape)) for n in names]),
            sets["A"][3],
            probe,
            10,
        ).reshape(len(names), n_v)
        probes = {n: acc[i] for i, n in enumerate(names)}
        return {
            "head_acc": head_acc,
            "probes": probes,
            "history": branch["history"],
            "usage": code_usage_stats(enc["codes"], codec_cfg.a_codes),
            "timing": {"train": t_train, "probes": _since(t2), "total": _since(t0)},
        }

    return memo.shared("unialm/analysis", cfg.to_dict(), key, fn=run)
