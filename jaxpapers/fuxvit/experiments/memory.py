"""F11b (GPU only): the so400m encoder's forward + backward at 64K tokens fits one accelerator.

Spec claim F11, its GPU half: "GPU at 64K, peak < 40 GiB for so400m fwd+bwd, batch 1, remat". The
model is FuxViT-so400m/14 (D = 1152, L = 27, H = 16 of 72, MLP 4304) with gated FSA (k = 8) through
the Pallas kernel, rematerialised blocks and bf16 activations, on one clip of T = 256 frames of
224 px (P = 256 tokens a frame: 65,536 tokens). ``loss_and_grads`` is compiled for the device; the
measured value is XLA's planned peak (arguments + outputs + temporaries - aliased bytes), and the
step is then run once so that the device's own ``peak_bytes_in_use`` is reported beside it.

:func:`step_function` builds the function and its abstract inputs without allocating anything, so
a CPU test lowers it for cuda (the kernel in every layer) even though only a GPU can compile it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.fuxvit.config import FuxViTConfig
from jaxpapers.fuxvit.model import FuxViTClassifier

GIB = 2.0**30


def model_config(mem: ml_collections.ConfigDict) -> FuxViTConfig:
    """The encoder of ``mem``: a named size (``so400m``) with gated FSA, tubelet 1, scanned blocks, and
    ``mem``'s attention impl, remat and dtype (``depth`` overrides the size's, for tests)."""
    cfg = getattr(FuxViTConfig, mem.model)(
        attn_impl=mem.attn_impl, fsa_mode="gated", remat=mem.remat, scan_layers=True, dtype=mem.dtype, tubelet=1
    )
    return dataclasses.replace(cfg, depth=mem.depth) if mem.get("depth") else cfg


def step_function(mem: ml_collections.ConfigDict) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """``loss_and_grads(params, pixels [B, T, S, S, 3], labels [B]) -> (loss, grads)`` of the classifier
    described by ``mem`` and its abstract arguments (``jax.ShapeDtypeStruct``s)."""
    cfg = model_config(mem)
    model = FuxViTClassifier(cfg, num_classes=mem.num_classes)
    pixels = jax.ShapeDtypeStruct((mem.batch, mem.frames, mem.size, mem.size, 3), jnp.float32)
    labels = jax.ShapeDtypeStruct((mem.batch,), jnp.int32)
    params = jax.eval_shape(lambda: nn.unbox(model.init(jax.random.key(0), jnp.zeros(pixels.shape))["params"]))

    def loss_and_grads(params, pixels, labels):
        def loss(p):
            logits, _ = model.apply({"params": p}, pixels)
            logits = logits.astype(jnp.float32)
            return jnp.mean(jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, labels[:, None], -1)[:, 0])

        return jax.value_and_grad(loss)(params)

    return loss_and_grads, (params, pixels, labels)


def planned_peak_bytes(m: Any) -> float:
    """XLA's planned peak from a compiled function's ``memory_analysis()``: arguments + outputs +
    temporaries - aliased bytes."""
    return float(m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes - m.alias_size_in_bytes)


def measure_so400m_64k(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F11b: planned peak GiB of so400m forward + backward at 64K tokens (batch 1, remat); then one run."""
    mem = cfg.memory
    fn, args = step_function(mem)
    compiled = jax.jit(fn).lower(*args).compile()
    patch = model_config(mem).patch
    details: dict[str, Any] = {"tokens": mem.frames * (mem.size // patch) ** 2, "device": jax.devices()[0].device_kind}
    m = compiled.memory_analysis()
    for name in ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes", "alias_size_in_bytes"):
        details[name.replace("_size_in_bytes", "_gib")] = getattr(m, name) / GIB
    peak = planned_peak_bytes(m)
    params_shape, pixels, labels = args
    params = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), params_shape)  # values do not change memory
    x = jax.random.uniform(key, pixels.shape, pixels.dtype)
    loss, _ = compiled(params, x, jnp.zeros(labels.shape, labels.dtype))
    details["loss_finite"] = bool(jnp.isfinite(loss))
    stats = jax.devices()[0].memory_stats() or {}
    if "peak_bytes_in_use" in stats:
        details["device_peak_gib"] = stats["peak_bytes_in_use"] / GIB
    return Measurement(measured={"peak_gib": peak / GIB}, details=details)
