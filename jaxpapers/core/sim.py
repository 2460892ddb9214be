"""Vmapped, jitted, chunked runners for simulations (trials, seeds, parameter grids).

Python loops over trials or grid points are a bug: express one trial as a pure function and let
these helpers vectorise it. ``chunk_size`` bounds memory by running ``vmap`` over chunks inside a
``lax.map`` (one compiled loop body). Note XLA's ``cost_analysis`` counts a loop body once, so FLOP
measurements must call the function unchunked.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def vmap_chunked(fn: Callable[..., Any], *args: Any, chunk_size: int | None = None) -> Any:
    """``vmap(fn)(*args)`` over the leading axis, evaluated ``chunk_size`` rows at a time.

    Call inside ``jax.jit`` (or use :func:`jit_vmap_chunked`). ``chunk_size=None`` vmaps everything
    at once. Rows that do not fill a last chunk are handled (``lax.map`` pads nothing).
    """
    if chunk_size is None:
        return jax.vmap(fn)(*args)
    return jax.lax.map(lambda xs: fn(*xs), args, batch_size=chunk_size)


def jit_vmap_chunked(fn: Callable[..., Any], chunk_size: int | None = None) -> Callable[..., Any]:
    """A jitted function applying ``fn`` row-wise over the leading axis of every argument."""
    return jax.jit(lambda *args: vmap_chunked(fn, *args, chunk_size=chunk_size))


def run_trials(
    fn: Callable[[jax.Array], Any], key: jax.Array, num_trials: int, *, chunk_size: int | None = None
) -> Any:
    """Runs ``fn(key_i)`` for ``num_trials`` independent keys, vectorised; results stacked on axis 0."""
    keys = jax.random.split(key, num_trials)
    return jax.jit(lambda ks: vmap_chunked(fn, ks, chunk_size=chunk_size))(keys)


def grid(fn: Callable[..., Any], axes: Mapping[str, Any], *, chunk_size: int | None = None, **fixed: Any) -> Any:
    """Evaluates ``fn(**point, **fixed)`` on the cartesian product of ``axes``.

    Returns results with leading dims ``[len(a) for a in axes.values()]``, in the order given.
    """
    names = list(axes)
    values = [np.asarray(axes[n]) for n in names]
    flat = [np.asarray(p) for p in zip(*itertools.product(*values), strict=True)] if names else []
    run = jax.jit(
        lambda *cols: vmap_chunked(
            lambda *row: fn(**dict(zip(names, row, strict=True)), **fixed), *cols, chunk_size=chunk_size
        )
    )
    out = run(*[jnp.asarray(c) for c in flat])
    shape = tuple(len(v) for v in values)
    return jax.tree.map(lambda x: x.reshape(shape + x.shape[1:]), out)
