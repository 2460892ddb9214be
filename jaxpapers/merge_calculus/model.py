"""A Linen network built from any :class:`GraphSpec`, with μP (or standard) init and SGD LR multipliers.

Spec "Computation graph representation" and "Parameterisations we pin down". Letters: B batch,
D input features, N node width, O classes. For an edge e = u→v of kind lin, y_e = a_e·W_e·φ(h_u)
with W_e ~ N(0, gain·c_e/fan_in) (gain 2 after ReLU, 1 on the input node); id edges pass a_e·h_u.
Readout: logits = W_out φ(h_F), μP: W_out ~ N(0, 1/fan_in²) (SP: 1/fan_in).

μP SGD learning-rate multipliers (TP-V, Table 3): stem ×fan_out, hidden ×1, readout ×1/fan_in.
SP: all ×1. Parameter paths: ``edge_<src>_<dst>/kernel`` and ``readout/kernel``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.merge_calculus.graph import GraphSpec

PARAMS = ("mup", "sp")


def edge_name(src: int, dst: int) -> str:
    return f"edge_{src}_{dst}"


def node_widths(spec: GraphSpec, width: int) -> tuple[int, ...]:
    """Actual widths (node 0 excluded from the units: the input node's width is ``d_in`` in the model)."""
    return tuple(int(round(w * width)) for w in spec.widths)


class DagNet(nn.Module):
    """Logits of the computation graph ``spec`` at base width ``width`` (``param``: ``"mup"`` or ``"sp"``)."""

    spec: GraphSpec
    width: int
    n_out: int
    param: str = "mup"
    dtype: jnp.dtype = jnp.float32
    param_dtype: jnp.dtype = jnp.float32

    @nn.compact
    def __call__(self, x: Float[Array, "B D"], *, edges: bool = False):
        check_choice("param", self.param, PARAMS)
        check_range("width", self.width, 1)

        def dense(name: str, features: int, std: float, inp: jax.Array) -> jax.Array:
            layer = nn.Dense(
                features,
                use_bias=False,
                kernel_init=nn.initializers.normal(std),
                dtype=self.dtype,
                param_dtype=self.param_dtype,
                name=name,
            )
            return layer(inp)

        def lin(e, inp):
            gain = 1.0 if e.src == 0 else 2.0
            return dense(edge_name(e.src, e.dst), self.width, math.sqrt(gain * e.c / inp.shape[-1]), inp)

        def readout(inp):
            fan_in = inp.shape[-1]
            return dense("readout", self.n_out, 1.0 / fan_in if self.param == "mup" else math.sqrt(1.0 / fan_in), inp)

        return _walk(self.spec, x.astype(self.dtype), lin, readout, edges)


def _walk(spec: GraphSpec, x, lin, readout, edges: bool):
    """The forward pass: ``lin(edge, φ(h_src))`` applies an edge kernel, ``readout(φ(h_F))`` the readout."""
    h: list[jax.Array | None] = [x] + [None] * (spec.n_nodes - 1)
    outs: dict[str, jax.Array] = {}
    ins = [[] for _ in range(spec.n_nodes)]
    for e in spec.edges:
        ins[e.dst].append(e)
    for v in range(1, spec.n_nodes):
        parts = []
        for e in ins[v]:
            hu = h[e.src]
            if e.kind == "id":
                parts.append(e.a * hu)
                continue
            y = e.a * lin(e, hu if e.src == 0 else jax.nn.relu(hu))
            outs[edge_name(e.src, e.dst)] = y
            parts.append(y)
        h[v] = sum(parts[1:], parts[0]) if spec.merges[v] == "sum" else jnp.concatenate(parts, axis=-1)
    logits = readout(jax.nn.relu(h[-1]))
    if edges:
        outs["h_F"] = h[-1]
        return logits, outs
    return logits


def apply_graph(
    spec: GraphSpec, params: Mapping[str, Mapping[str, ArrayLike]], x: Float[ArrayLike, "B D"], *, edges: bool = False
):
    """``DagNet.apply`` as a plain function of the params dict (the same walk; a test checks equality).

    The sweep and Ĉ trace this instead of the Linen module: tracing Flax's module machinery inside
    grad/jvp/vmap/scan costs CPU seconds per graph, which the quick budget cannot pay nine times.
    """
    return _walk(
        spec,
        x,
        lambda e, inp: inp @ params[edge_name(e.src, e.dst)]["kernel"],
        lambda inp: inp @ params["readout"]["kernel"],
        edges,
    )


def lr_multipliers(spec: GraphSpec, width: int, param: str = "mup") -> dict[str, dict[str, float]]:
    """Per-parameter SGD learning-rate multipliers (a params-shaped dict of floats)."""
    check_choice("param", param, PARAMS)
    widths = node_widths(spec, width)
    mult = {}
    for e in spec.edges:
        if e.kind == "lin":
            m = float(width) if e.src == 0 else 1.0
            mult[edge_name(e.src, e.dst)] = {"kernel": m if param == "mup" else 1.0}
    mult["readout"] = {"kernel": 1.0 / widths[-1] if param == "mup" else 1.0}
    return mult


def init_std(spec: GraphSpec, width: int, d_in: int, param: str = "mup") -> dict[str, tuple[int, int, float]]:
    """``(fan_in, fan_out, std)`` of every kernel but the readout's, as :class:`DagNet`'s initialisers draw them."""
    widths = node_widths(spec, width)
    out = {}
    for e in spec.edges:
        if e.kind == "lin":
            fan_in = d_in if e.src == 0 else widths[e.src]
            gain = 1.0 if e.src == 0 else 2.0
            out[edge_name(e.src, e.dst)] = (fan_in, width, math.sqrt(gain * e.c / fan_in))
    return out


def init_params(
    spec: GraphSpec, width: int, n_out: int, d_in: int, seed: int, param: str = "mup"
) -> dict[str, dict[str, np.ndarray]]:
    """Initial parameters of ``DagNet(spec, width, n_out, param)``, drawn host-side with NumPy (``seed``).

    Same shapes, paths and variances as ``DagNet.init`` (a test checks both); host-side because a
    jitted Flax init costs seconds of compile per graph on a 2-core CPU (one random draw per layer).
    """
    check_choice("param", param, PARAMS)
    check_range("d_in", d_in, 1)
    check_range("width", width, 1)
    rng = np.random.default_rng([int(seed), 0])
    params = {
        name: {"kernel": (std * rng.standard_normal((fan_in, fan_out))).astype(np.float32)}
        for name, (fan_in, fan_out, std) in init_std(spec, width, d_in, param).items()
    }
    wf = node_widths(spec, width)[-1]
    std = 1.0 / wf if param == "mup" else math.sqrt(1.0 / wf)
    params["readout"] = {"kernel": (std * rng.standard_normal((wf, n_out))).astype(np.float32)}
    return params


def cross_entropy(logits: Float[ArrayLike, "B O"], labels) -> jax.Array:
    """Mean softmax cross-entropy over the batch."""
    logp = jax.nn.log_softmax(jnp.asarray(logits))
    return -jnp.mean(jnp.take_along_axis(logp, jnp.asarray(labels)[:, None], axis=-1))
