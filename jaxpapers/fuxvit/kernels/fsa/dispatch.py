"""``attn_impl="pallas"``: the fine FSA branch by the Pallas kernel of the platform it runs on.

GPU → ``pallas_gpu`` (Triton, compiled); TPU → ``pallas_tpu`` (scalar prefetch, compiled; never run
here); CPU → ``pallas_gpu`` in interpret mode (values only; slow, for tests and tiny models).
``platform`` overrides the detection, e.g. "cuda" when lowering ahead of time for a GPU on a CPU; for a
whole model (whose layers call :func:`fsa_fine_pallas` without it), trace inside
``with lowering_platform("cuda"):`` (the model lowered with the platform's kernel from a CPU).

Letters: B batch, N heads, T query frames, S key frames, K selection slots, P tokens per frame, H head dim.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

import jax
from jaxtyping import Array, Float, Int

from jaxpapers.core.checks import check_choice
from jaxpapers.fuxvit.kernels.fsa import pallas_gpu, pallas_tpu

PLATFORMS: tuple[str, ...] = ("cpu", "cuda", "gpu", "tpu")
_TARGET: contextvars.ContextVar[str | None] = contextvars.ContextVar("fsa_lowering_platform", default=None)


@contextlib.contextmanager
def lowering_platform(platform: str) -> Iterator[None]:
    """Inside this context, ``attn_impl="pallas"`` traces the kernel of ``platform`` (``cuda``/``gpu``:
    Triton, ``tpu``: Mosaic, ``cpu``: interpret mode) instead of the tracing process's backend, so a
    whole model can be lowered ahead of time for a GPU or TPU on a CPU
    (``jax.jit(f).trace(...).lower(lowering_platforms=(platform,))``). Nothing is compiled or run. jit's
    trace cache does not see this context: trace a fresh ``jax.jit`` of ``f`` inside it."""
    check_choice("platform", platform, PLATFORMS)
    token = _TARGET.set(platform)
    try:
        yield
    finally:
        _TARGET.reset(token)


def target_platform(platform: str | None = None) -> str:
    """``platform``, else the one set by :func:`lowering_platform`, else the tracing process's backend."""
    platform = platform or _TARGET.get() or jax.default_backend()
    check_choice("platform", platform, PLATFORMS)
    return platform


def check_tokens_per_frame(P: int, platform: str | None = None) -> None:
    """Raises ConfigError when the platform's kernel cannot tile frames of P tokens (before any work)."""
    platform = target_platform(platform)
    (pallas_tpu.TPUBlockSizes() if platform == "tpu" else pallas_gpu.BlockSizes()).resolve(P)


def fsa_fine_pallas(
    q: Float[Array, "B TP N H"],
    k: Float[Array, "B SP N H"],
    v: Float[Array, "B SP N H"],
    sel: Int[Array, "B N T K"],
    num_sel: Int[Array, "B N T"],
    P: int,
    *,
    platform: str | None = None,
) -> Float[Array, "B TP N H"]:
    """O_fine by the platform's Pallas kernel (differentiable in q, k, v; ``sel`` has no gradient)."""
    platform = target_platform(platform)
    if platform == "tpu":
        return pallas_tpu.fsa_fine_tpu(q, k, v, sel, num_sel, P)[0]
    return pallas_gpu.fsa_fine(q, k, v, sel, num_sel, P, interpret=platform == "cpu")[0]
