"""F5 and F10: the Pallas FSA kernel against the reference, and its speed against dense attention.

* F5 (``measure_parity``): for each shape of the grid, random q, k, v, routed ``sel`` (with packing
  and padding frames where the case says so), and random cotangents for O *and* the LSE; the kernel
  (``pallas_gpu.fsa_fine``: interpret mode on a CPU, compiled on a GPU) against the pure-JAX
  reference (``fsa_fine_reference(return_lse=True)``, autodiff). Measured: the worst forward max-abs
  error (O and LSE) and the worst relative gradient error (max |Δ| / max(1, max |ref|), over dq, dk, dv)
  over the grid. The grid covers −1 padding and num_sel < S_max (k < T−1), k ≥ T−1, several key and
  query sub-tiles per frame, and a padded head dim (24 → 32).
* F10 (``measure_speed``, GPU only): fwd+bwd time of the kernel against cuDNN causal and the Pallas
  dense ``mha`` at the spec's 64K-token shape (``kernels/fsa/speed.py``), after checking the kernel
  against the reference at a small shape.

Letters: B batch, N heads, T frames, P tokens per frame, H head dim, K selection slots.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.kernels.fsa import pallas_gpu, speed
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference

LOG2E = math.log2(math.e)


@dataclasses.dataclass(frozen=True)
class ParityGrid:
    """F5's shapes: each case is (batch, heads, frames, tokens_per_frame, head_dim, k, packed, block)
    with ``block`` the query/key tile of all kernels (0: the default, min(64, P))."""

    cases: tuple[tuple[int, int, int, int, int, int, bool, int], ...] = ((1, 2, 3, 16, 16, 1, False, 0),)

    def __post_init__(self):
        object.__setattr__(self, "cases", tuple(tuple(c) for c in self.cases))  # lists from a ConfigDict
        if not self.cases:
            raise ConfigError("parity.cases is empty; give at least one (B, N, T, P, H, k, packed, block) case")
        for case in self.cases:
            if len(case) != 8:
                raise ConfigError(f"parity case {case!r} must have 8 entries (B, N, T, P, H, k, packed, block)")
            for name, value in zip(("batch", "heads", "frames", "tokens_per_frame", "head_dim"), case[:5], strict=True):
                check_range(name, value, 1)
            check_range("k", case[5], 0)


def parity_inputs(case: tuple, key: jax.Array) -> dict[str, jax.Array]:
    """Random q, k, v [B, T·P, N, H], cotangents for O and the LSE, and the routing of one case."""
    b, n, t, p, h, k, packed, _ = case
    ks = jax.random.split(key, 5)
    q, kk, v, do = (jax.random.normal(x, (b, t * p, n, h)) for x in ks[:4])
    dlse = jax.random.normal(ks[4], (b, n, t * p))
    seg = valid = None
    if packed:  # two segments per row and a padding frame at the end
        seg = jnp.broadcast_to((jnp.arange(t) >= t // 2).astype(jnp.int32), (b, t))
        valid = jnp.broadcast_to(jnp.arange(t) < t - 1, (b, t))
    sel, num_sel = routing.select_frames(routing.routing_logits(q, kk, p, seg, valid), k, seg, valid=valid)
    return {"q": q, "k": kk, "v": v, "do": do, "dlse": dlse, "sel": sel, "num_sel": num_sel}


def kernel_and_reference(x: dict[str, jax.Array], *, P: int, blocks: pallas_gpu.BlockSizes, interpret: bool) -> dict:
    """Outputs, log2-domain LSEs and VJPs (of the O and LSE cotangents) of the kernel and the reference."""

    def kernel(q, k, v):
        return pallas_gpu.fsa_fine(q, k, v, x["sel"], x["num_sel"], P, block_sizes=blocks, interpret=interpret)

    def reference(q, k, v):
        o, lse = fsa_fine_reference(q, k, v, x["sel"], P, return_lse=True)
        return o, lse * LOG2E

    out = {}
    for name, fn in (("kernel", kernel), ("reference", reference)):
        (o, lse), vjp = jax.vjp(fn, x["q"], x["k"], x["v"])
        dlse = jnp.where(jnp.isfinite(lse), x["dlse"], 0.0)
        out[name] = {"o": o, "lse": lse, "grads": vjp((x["do"], dlse))}
    return out


run_parity = jax.jit(kernel_and_reference, static_argnames=("P", "blocks", "interpret"))


def parity_errors(out: dict) -> dict[str, float]:
    """Forward max-abs errors (O, finite LSE) and relative gradient errors of the kernel."""
    got, ref = out["kernel"], out["reference"]
    finite = np.isfinite(np.asarray(ref["lse"]))
    same_inf = bool(np.array_equal(np.isfinite(np.asarray(got["lse"])), finite))
    with np.errstate(invalid="ignore"):  # −inf − (−inf) on empty rows, masked out
        lse_err = np.abs(np.where(finite, np.asarray(got["lse"]) - np.asarray(ref["lse"]), 0.0))
    errs = {
        "o": float(np.max(np.abs(np.asarray(got["o"]) - np.asarray(ref["o"])))),
        "lse": float(np.max(lse_err, initial=0.0)) if same_inf else float("inf"),
    }
    for name, g, r in zip(("dq", "dk", "dv"), got["grads"], ref["grads"], strict=True):
        g, r = np.asarray(g), np.asarray(r)
        errs[name] = float(np.max(np.abs(g - r)) / max(1.0, float(np.max(np.abs(r)))))
    return errs


def measure_parity(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F5: the worst forward and gradient errors of the kernel against the reference over the grid."""
    grid = to_dataclass(ParityGrid, cfg.parity)
    interpret = jax.default_backend() != "gpu"
    per_case = []
    for case, k in zip(grid.cases, jax.random.split(key, len(grid.cases)), strict=True):
        p, block = case[3], case[7]
        blocks = pallas_gpu.BlockSizes(*(block or None,) * 4)
        x = parity_inputs(case, k)
        errs = parity_errors(jax.device_get(run_parity(x, P=p, blocks=blocks, interpret=interpret)))
        per_case.append({"case": list(case), "padded_rows": int(np.sum(x["num_sel"] < x["sel"].shape[-1])), **errs})
    fwd = max(max(c["o"], c["lse"]) for c in per_case)
    grad = max(max(c["dq"], c["dk"], c["dv"]) for c in per_case)
    return Measurement(
        measured={"fwd_max_abs": fwd, "grad_rel": grad},
        n=len(per_case),
        details={"mode": "interpret" if interpret else "compiled", "cases": per_case},
    )


def measure_speed(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F10 (GPU only): speed-up of the kernel over cuDNN causal and its TFLOP/s over Pallas-dense's."""
    s = to_dataclass(speed.SpeedShape, cfg.speed)
    check = to_dataclass(speed.SpeedShape, cfg.speed_check)
    err = speed.check_against_reference(check, key)
    details: dict[str, Any] = {"check_vs_reference_fp32": err, "shape": dataclasses.asdict(s)}
    t = speed.time_impls(s, ("fsa_pallas", "dense_cudnn", "dense_pallas"), key)
    details["timings"] = t
    return Measurement(
        measured={
            "speedup_vs_cudnn": t["dense_cudnn"]["seconds"] / t["fsa_pallas"]["seconds"],
            "tflops_ratio_vs_pallas_dense": t["fsa_pallas"]["tflops"] / t["dense_pallas"]["tflops"],
            "check_max_err": max(err.values()),
        },
        details=details,
    )
