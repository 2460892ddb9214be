"""Experiments behind the FuxViT claims: each ``fn(cfg, key) -> Measurement`` measures, never judges.

F1-F4 check properties that hold by construction (exactness, image = ViT, frame causality and
streaming, inert unselected frames); F6/F11 read XLA's compiled FLOP and memory analysis; F7/F8
train tiny models through the shared trainer; F9 compares a sharded train step with one device.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import config as config_lib
from jaxpapers.core import memo, plots
from jaxpapers.core.claims import Measurement
from jaxpapers.core.stats import fit_loglog
from jaxpapers.fuxvit import attention, routing
from jaxpapers.fuxvit import data as data_lib
from jaxpapers.fuxvit.kernels.fsa import bench
from jaxpapers.fuxvit.kernels.fsa.reference import dense_block_causal, fsa_fine_reference
from jaxpapers.fuxvit.model import FuxViT
from jaxpapers.fuxvit.streaming import encode_streaming
from jaxpapers.fuxvit.tokenizer import images_to_clips


def _qkv(key: jax.Array, b: int, t: int, p: int, n: int, h: int, dtype=jnp.float32) -> tuple[jax.Array, ...]:
    return tuple(jax.random.normal(k, (b, t * p, n, h), dtype) for k in jax.random.split(key, 3))


def _rel(a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.linalg.norm((a - b).ravel()) / jnp.maximum(jnp.linalg.norm(b.ravel()), 1e-30)


# --------------------------------------------------------------------------------------------------
# F1: with k ≥ T−1 the fine branch equals dense frame-causal attention
# --------------------------------------------------------------------------------------------------


def full_history_is_frame_causal(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """Random q, k, v; routing with k = T−1 selects every earlier frame; the chunked reference is
    compared with ``dense_block_causal`` (``jax.nn.dot_product_attention`` + an explicit mask)."""
    e = cfg.exactness
    b, t, p, n, h = e.batch, e.frames, e.tokens_per_frame, e.heads, e.head_dim
    kq, kg = jax.random.split(key)
    q, k, v = _qkv(kq, b, t, p, n, h)
    cot = jax.random.normal(kg, q.shape)

    @jax.jit
    def compare(q, k, v, cot):
        sel, num_sel = routing.select_frames(routing.routing_logits(q, k, p), t - 1)
        fsa = lambda *a: fsa_fine_reference(*a, sel, p, chunk=e.chunk)  # noqa: E731
        dense = lambda *a: dense_block_causal(*a, p)  # noqa: E731
        o1, vjp1 = jax.vjp(fsa, q, k, v)
        o2, vjp2 = jax.vjp(dense, q, k, v)
        g1, g2 = vjp1(cot), vjp2(cot)
        grad_rel = jnp.max(jnp.stack([_rel(x, y) for x, y in zip(g1, g2, strict=True)]))
        full = jnp.all(num_sel == jnp.arange(1, t + 1))
        return jnp.max(jnp.abs(o1 - o2)), grad_rel, full

    fwd, grad_rel, full = jax.device_get(compare(q, k, v, cot))
    return Measurement(
        measured={"fwd_max_abs": float(fwd), "grad_rel": float(grad_rel)},
        predicted={"fwd_max_abs": "≤ 1e-5", "grad_rel": "≤ 1e-4"},
        n=b * n * t,
        details={"selection_is_full_history": bool(full), "shape": [b, t * p, n, h], "chunk": e.chunk},
    )


# --------------------------------------------------------------------------------------------------
# F2: an image (T = 1) is a plain ViT
# --------------------------------------------------------------------------------------------------


def image_is_vit(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """The same params through FuxViT (reference FSA) and through dense bidirectional attention, on
    images repeated to one tubelet: ``plain`` mode, and ``gated`` mode (the same gate in both)."""
    from jaxpapers.fuxvit.train import model_config

    base = model_config(cfg)
    c = cfg.image
    images = data_lib.to_float(data_lib.bundled_images(c.num_images, size=c.size, seed=cfg.seed))
    clips = jnp.asarray(images_to_clips(images, base.tubelet))
    gated = base.replace(fsa_mode="gated")
    params = jax.jit(FuxViT(gated).init)(key, clips)

    @jax.jit
    def run(params, clips):
        out = {}
        for mode in ("plain", "gated"):
            a = FuxViT(base.replace(fsa_mode=mode, attn_impl="reference")).apply(params, clips)
            d = FuxViT(base.replace(fsa_mode=mode, attn_impl="dense_full")).apply(params, clips)
            out[mode] = jnp.maximum(
                jnp.max(jnp.abs(a["tokens"] - d["tokens"])), jnp.max(jnp.abs(a["pooled"] - d["pooled"]))
            )
            out[f"{mode}_sel"] = a["sel"]
        return out

    out = jax.device_get(run(params, clips))
    own_only = bool(np.all(out["plain_sel"][..., 0] == 0) and np.all(out["plain_sel"][..., 1:] == -1))
    return Measurement(
        measured={"plain_max_abs": float(out["plain"]), "gated_max_abs": float(out["gated"])},
        predicted={"plain_max_abs": "≤ 1e-5", "gated_max_abs": "≤ 1e-5"},
        n=c.num_images,
        details={"selection_is_own_frame_only": own_only, "tokens_per_image": (c.size // base.patch) ** 2},
    )


# --------------------------------------------------------------------------------------------------
# F3: frame-level causality and streaming equivalence
# --------------------------------------------------------------------------------------------------


def frame_causal_streaming(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """(a) For every t, a clip whose frames > t are replaced by noise is encoded in one batch with the
    original: the tokens of frames ≤ t must not change. (b) ``encode_streaming`` in chunks of
    ``chunk`` frames against the per-layer cache equals the one-shot encoding."""
    from jaxpapers.fuxvit.train import model_config

    mc = model_config(cfg)
    s = cfg.streaming
    t, tp = s.frames, mc.tubelet
    k_clip, k_noise, k_init = jax.random.split(key, 3)
    clip = jax.random.uniform(k_clip, (1, t * tp, s.size, s.size, mc.channels))
    noise = jax.random.uniform(k_noise, (t - 1, t * tp, s.size, s.size, mc.channels))
    raw_frame = jnp.arange(t * tp) // tp  # tubelet frame of each raw frame
    cut = jnp.arange(t - 1)  # row r keeps frames ≤ r
    keep = raw_frame[None, :] <= cut[:, None]
    perturbed = jnp.where(keep[:, :, None, None, None], clip, noise)
    batch = jnp.concatenate([perturbed, clip])  # the original is the last row
    model = FuxViT(mc)
    params = jax.jit(model.init)(k_init, clip)
    tokens = jax.jit(model.apply)(params, batch)["tokens"]  # [T, T, P, D]
    frames = jnp.arange(t)
    past = frames[None, :] <= cut[:, None]  # [T−1, T]
    diff = jnp.max(jnp.abs(tokens[:-1] - tokens[-1:]), axis=(2, 3))  # [T−1, T] per frame
    causal_max = float(jnp.max(jnp.where(past, diff, 0.0)))
    future_min = float(jnp.min(jnp.where(past, jnp.inf, diff)))  # the perturbation did change frames > t
    chunks = [clip[:, i * tp : (i + s.chunk) * tp] for i in range(0, t, s.chunk)]
    streamed = encode_streaming(model, params, chunks, max_frames=t)["tokens"]
    stream_err = float(jnp.max(jnp.abs(streamed - tokens[-1:])))
    return Measurement(
        measured={"causal_max_abs": causal_max, "streaming_max_abs": stream_err},
        predicted={"causal_max_abs": "0 (≤ 1e-6)", "streaming_max_abs": "≤ 1e-5"},
        n=t - 1,
        details={"future_frames_min_change": future_min, "chunk_frames": s.chunk, "frames": t},
    )


# --------------------------------------------------------------------------------------------------
# F4: unselected frames are inert
# --------------------------------------------------------------------------------------------------


def unselected_frames_inert(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """With ``sel`` fixed, the K/V of each frame j in turn are overwritten by noise (vmapped over j);
    the output of frame i must not change when j ∉ S_i and must change when j ∈ S_i."""
    c = cfg.inert
    b, t, p, n, h = c.batch, c.frames, c.tokens_per_frame, c.heads, c.head_dim
    kq, kn = jax.random.split(key)
    q, k, v = _qkv(kq, b, t, p, n, h)
    nk, nv = jax.random.normal(kn, (2, b, p, n, h))

    @jax.jit
    def run(q, k, v):
        sel, _ = routing.select_frames(routing.routing_logits(q, k, p), c.k)
        base = fsa_fine_reference(q, k, v, sel, p)

        def overwrite(j):
            kj = jax.lax.dynamic_update_slice(k, nk, (0, j * p, 0, 0))
            vj = jax.lax.dynamic_update_slice(v, nv, (0, j * p, 0, 0))
            out = fsa_fine_reference(q, kj, vj, sel, p)
            d = jnp.abs(out - base).reshape(b, t, p, n, h)
            return jnp.max(d, axis=(2, 4)).transpose(0, 2, 1)  # [B, N, T(i)]

        diff = jax.vmap(overwrite)(jnp.arange(t))  # [T(j), B, N, T(i)]
        member = jnp.moveaxis(routing.selection_membership(sel, t), -1, 0)  # [T(j), B, N, T(i)]
        return diff, member

    diff, member = jax.device_get(run(q, k, v))
    return Measurement(
        measured={
            "unselected_max_diff": float(np.max(np.where(member, 0.0, diff))),
            "selected_min_diff": float(np.min(np.where(member, diff, np.inf))),
        },
        predicted={"unselected_max_diff": "0", "selected_min_diff": "> 0"},
        n=int(diff.size),
        details={"pairs_unselected": int((~member).sum()), "pairs_selected": int(member.sum()), "k": c.k},
    )


# --------------------------------------------------------------------------------------------------
# F6 / F11: linear FLOPs and memory (compiled analysis)
# --------------------------------------------------------------------------------------------------


def fsa_layer(q: jax.Array, k: jax.Array, v: jax.Array, *, P: int, k_frames: int) -> jax.Array:
    """One layer's routed attention: routing + fine branch (one query chunk: no loop) + coarse branch."""
    b, n_tok = q.shape[:2]
    t = n_tok // P
    seg, valid = routing.default_seg_valid(b, t, None, None)
    frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
    r = attention.route(
        routing.frame_summaries(q, P),
        routing.frame_summaries(k, P),
        head_dim=q.shape[-1],
        k_frames=k_frames,
        q_frames=frames,
        seg_q=seg,
        seg_k=seg,
        valid_k=valid,
    )
    fine = fsa_fine_reference(q, k, v, r.sel, P)
    coarse = attention.coarse_branch(r.logits, attention.value_summaries(v, P))  # [B, N, T, H]
    return fine + jnp.repeat(coarse.transpose(0, 2, 1, 3), P, axis=1).astype(fine.dtype)


@functools.cache
def _stats(kind: str, backward: bool, b: int, t: int, p: int, n: int, h: int, k: int) -> bench.CompiledStats:
    """Compiled FLOPs/memory of one layer's attention (cached: F6 and F11 share compilations)."""
    fn = (
        (lambda q, kk, v: fsa_layer(q, kk, v, P=p, k_frames=k))
        if kind == "fsa"
        else (lambda q, kk, v: dense_block_causal(q, kk, v, p))
    )
    if backward:
        f = fn
        fn = jax.grad(lambda q, kk, v: jnp.sum(f(q, kk, v)), argnums=(0, 1, 2))
    spec = jax.ShapeDtypeStruct((b, t * p, n, h), jnp.float32)
    return bench.compiled_stats(fn, spec, spec, spec)


def scaling_table(cfg: ml_collections.ConfigDict, backward: bool) -> dict[str, np.ndarray]:
    """Compiled FLOPs and temp bytes of FSA and dense frame-causal attention for every T of the config."""
    s = cfg.scaling
    rows = {
        kind: [_stats(kind, backward, s.batch, t, s.tokens_per_frame, s.heads, s.head_dim, s.k) for t in s.frames]
        for kind in ("fsa", "dense")
    }
    return {
        "frames": np.asarray(s.frames, np.float64),
        **{f"{kind}_flops": np.array([r.flops for r in rows[kind]]) for kind in rows},
        **{f"{kind}_temp_bytes": np.array([r.temp_bytes for r in rows[kind]], np.float64) for kind in rows},
    }


def linear_attention_flops(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F6: log-log slopes of compiled forward FLOPs vs T (P, k fixed) for FSA and dense frame-causal,
    with the analytic counts of ``kernels/fsa/bench.py`` alongside."""
    del key
    s = cfg.scaling
    tab = scaling_table(cfg, backward=False)
    dim = s.heads * s.head_dim
    analytic_fsa = (
        np.array(
            [
                bench.fsa_fine_flops(bench.selected_frames_per_query(t, s.k), s.tokens_per_frame, dim)
                + bench.routing_coarse_flops(t, dim)
                for t in s.frames
            ]
        )
        * s.batch
    )
    analytic_dense = np.array([bench.frame_causal_flops(t, s.tokens_per_frame, dim) for t in s.frames]) * s.batch
    fsa_fit, dense_fit = fit_loglog(tab["frames"], tab["fsa_flops"]), fit_loglog(tab["frames"], tab["dense_flops"])
    fig, ax = plots.figure()
    plots.loglog_fit(ax, tab["frames"], tab["fsa_flops"], fsa_fit, label="FSA (compiled)", predicted_slope=1.0)
    plots.loglog_fit(ax, tab["frames"], tab["dense_flops"], dense_fit, label="dense frame-causal (compiled)")
    ax.set_xlabel(f"frames T (P = {s.tokens_per_frame}, k = {s.k})")
    ax.set_ylabel("forward FLOPs of one attention layer")
    return Measurement(
        measured={"fsa_slope": fsa_fit.slope, "dense_slope": dense_fit.slope},
        predicted={"fsa_slope": 1.0, "dense_slope": 2.0},
        stderr={"fsa_slope": fsa_fit.stderr, "dense_slope": dense_fit.stderr},
        n=len(s.frames),
        details={
            "frames": tab["frames"].tolist(),
            "fsa_flops": tab["fsa_flops"].tolist(),
            "dense_flops": tab["dense_flops"].tolist(),
            "fsa_compiled_over_analytic": (tab["fsa_flops"] / analytic_fsa).tolist(),
            "dense_compiled_over_analytic": (tab["dense_flops"] / analytic_dense).tolist(),
            "fsa_slope_ci95": fsa_fit.ci95,
            "dense_slope_ci95": dense_fit.ci95,
        },
        figures={"flops": fig},
    )


def linear_memory(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F11: log-log slopes of the compiled temp memory of forward + backward vs T."""
    del key
    s = cfg.scaling
    tab = scaling_table(cfg, backward=True)
    fsa_fit = fit_loglog(tab["frames"], tab["fsa_temp_bytes"])
    dense_fit = fit_loglog(tab["frames"], tab["dense_temp_bytes"])
    fig, ax = plots.figure()
    plots.loglog_fit(ax, tab["frames"], tab["fsa_temp_bytes"], fsa_fit, label="FSA fwd+bwd", predicted_slope=1.0)
    plots.loglog_fit(ax, tab["frames"], tab["dense_temp_bytes"], dense_fit, label="dense frame-causal fwd+bwd")
    ax.set_xlabel(f"frames T (P = {s.tokens_per_frame}, k = {s.k})")
    ax.set_ylabel("XLA temp bytes")
    return Measurement(
        measured={"fsa_slope": fsa_fit.slope, "dense_slope": dense_fit.slope},
        predicted={"fsa_slope": 1.0, "dense_slope": 2.0},
        stderr={"fsa_slope": fsa_fit.stderr, "dense_slope": dense_fit.stderr},
        n=len(s.frames),
        details={
            "frames": tab["frames"].tolist(),
            "fsa_temp_bytes": tab["fsa_temp_bytes"].tolist(),
            "dense_temp_bytes": tab["dense_temp_bytes"].tolist(),
            "fsa_slope_ci95": fsa_fit.ci95,
            "dense_slope_ci95": dense_fit.ci95,
        },
        figures={"memory": fig},
    )


# --------------------------------------------------------------------------------------------------
# F7 / F8: trained tiny models
# --------------------------------------------------------------------------------------------------


def _task(cfg: ml_collections.ConfigDict) -> dict[str, Any]:
    """Train/eval data and initial params of a task config (shared: every impl uses the same)."""
    from jaxpapers.fuxvit.train import init_params, task_data

    def build() -> dict[str, Any]:
        train_set = task_data(cfg, cfg.data.num_train, cfg.seed)
        return {
            "train_set": train_set,
            "eval_set": task_data(cfg, cfg.data.num_eval, cfg.seed + 1),
            "params": init_params(cfg, train_set),  # the param tree is the same for every impl
        }

    return memo.shared("fuxvit/task", cfg, fn=build)


def trained(cfg: ml_collections.ConfigDict, impl: str) -> dict[str, Any]:
    """Trains the classifier of ``cfg`` with attention ``impl`` through the shared trainer and evaluates
    it on the held-out set: ``{"history", "accuracy", "sel"}``.

    Every impl of one config trains on the same data from the same initial params. Results are shared
    in-process (``core.memo``), so claims that compare the same run against different baselines
    (F7a/F7b) train it once.
    """
    from jaxpapers.fuxvit.train import classifier, evaluate_classifier, train

    def run() -> dict[str, Any]:
        task = _task(cfg)
        over = {"model.attn_impl": impl, **({"model.k_frames": 0} if impl == "static" else {})}
        cfg_i = config_lib.apply_overrides(cfg, over)
        result = train(cfg_i, None, progress=False, data=task["train_set"], params=task["params"], evaluate=False)
        ev = evaluate_classifier(classifier(cfg_i), result.state.params, task["eval_set"])
        return {"history": result.history, **ev}

    return memo.shared("fuxvit/trained", cfg, impl, fn=run)


def _curves(runs: dict[str, Any], title: str):
    fig, ax = plots.figure()
    for impl, r in runs.items():
        steps = [h["step"] for h in r["history"] if "loss" in h]
        ax.plot(steps, [h["loss"] for h in r["history"] if "loss" in h], label=f"{impl} (acc {r['accuracy']:.2f})")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(title)
    ax.legend(fontsize=7)
    return fig


def _recall(cfg: ml_collections.ConfigDict, fsa: dict[str, Any]) -> dict[str, Any]:
    sel = jnp.asarray(fsa["sel"])  # [L, B, N, T, K]
    needle = jnp.asarray(_task(cfg)["eval_set"]["needle_frame"])
    t = cfg.data.frames
    return {
        "recall_per_layer": [float(routing.routing_recall(layer, needle)) for layer in sel],
        "chance_recall": routing.recall_chance(cfg.model.k_frames, t - 1, cfg.model.num_heads),
        "entropy_per_layer": [float(routing.routing_entropy(layer, t)) for layer in sel],
    }


def needle_routing(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F7a: FSA (gated, k = 2) learns the needle task; routing recall of its router (the spec's first
    layer, and the last layer; last frame, any head) is reported against a random router's chance."""
    del key  # the config's seed drives data and init
    fsa = trained(cfg, cfg.model.attn_impl)
    rec = _recall(cfg, fsa)
    return Measurement(
        measured={
            "acc_fsa": fsa["accuracy"],
            "routing_recall": rec["recall_per_layer"][0],
            "routing_recall_last_layer": rec["recall_per_layer"][-1],
        },
        predicted={
            "acc_fsa": f"≥ {cfg.min_accuracy}",
            "routing_recall": f"reported (chance {rec['chance_recall']:.3g})",
            "routing_recall_last_layer": f"reported (chance {rec['chance_recall']:.3g})",
        },
        n=cfg.data.num_eval,
        details={"chance_accuracy": 1.0 / cfg.data.num_classes, **rec, "steps": cfg.train.steps},
        figures={"loss": _curves({"fsa": fsa}, "needle task")},
    )


def needle_static(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F7c: the static per-frame ViT (k = 0) on the needle task: it never sees the needle frame."""
    del key
    static = trained(cfg, "static")
    chance = 1.0 / cfg.data.num_classes
    return Measurement(
        measured=static["accuracy"],
        predicted=f"≤ {chance + cfg.static_margin:.3g} (chance {chance:.3g})",
        n=cfg.data.num_eval,
        details={"chance_accuracy": chance, "steps": cfg.train.steps},
        figures={"loss": _curves({"static": static}, "needle task")},
    )


def needle_sparse_vs_dense(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F7b: FSA (k = 2 of 7 history frames) against dense frame-causal attention on the needle task."""
    del key
    fsa, dense = trained(cfg, cfg.model.attn_impl), trained(cfg, "dense_causal")
    return Measurement(
        measured={
            "fsa_minus_dense": fsa["accuracy"] - dense["accuracy"],
            "acc_fsa": fsa["accuracy"],
            "acc_dense": dense["accuracy"],
        },
        predicted={"fsa_minus_dense": f"≥ −{cfg.max_gap_to_dense}", "acc_fsa": "≈ acc_dense", "acc_dense": "≈ 1"},
        n=cfg.data.num_eval,
        details={"steps": cfg.train.steps, **_recall(cfg, fsa)},
        figures={"loss": _curves({"fsa": fsa, "dense_causal": dense}, "needle task")},
    )


def motion_fuxvit(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F8a: FuxViT (gated FSA, k = 2, t_p = 1) classifies motion direction from mean-pooled tokens."""
    del key
    fux = trained(cfg, cfg.model.attn_impl)
    return Measurement(
        measured=fux["accuracy"],
        predicted=f"≥ {cfg.min_accuracy}",
        n=cfg.data.num_eval,
        details={
            "chance_accuracy": 1.0 / cfg.data.num_classes,
            "steps": cfg.train.steps,
            "final_train_loss": fux["history"][-1]["loss"],
        },
        figures={"loss": _curves({"fuxvit": fux}, "motion direction")},
    )


def motion_static(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F8b: the static per-frame ViT (k = 0, t_p = 1, RoPE only) on motion direction."""
    del key
    static = trained(cfg, "static")
    return Measurement(
        measured=static["accuracy"],
        predicted=f"≤ {cfg.max_static_accuracy}",
        n=cfg.data.num_eval,
        details={"chance_accuracy": 1.0 / cfg.data.num_classes, "steps": cfg.train.steps},
        figures={"loss": _curves({"static": static}, "motion direction")},
    )


# --------------------------------------------------------------------------------------------------
# F9: sharded step = single-device step
# --------------------------------------------------------------------------------------------------


def sharded_equals_single(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """One AdamW step on 8 (emulated) devices vs one device, in a subprocess with 8 CPU devices."""
    del key
    from jaxpapers.core.multidevice import run_with_devices

    if cfg.emulate_devices:
        res = run_with_devices(
            "jaxpapers.fuxvit.sharded:compare_steps", num_devices=cfg.num_devices, kwargs={"preset": cfg.preset}
        )
    else:
        from jaxpapers.core.errors import ClaimSkipped
        from jaxpapers.fuxvit.sharded import compare_steps

        if jax.device_count() < cfg.num_devices:
            raise ClaimSkipped(f"needs {cfg.num_devices} devices; found {jax.device_count()}")
        res = compare_steps(cfg.preset)
    return Measurement(
        measured={"loss_rel": res["loss_rel"], "grad_rel": res["grad_rel"], "param_rel": res["param_rel"]},
        predicted={"loss_rel": "≤ 1e-5", "grad_rel": "≤ 1e-5", "param_rel": "≤ 1e-5"},
        details={"mesh": res["mesh"], "loss": res["loss"], "param_specs": res["param_specs"]},
    )
