"""Vmapped, jitted, chunked runners for simulations (trials, seeds, parameter grids).

Python loops over trials or grid points are a bug: express one trial as a pure function and let
these helpers vectorise it. ``chunk_size`` bounds memory by running ``vmap`` over chunks inside a
``lax.map`` (one compiled loop body). Note XLA's ``cost_analysis`` counts a loop body once, so FLOP
measurements must call the function unchunked.

* :func:`vmap_chunked` / :func:`jit_vmap_chunked`: one function, many rows.
* :func:`map_chunks`: the function sees a whole chunk (for batch-level decisions).
* :func:`sweep`: a parameter grid outside, a chunked batch of instances inside.
* :func:`grid`: the cartesian product of named parameter axes.
* :func:`run_trials`: independent PRNG keys.
* :func:`bucket_size` / :func:`pad_rows`: pad batches to shared sizes so sweeps of 1, 6 or 21 rows
  reuse one compiled program.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def vmap_chunked(fn: Callable[..., Any], *args: Any, chunk_size: int | None = None) -> Any:
    """``vmap(fn)(*args)`` over the leading axis, evaluated ``chunk_size`` rows at a time.

    Call inside ``jax.jit`` (or use :func:`jit_vmap_chunked`). ``chunk_size=None`` vmaps everything
    at once. A last chunk that is not full is padded (by repeating the last row) and the padding dropped.
    """
    if chunk_size is None:
        return jax.vmap(fn)(*args)
    # Pad to whole chunks (map_chunks) rather than lax.map(batch_size=...), which compiles the
    # remainder as a second copy of the whole function.
    return map_chunks(lambda chunk: jax.vmap(fn)(*chunk), args, chunk_size)


def jit_vmap_chunked(
    fn: Callable[..., Any], chunk_size: int | None = None, *, compiler_options: Mapping[str, Any] | None = None
) -> Callable[..., Any]:
    """A jitted function applying ``fn`` row-wise over the leading axis of every argument.

    Cached on ``(fn, chunk_size, compiler_options)``: calling it again with the same function reuses
    the compiled program (pass a module-level function or a cached ``functools.partial``, not a fresh
    lambda). ``compiler_options`` go to ``jax.jit`` (e.g. :func:`fast_compile_options`).
    """
    return _jit_vmap_chunked(fn, chunk_size, tuple(sorted((compiler_options or {}).items())))


@functools.lru_cache(maxsize=512)
def _jit_vmap_chunked(fn, chunk_size, options):
    return jax.jit(lambda *args: vmap_chunked(fn, *args, chunk_size=chunk_size), compiler_options=dict(options) or None)


def fast_compile_options(level: int = 0) -> dict[str, Any] | None:
    """XLA options that trade run time for compile time on the CPU (None elsewhere).

    ``level=0``: closed-form sweeps (many small SVDs/eighs and their gradients) run for milliseconds
    but compile for seconds; backend optimisation level 0 and minimal execution-time effort about
    halve their compile time. ``level=1``: backend optimisation level 1 only, about 25% faster
    compiles at unchanged run time for small networks that also run for a while (level 0 made
    certification runs 3-4x slower). Never for timing.
    """
    if jax.default_backend() != "cpu":
        return None
    if level == 1:
        return {"xla_backend_optimization_level": 1}
    return {
        "xla_backend_optimization_level": 0,
        "xla_llvm_disable_expensive_passes": True,
        "exec_time_optimization_effort": -1.0,
    }


def map_chunks(batch_fn: Callable[[Any], Any], tree: Any, chunk_size: int | None) -> Any:
    """``batch_fn`` applied to chunks of ``chunk_size`` rows of ``tree`` (``lax.map``), results concatenated.

    Unlike :func:`vmap_chunked`, ``batch_fn`` sees a whole chunk, so it can take batch-level
    decisions (e.g. run a fallback solver only if some row of the chunk needs it). The last chunk is
    padded by repeating the last row; the padding is dropped from the result.
    """
    n = jax.tree.leaves(tree)[0].shape[0]
    if chunk_size is None or chunk_size >= n:
        return batch_fn(tree)
    num = -(-n // chunk_size)
    chunks = jax.tree.map(lambda x: x.reshape((num, chunk_size) + x.shape[1:]), pad_rows(tree, num * chunk_size))
    out = jax.lax.map(batch_fn, chunks)
    return jax.tree.map(lambda x: x.reshape((num * chunk_size,) + x.shape[2:])[:n], out)


def sweep(fn: Callable[..., Any], params: Any, *instances: Any, chunk_size: int | None = None) -> Any:
    """``fn(param_a, *instance_b)`` for every parameter a and instance b: results ``[A, B, ...]``.

    The parameters are the outer ``vmap`` and the instances the inner, chunked one, so instances are
    never copied once per parameter (memory ``O(A · chunk_size)``). Call inside ``jax.jit``.
    """
    return jax.vmap(lambda p: vmap_chunked(lambda *inst: fn(p, *inst), *instances, chunk_size=chunk_size))(params)


def run_trials(
    fn: Callable[[jax.Array], Any], key: jax.Array, num_trials: int, *, chunk_size: int | None = None
) -> Any:
    """Runs ``fn(key_i)`` for ``num_trials`` independent keys, vectorised; results stacked on axis 0."""
    return jit_vmap_chunked(fn, chunk_size)(jax.random.split(key, num_trials))


def grid(
    fn: Callable[..., Any],
    axes: Mapping[str, Any],
    *,
    chunk_size: int | None = None,
    static: Mapping[str, Any] | None = None,
    **fixed: Any,
) -> Any:
    """Evaluates ``fn(**point, **fixed, **static)`` on the cartesian product of ``axes``.

    ``fixed`` values are arrays passed to the compiled program as arguments (changing them does not
    recompile); ``static`` values (ints that set shapes or loop counts, strings, callables) are baked
    in. Returns results with leading dims ``[len(a) for a in axes.values()]``, in the order given.
    """
    names = tuple(axes)
    values = [np.asarray(axes[n]) for n in names]
    cols = [jnp.asarray(np.asarray(c)) for c in zip(*itertools.product(*values), strict=True)] if names else []
    run = _grid_program(fn, names, tuple(sorted(fixed)), tuple(sorted((static or {}).items())), chunk_size)
    out = run(cols, {k: jnp.asarray(v) for k, v in fixed.items()})
    shape = tuple(len(v) for v in values)
    return jax.tree.map(lambda x: x.reshape(shape + x.shape[1:]), out)


@functools.lru_cache(maxsize=256)
def _grid_program(fn, names, fixed_names, static_items, chunk_size):
    static = dict(static_items)

    def run(cols, fixed):
        row_fn = lambda *row: fn(**dict(zip(names, row, strict=True)), **fixed, **static)  # noqa: E731
        return vmap_chunked(row_fn, *cols, chunk_size=chunk_size)

    return jax.jit(run)


def bucket_size(n: int, chunk_size: int | None = None, minimum: int = 32) -> int:
    """Rows to pad a batch of ``n`` to: a multiple of ``chunk_size`` beyond it, else a power of two ≥ ``minimum``.

    Padding to a few shared sizes lets batches of different lengths reuse one compiled program.
    """
    if chunk_size is not None and n > chunk_size:
        return -(-n // chunk_size) * chunk_size
    return max(minimum, 1 << max(n - 1, 0).bit_length())


def pad_rows(tree: Any, size: int) -> Any:
    """Pads every leaf's leading axis to ``size`` rows by repeating its last row (NumPy stays NumPy)."""

    def pad(x: Any) -> Any:
        extra = size - x.shape[0]
        if extra <= 0:
            return x
        xp = np if isinstance(x, np.ndarray) else jnp
        return xp.concatenate([x, xp.repeat(x[-1:], extra, axis=0)])

    return jax.tree.map(pad, tree)
