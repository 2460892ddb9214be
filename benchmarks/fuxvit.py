"""Benchmark: Frame Selective Attention (fine branch, forward + backward) against dense causal attention,
measured in the same run (claim F10; spec "benchmarks/fsa.py").

On a GPU (the F10 setting: N = T·P up to 65,536 tokens, P = 256, k = 8, 16 heads of 64, bf16):
  1. checks the Pallas kernel against the pure-JAX reference (float32, output and gradients) at a small
     shape and stops if it disagrees, so no time is reported for a wrong kernel;
  2. times fwd+bwd of ``fsa_pallas`` (our Triton kernel), ``dense_cudnn``
     (``jax.nn.dot_product_attention(is_causal=True, implementation="cudnn")``) and ``dense_pallas``
     (JAX's Pallas ``mha(causal=True)``) at N = 4K … 64K, and prints useful TFLOP/s, the speed-up over
     cuDNN causal (F10: ≥ 5×) and FSA's TFLOP/s over Pallas-dense TFLOP/s (F10: ≥ 0.6).
  3. the MFU of a FuxViT-B/16 training step (the F8c full preset's model on 32 RGB frames of 256 px:
     8,192 tokens a clip, P = 256 as in F10, gated FSA with k = 8 through the Pallas kernel, bf16, batch 8):
     model FLOPs counted analytically (``model_flops``: 6 x matmul params x tokens, plus 3 x the *useful*
     FSA FLOPs, spec "MFU anchors") over the median step time, against the device's dense bf16 peak
     (989 TFLOP/s on H100 SXM / H200).
On a CPU (no GPU number is ever printed from a CPU): the pure-JAX reference FSA against XLA's dense causal
attention at a CPU-sized shape, as a ratio; the training step of the tiny FuxViT (reference FSA) with its
FLOP count, as a check of the MFU path (no MFU: there is no peak to divide by); the GPU-only rows are
reported as skipped.

    .venv/bin/python benchmarks/fuxvit.py            # or: jaxpapers bench fuxvit
    .venv/bin/python benchmarks/fuxvit.py --json out.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from typing import Any

import flax.linen as nn
import jax
import numpy as np

from jaxpapers.core import config
from jaxpapers.core.bench import report_ratio
from jaxpapers.core.train import TrainState, make_train_step
from jaxpapers.fuxvit import train
from jaxpapers.fuxvit.kernels.fsa import bench, speed

GPU_TOKENS = (4096, 8192, 16384, 32768, 65536)
CHECK = speed.SpeedShape(frames=8, tokens_per_frame=256, heads=2, head_dim=64, k=3, dtype="float32")
CHECK_TOL = {"out": 2e-5, "dq": 1e-4, "dk": 1e-4, "dv": 1e-4}  # F5's fp32 pass line, absolute here
CPU_SHAPE = speed.SpeedShape(frames=32, tokens_per_frame=64, heads=4, head_dim=32, k=4, dtype="float32")
# dense bf16 peak, TFLOP/s (NVIDIA datasheets; spec "Dense throughput anchors"), by device_kind substring
PEAK_BF16_TFLOPS = {"H200": 989.4, "H100": 989.4}
# P = 256 tokens a frame (256 px at patch 16, as F10): the kernel needs P divisible by a power of two >= 16
MFU_GPU = {
    "preset": "full,variant=rgb",
    "data.size": 256,
    "model.attn_impl": "pallas",
    "model.dtype": "bfloat16",
    "train.batch_size": 8,
}
MFU_CPU = {"preset": "tiny,variant=rgb", "model.attn_impl": "reference", "train.batch_size": 4}


def model_flops(params, cfg, batch: int) -> float:
    """Useful FLOPs of one training step (forward + backward = 3 x forward, 2 FLOPs per multiply-add):
    every ``kernel`` of the encoder applied to every token, the head to the pooled token, and per layer
    the FSA fine branch over the frames each query frame selected plus, gated, the coarse branch
    (``bench``'s counts: 4·P²·D·Σ|S_i| and 4·T²·D)."""
    m, d = cfg.model, cfg.data
    frames = d.frames // m.tubelet
    per_frame = (d.size // m.patch) ** 2
    kernels = {  # matmul parameters: the head's, and everything else (patch embed, attention, MLP)
        part: sum(
            int(np.prod(x.shape))
            for path, x in jax.tree_util.tree_flatten_with_path(params)[0]
            if path[-1].key == "kernel" and (path[0].key == "head") == (part == "head")
        )
        for part in ("head", "encoder")
    }
    attention = bench.fsa_fine_flops(bench.selected_frames_per_query(frames, m.k_frames), per_frame, m.dim)
    if m.fsa_mode == "gated":
        attention += bench.routing_coarse_flops(frames, m.dim)
    forward = 2.0 * kernels["encoder"] * frames * per_frame + 2.0 * kernels["head"] + m.depth * attention
    return 3.0 * forward * batch


def training_step(overrides: dict) -> tuple[Any, dict, Any, Any]:
    """``(cfg, one batch, optimizer, step(state, batch))`` of ``configs/fuxvit/motion.py`` with ``overrides``
    (``preset`` may name the variant: ``"full,variant=rgb"``); the step is ``core.train.make_train_step``'s."""
    preset, rest = overrides["preset"], {k: v for k, v in overrides.items() if k != "preset"}
    cfg = config.apply_overrides(config.load("fuxvit/motion", f"preset={preset}"), rest)
    arrays = train.task_data(cfg, cfg.train.batch_size, seed=0)
    tx = train.optimizer(cfg)
    return cfg, arrays, tx, make_train_step(train.make_classify_loss_fn(train.classifier(cfg)), tx)


def train_step_mfu(overrides: dict, key: jax.Array, *, steps: int = 10) -> dict:
    """Median seconds of a jitted FuxViT training step (``configs/fuxvit/motion.py`` with ``overrides``),
    its model FLOPs, achieved TFLOP/s, and the MFU where the device's peak is known."""
    cfg, arrays, tx, step_fn = training_step(overrides)
    batch = cfg.train.batch_size
    params = nn.unbox(jax.jit(train.init_fn(cfg, arrays))(key))
    flops = model_flops(params, cfg, batch)
    state = TrainState.create(params, tx, key)
    step = jax.jit(step_fn, donate_argnums=0)
    state, _ = step(state, arrays)  # compile
    jax.block_until_ready(state)
    seconds = []
    for _ in range(steps):
        t0 = time.perf_counter()
        state, metrics = step(state, arrays)
        jax.block_until_ready(metrics)
        seconds.append(time.perf_counter() - t0)
    sec = float(np.median(seconds))
    kind = str(jax.devices()[0].device_kind)
    peak = next((v for name, v in PEAK_BF16_TFLOPS.items() if name in kind), None)
    out = {"config": overrides, "seconds": sec, "model_tflop": flops / 1e12, "tflops": flops / sec / 1e12}
    if peak is not None and jax.default_backend() == "gpu":
        out["mfu"] = out["tflops"] / peak
    mfu = f", MFU {out['mfu']:.1%} of {peak} TFLOP/s" if "mfu" in out else " (no MFU: no peak known for this device)"
    print(
        f"FuxViT training step {overrides}: {sec * 1e3:.1f} ms, {flops / 1e12:.4f} TFLOP, "
        f"{out['tflops']:.3g} TFLOP/s{mfu}"
    )
    return out


def run_gpu(key: jax.Array) -> dict:
    err = speed.check_against_reference(CHECK, key)
    print(f"check fsa_pallas vs reference (fp32, {CHECK}): " + ", ".join(f"{k} {v:.1e}" for k, v in err.items()))
    if any(err[k] > tol for k, tol in CHECK_TOL.items()):
        sys.exit("the Pallas kernel disagrees with the reference: no timings reported")
    rows = []
    for n_tok in GPU_TOKENS:
        s = speed.SpeedShape(frames=n_tok // 256, tokens_per_frame=256, heads=16, head_dim=64, k=8)
        t = speed.time_impls(s, ("fsa_pallas", "dense_cudnn", "dense_pallas"), key)
        row = {"tokens": n_tok, **{f"{i}_{m}": v[m] for i, v in t.items() for m in ("seconds", "tflops")}}
        row["speedup_vs_cudnn"] = t["dense_cudnn"]["seconds"] / t["fsa_pallas"]["seconds"]
        row["tflops_ratio_vs_pallas_dense"] = t["fsa_pallas"]["tflops"] / t["dense_pallas"]["tflops"]
        rows.append(row)
        print(
            f"N={n_tok:6d}: FSA {t['fsa_pallas']['seconds'] * 1e3:8.2f} ms ({t['fsa_pallas']['tflops']:6.1f} TFLOP/s)  "
            f"cuDNN causal {t['dense_cudnn']['seconds'] * 1e3:8.2f} ms ({t['dense_cudnn']['tflops']:6.1f})  "
            f"Pallas mha causal {t['dense_pallas']['seconds'] * 1e3:8.2f} ms ({t['dense_pallas']['tflops']:6.1f})  "
            f"speed-up vs cuDNN {row['speedup_vs_cudnn']:.1f}x (F10 ≥ 5x), "
            f"TFLOP/s vs Pallas-dense {row['tflops_ratio_vs_pallas_dense']:.2f} (F10 ≥ 0.6)"
        )
    return {"check": err, "rows": rows, "train_step": train_step_mfu(MFU_GPU, key)}


def run_cpu(key: jax.Array) -> dict:
    s = CPU_SHAPE
    t = speed.time_impls(s, ("fsa_reference", "dense_xla"), key, repeats=5)
    print(f"CPU shape: {s}")
    ratio = report_ratio(
        f"FSA fine fwd+bwd vs dense causal, N={s.frames * s.tokens_per_frame}",
        t["dense_xla"]["seconds"],
        t["fsa_reference"]["seconds"],
        baseline="dense causal (XLA)",
        candidate="FSA reference",
    )
    step = train_step_mfu(MFU_CPU, key, steps=3)
    print(f"skipped on {jax.default_backend()}: {', '.join(speed.GPU_ONLY)} and the MFU (GPU only; F10 needs an H200)")
    return {"cpu": {k: v for k, v in t.items()}, "speedup": ratio, "train_step": step}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the results to this JSON file")
    args = ap.parse_args()
    key = jax.random.key(0)
    header = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "device": str(jax.devices()[0].device_kind),
    }
    print(" | ".join(f"{k} {v}" for k, v in header.items()))
    result = run_gpu(key) if jax.default_backend() == "gpu" else run_cpu(key)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**header, **result}, f, indent=1)


if __name__ == "__main__":
    main()
