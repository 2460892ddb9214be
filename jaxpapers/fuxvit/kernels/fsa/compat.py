"""Every Pallas version and backend difference of the FSA kernels, in one place.

CI runs JAX 0.10 (CPU, interpret mode and lowering only); the GPU machine runs JAX 0.11. The kernels
import ``pl``, ``plgpu``, ``pltpu`` and the helpers below from here and nothing version-specific
themselves.

* GPU backend. In JAX 0.10 a GPU ``pallas_call`` *without* Triton compiler params is lowered by Mosaic
  GPU (``jax_pallas_use_mosaic_gpu`` defaults to on). Our GPU kernel is written for the Triton
  backend (``plgpu.load`` with masks, ``plgpu.dot``), so :func:`triton_params` always passes them.
  ``plgpu.CompilerParams`` was ``plgpu.TritonCompilerParams`` before JAX 0.6; JAX 0.11 deprecates the
  Triton backend (a Mosaic GPU port is the long-term path, not built here).
* TPU. ``pltpu.CompilerParams`` was ``pltpu.TPUCompilerParams``; TPU interpret mode is
  ``interpret=pltpu.InterpretParams()`` (``pltpu.TPUInterpretParams`` in some releases).
* Refs are indexed directly (``x_ref[pl.ds(start, size), :]``): ``pl.load``/``pl.store`` are gone.
"""

from __future__ import annotations

from typing import Any

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plgpu

try:  # JAX's dense Pallas flash-attention kernel (Triton); later releases deprecate the pallas.ops.gpu kernels
    from jax.experimental.pallas.ops.gpu.attention import mha as _mha
except ImportError:  # pragma: no cover - depends on the installed JAX
    _mha = None

__all__ = [
    "dot",
    "gpu_interpret",
    "masked_load",
    "masked_store",
    "next_power_of_2",
    "pallas_mha",
    "pl",
    "plgpu",
    "pltpu",
    "tpu_interpret",
    "tpu_params",
    "triton_params",
]

_TRITON_PARAMS = plgpu.CompilerParams if hasattr(plgpu, "CompilerParams") else plgpu.TritonCompilerParams
_TPU_PARAMS = pltpu.CompilerParams if hasattr(pltpu, "CompilerParams") else pltpu.TPUCompilerParams
_TPU_INTERPRET = getattr(pltpu, "InterpretParams", None) or getattr(pltpu, "TPUInterpretParams", None)


def triton_params(num_warps: int, num_stages: int) -> Any:
    """Compiler params that select the Triton backend for a GPU ``pallas_call`` (never omit them)."""
    return _TRITON_PARAMS(num_warps=num_warps, num_stages=num_stages)


def tpu_params(dimension_semantics: tuple[str, ...]) -> Any:
    return _TPU_PARAMS(dimension_semantics=dimension_semantics)


def gpu_interpret(interpret: bool) -> bool:
    """The GPU kernel's ``interpret`` argument (the generic Pallas interpreter on the CPU)."""
    return bool(interpret)


def tpu_interpret(interpret: bool) -> Any:
    """TPU interpret mode (models SMEM/VMEM and scalar prefetch on the CPU) or False to compile."""
    if not interpret:
        return False
    return _TPU_INTERPRET() if _TPU_INTERPRET is not None else True


def masked_load(ref: Any, mask: jax.Array | None, other: float = 0.0) -> jax.Array:
    """A Triton load with the padded head-dim lanes masked (a plain read when nothing is padded)."""
    if mask is None:
        return ref[...]
    return plgpu.load(ref, mask=mask, other=other)


def masked_store(ref: Any, value: jax.Array, mask: jax.Array | None) -> None:
    if mask is None:
        ref[...] = value
    else:
        plgpu.store(ref, value, mask=mask)


def dot(a: jax.Array, b: jax.Array, *, trans_a: bool = False, trans_b: bool = False, exact: bool = False) -> jax.Array:
    """A Triton tile product with float32 accumulation (``pl.dot`` moved to ``plgpu.dot``);
    ``exact`` turns TF32 off, for float32 parity on a GPU."""
    return plgpu.dot(a, b, trans_a=trans_a, trans_b=trans_b, allow_tf32=False if exact else None)


def next_power_of_2(x: int) -> int:
    return pl.next_power_of_2(x)


def pallas_mha(q: jax.Array, k: jax.Array, v: jax.Array, *, causal: bool, sm_scale: float) -> jax.Array:
    """JAX's Pallas ``mha`` (dense, Triton) on [B, T·P, N, H]; raises where this JAX does not ship it."""
    if _mha is None:
        raise NotImplementedError("jax.experimental.pallas.ops.gpu.attention.mha is not in this JAX version")
    return _mha(q, k, v, None, sm_scale=sm_scale, causal=causal)
