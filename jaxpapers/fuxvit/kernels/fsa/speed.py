"""Forward+backward timing of FSA against dense causal attention (claim F10, ``benchmarks/fuxvit.py``).

Letters: B batch, N heads, T frames, P tokens per frame, H head dim, K selection slots.

Every implementation is timed as one jitted VJP (forward and backward of q, k, v for a fixed output
cotangent), after a warm-up (compilation) and with ``block_until_ready``; the implementations are timed
in alternation (``core.bench.time_interleaved``), median of ``repeats`` rounds, all in the same process.
FLOPs are *useful* FLOPs (2 per multiply-add; the backward counts as twice the forward, i.e. its
recomputation of the probabilities is not counted):

* FSA fine branch: 4·P²·(N·H)·Σ_i |S_i| forward (only the selected frames);
* dense causal (token-causal, what cuDNN and the Pallas ``mha`` run): 2·(T·P)²·(N·H) forward.

Implementations: ``fsa_reference`` (pure JAX), ``fsa_pallas`` (the Triton kernel; GPU only),
``dense_xla`` (``jax.nn.dot_product_attention(is_causal=True)``, XLA), ``dense_cudnn`` (same with
``implementation="cudnn"``; GPU only), ``dense_pallas`` (JAX's Pallas ``mha(causal=True)``; GPU only).
Routing (``sel``) is computed once, outside the timed function, as in the model.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.bench import time_interleaved
from jaxpapers.core.checks import check_choice
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.kernels.fsa import pallas_gpu
from jaxpapers.fuxvit.kernels.fsa.bench import fsa_fine_flops
from jaxpapers.fuxvit.kernels.fsa.compat import pallas_mha
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference

IMPLS: tuple[str, ...] = ("fsa_reference", "fsa_pallas", "dense_xla", "dense_cudnn", "dense_pallas")
GPU_ONLY: tuple[str, ...] = ("fsa_pallas", "dense_cudnn", "dense_pallas")


@dataclasses.dataclass(frozen=True)
class SpeedShape:
    """One attention layer: q, k, v [batch, frames·tokens_per_frame, heads, head_dim] in ``dtype``."""

    batch: int = 1
    frames: int = 256
    tokens_per_frame: int = 256
    heads: int = 16
    head_dim: int = 64
    k: int = 8
    dtype: str = "bfloat16"
    query_chunk: int | None = 16  # the reference's lax.map chunk (bounds its memory at 64K tokens)


def make_inputs(s: SpeedShape, key: jax.Array) -> dict[str, jax.Array]:
    """q, k, v, a cotangent, and the routing (sel, num_sel) of random inputs."""
    shape = (s.batch, s.frames * s.tokens_per_frame, s.heads, s.head_dim)
    ks = jax.random.split(key, 4)
    q, k, v, do = (jax.random.normal(x, shape, jnp.float32).astype(s.dtype) for x in ks)
    route = jax.jit(
        lambda q, k: routing.select_frames(routing.routing_logits(q, k, s.tokens_per_frame), s.k),
    )
    sel, num_sel = route(q, k)
    return {"q": q, "k": k, "v": v, "do": do, "sel": sel, "num_sel": num_sel}


def attention_fn(impl: str, s: SpeedShape, sel: jax.Array, num_sel: jax.Array) -> Callable[..., jax.Array]:
    """q, k, v → output of ``impl`` (sel fixed)."""
    check_choice("impl", impl, IMPLS)
    P = s.tokens_per_frame
    if impl == "fsa_reference":
        return lambda q, k, v: fsa_fine_reference(q, k, v, sel, P, chunk=s.query_chunk)
    if impl == "fsa_pallas":
        blocks = pallas_gpu.BlockSizes(block_q=64, block_k=64, block_q_dkv=64, block_k_dkv=64)
        return lambda q, k, v: pallas_gpu.fsa_fine(q, k, v, sel, num_sel, P, block_sizes=blocks)[0]
    if impl == "dense_xla":
        return lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True)
    if impl == "dense_cudnn":
        return lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="cudnn")
    return lambda q, k, v: pallas_mha(q, k, v, causal=True, sm_scale=s.head_dim**-0.5)


def fwd_bwd(fn: Callable[..., jax.Array]) -> Callable[..., Any]:
    """A jitted forward + backward: (q, k, v, dO) → (dq, dk, dv)."""
    return jax.jit(lambda q, k, v, do: jax.vjp(fn, q, k, v)[1](do))


def useful_flops(impl: str, s: SpeedShape, num_sel: np.ndarray | jax.Array) -> float:
    """Useful forward + backward FLOPs (3 × forward) of one layer, all heads and the batch."""
    width = s.heads * s.head_dim
    if impl.startswith("fsa"):
        fwd = fsa_fine_flops(np.asarray(num_sel) / s.heads, s.tokens_per_frame, width)
    else:
        n = s.frames * s.tokens_per_frame
        fwd = 2.0 * n * n * width * s.batch
    return 3.0 * fwd


def time_impls(
    s: SpeedShape, impls: tuple[str, ...], key: jax.Array, *, repeats: int = 20
) -> dict[str, dict[str, float]]:
    """Median fwd+bwd seconds and useful TFLOP/s of each of ``impls``, timed in alternation over ``repeats``
    rounds (``core.bench.time_interleaved``: every impl sees the same machine state; each is compiled and
    run once first)."""
    x = make_inputs(s, key)
    fns = {}
    for impl in impls:
        f = fwd_bwd(attention_fn(impl, s, x["sel"], x["num_sel"]))
        fns[impl] = functools.partial(f, x["q"], x["k"], x["v"], x["do"])
    seconds = time_interleaved(fns, rounds=repeats)
    flops = {impl: useful_flops(impl, s, x["num_sel"]) for impl in impls}
    return {impl: {"seconds": sec, "tflops": flops[impl] / sec / 1e12} for impl, sec in seconds.items()}


def check_against_reference(s: SpeedShape, key: jax.Array, impl: str = "fsa_pallas") -> dict[str, float]:
    """Max-abs error of ``impl``'s output and relative errors of its input gradients against the pure-JAX reference, in
    float32 at the shape ``s`` (run before timing, so no number is reported for a wrong kernel)."""
    s32 = dataclasses.replace(s, dtype="float32")
    x = make_inputs(s32, key)
    args = (x["q"], x["k"], x["v"])
    got_fn, ref_fn = (
        attention_fn(impl, s32, x["sel"], x["num_sel"]),
        attention_fn("fsa_reference", s32, x["sel"], x["num_sel"]),
    )
    err = {"out": float(jnp.max(jnp.abs(jax.jit(got_fn)(*args) - jax.jit(ref_fn)(*args))))}
    # gradients: max |Δ| / max(1, max |ref|), as F5 measures them
    for name, g, r in zip(
        ("dq", "dk", "dv"), fwd_bwd(got_fn)(*args, x["do"]), fwd_bwd(ref_fn)(*args, x["do"]), strict=True
    ):
        err[name] = float(jnp.max(jnp.abs(g - r)) / jnp.maximum(1.0, jnp.max(jnp.abs(r))))
    return err
