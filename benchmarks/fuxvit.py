"""Benchmark: Frame Selective Attention (fine branch, forward + backward) against dense causal attention,
measured in the same run (claim F10; spec "benchmarks/fsa.py").

On a GPU (the F10 setting: N = T·P up to 65,536 tokens, P = 256, k = 8, 16 heads of 64, bf16):
  1. checks the Pallas kernel against the pure-JAX reference (float32, output and gradients) at a small
     shape and stops if it disagrees, so no time is reported for a wrong kernel;
  2. times fwd+bwd of ``fsa_pallas`` (our Triton kernel), ``dense_cudnn``
     (``jax.nn.dot_product_attention(is_causal=True, implementation="cudnn")``) and ``dense_pallas``
     (JAX's Pallas ``mha(causal=True)``) at N = 4K … 64K, and prints useful TFLOP/s, the speed-up over
     cuDNN causal (F10: ≥ 5×) and FSA's TFLOP/s over Pallas-dense TFLOP/s (F10: ≥ 0.6).
On a CPU (no GPU number is ever printed from a CPU): the pure-JAX reference FSA against XLA's dense causal
attention at a CPU-sized shape, as a ratio; the GPU-only rows are reported as skipped.

    .venv/bin/python benchmarks/fuxvit.py            # or: jaxpapers bench fuxvit
    .venv/bin/python benchmarks/fuxvit.py --json out.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

import jax

from jaxpapers.core.bench import report_ratio
from jaxpapers.fuxvit.kernels.fsa import speed

GPU_TOKENS = (4096, 8192, 16384, 32768, 65536)
CHECK = speed.SpeedShape(frames=8, tokens_per_frame=256, heads=2, head_dim=64, k=3, dtype="float32")
CHECK_TOL = {"out": 2e-5, "dq": 1e-4, "dk": 1e-4, "dv": 1e-4}  # F5's fp32 pass line, absolute here
CPU_SHAPE = speed.SpeedShape(frames=32, tokens_per_frame=64, heads=4, head_dim=32, k=4, dtype="float32")


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
    return {"check": err, "rows": rows}


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
    print(f"skipped on {jax.default_backend()}: {', '.join(speed.GPU_ONLY)} (GPU only; F10 needs an H200)")
    return {"cpu": {k: v for k, v in t.items()}, "speedup": ratio}


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
