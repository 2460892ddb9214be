"""F6 and F11: compiled FLOPs and memory of one attention layer against the number of frames.

One layer (routing + fine branch compiled as one query chunk + coarse branch for FSA; dense
frame-causal attention as the control) is compiled, never run, for every T of ``cfg.scaling``, and
XLA's own ``cost_analysis`` FLOPs (F6, forward) and ``memory_analysis`` temp bytes (F11, forward +
backward) are fitted in log-log space (``core.stats.fit_loglog``). XLA counts a loop body once, so
the reference is compiled loop-free.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import fit_loglog
from jaxpapers.fuxvit import attention, figures, routing
from jaxpapers.fuxvit.config import ScalingSweep
from jaxpapers.fuxvit.kernels.fsa import bench
from jaxpapers.fuxvit.kernels.fsa.reference import dense_block_causal, fsa_fine_reference

KINDS = ("fsa", "dense")


def fsa_layer(q: jax.Array, k: jax.Array, v: jax.Array, *, P: int, k_frames: int) -> jax.Array:
    """One layer's routed attention: routing + fine branch (one query chunk: no loop) + coarse branch."""
    b, n_tok = q.shape[:2]
    t = n_tok // P
    seg, valid = routing.default_seg_valid(b, t, None, None)
    frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
    r = attention.route(
        routing.frame_summaries(q, P),
        routing.frame_summaries(k, P),
        head_dim=q.shape[-1],
        k_frames=k_frames,
        q_frames=frames,
        seg_q=seg,
        seg_k=seg,
        valid_k=valid,
    )
    fine = fsa_fine_reference(q, k, v, r.sel, P)
    coarse = attention.coarse_branch(r.logits, attention.value_summaries(v, P))  # [B, N, T, H]
    return fine + jnp.repeat(coarse.transpose(0, 2, 1, 3), P, axis=1).astype(fine.dtype)


@functools.cache
def _stats(kind: str, backward: bool, s: ScalingSweep, t: int) -> bench.CompiledStats:
    """Compiled FLOPs/memory of one layer's attention (cached: F6 and F11 share compilations)."""
    p = s.tokens_per_frame
    fn = (
        (lambda q, kk, v: fsa_layer(q, kk, v, P=p, k_frames=s.k))
        if kind == "fsa"
        else (lambda q, kk, v: dense_block_causal(q, kk, v, p))
    )
    if backward:
        f = fn
        fn = jax.grad(lambda q, kk, v: jnp.sum(f(q, kk, v)), argnums=(0, 1, 2))
    spec = jax.ShapeDtypeStruct((s.batch, t * p, s.heads, s.head_dim), jnp.float32)
    return bench.compiled_stats(fn, spec, spec, spec)


def scaling_table(cfg: ml_collections.ConfigDict, backward: bool) -> dict[str, np.ndarray]:
    """Compiled FLOPs and temp bytes of FSA and dense frame-causal attention for every T of the config."""
    s = to_dataclass(ScalingSweep, cfg.scaling)
    rows = {kind: [_stats(kind, backward, s, t) for t in s.frames] for kind in KINDS}
    return {
        "frames": np.asarray(s.frames, np.float64),
        **{f"{kind}_flops": np.array([r.flops for r in rows[kind]]) for kind in KINDS},
        **{f"{kind}_temp_bytes": np.array([r.temp_bytes for r in rows[kind]], np.float64) for kind in KINDS},
    }


def analytic_flops(s: ScalingSweep) -> dict[str, np.ndarray]:
    """The analytic forward FLOPs of ``kernels/fsa/bench.py`` for every T (FSA: fine + routing + coarse)."""
    dim = s.heads * s.head_dim
    fsa = [
        bench.fsa_fine_flops(bench.selected_frames_per_query(t, s.k), s.tokens_per_frame, dim)
        + bench.routing_coarse_flops(t, dim)
        for t in s.frames
    ]
    dense = [bench.frame_causal_flops(t, s.tokens_per_frame, dim) for t in s.frames]
    return {"fsa": np.array(fsa) * s.batch, "dense": np.array(dense) * s.batch}


def slope_figure(table: dict[str, np.ndarray], quantity: str, s: ScalingSweep, ylabel: str):
    """Log-log plot of ``<kind>_<quantity>`` against T with fitted and predicted slopes (``figures.slope_figure``)."""
    title = {"flops": "Attention FLOPs vs frames", "temp_bytes": "Attention memory vs frames"}.get(quantity, quantity)
    return figures.slope_figure(table, quantity, ylabel, f"frames T (P = {s.tokens_per_frame}, k = {s.k})", title)


def _slopes(cfg: ml_collections.ConfigDict, quantity: str, backward: bool, ylabel: str) -> Measurement:
    """Both kinds' log-log slopes of ``quantity`` (``flops`` or ``temp_bytes``) against T."""
    s = to_dataclass(ScalingSweep, cfg.scaling)
    tab = scaling_table(cfg, backward=backward)
    fits = {kind: fit_loglog(tab["frames"], tab[f"{kind}_{quantity}"]) for kind in KINDS}
    return Measurement(
        measured={f"{kind}_slope": fits[kind].slope for kind in KINDS},
        predicted={"fsa_slope": 1.0, "dense_slope": 2.0},
        stderr={f"{kind}_slope": fits[kind].stderr for kind in KINDS},
        n=len(s.frames),
        details={
            "frames": tab["frames"].tolist(),
            **{f"{kind}_{quantity}": tab[f"{kind}_{quantity}"].tolist() for kind in KINDS},
            **{f"{kind}_slope_ci95": fits[kind].ci95 for kind in KINDS},
        },
        figures={quantity: slope_figure(tab, quantity, s, ylabel)},
        captions={quantity: figures.SCALING_CAPTIONS[quantity]},
    )


def measure_flops(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F6: slopes of compiled forward FLOPs, with the compiled/analytic ratio per T in the details."""
    del key
    m = _slopes(cfg, "flops", backward=False, ylabel="forward FLOPs of one attention layer")
    analytic = analytic_flops(to_dataclass(ScalingSweep, cfg.scaling))
    for kind in KINDS:
        m.details[f"{kind}_compiled_over_analytic"] = (np.array(m.details[f"{kind}_flops"]) / analytic[kind]).tolist()
    return m


def measure_memory(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F11: slopes of XLA's temp memory for forward + backward."""
    del key
    return _slopes(cfg, "temp_bytes", backward=True, ylabel="XLA temp bytes, fwd + bwd")
