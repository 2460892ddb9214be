"""F1 and F4: the fine branch is exact where it must be (random q, k, v; no model).

* F1: with k ≥ T−1 routing selects every earlier frame and the chunked reference equals dense
  frame-causal attention (``dense_block_causal``: ``jax.nn.dot_product_attention`` + a mask),
  forward and gradients.
* F4: with ``sel`` fixed, overwriting the K/V of frame j changes the output of frame i exactly when
  j ∈ S_i.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.fuxvit import routing
from jaxpapers.fuxvit.config import AttentionShapes
from jaxpapers.fuxvit.kernels.fsa.reference import dense_block_causal, fsa_fine_reference


def rel_error(a: Any, b: Any) -> float:
    """‖a − b‖ / ‖b‖ over whole pytrees (global norms, float64 on the host)."""
    la = [np.asarray(x, np.float64) for x in jax.tree.leaves(a)]
    lb = [np.asarray(y, np.float64) for y in jax.tree.leaves(b)]
    diff = np.sqrt(sum(float(np.sum((x - y) ** 2)) for x, y in zip(la, lb, strict=True)))
    return float(diff / max(np.sqrt(sum(float(np.sum(y**2)) for y in lb)), 1e-30))


def random_qkv(key: jax.Array, s: AttentionShapes) -> tuple[jax.Array, jax.Array, jax.Array]:
    """q, k, v ~ N(0, 1) of shape [batch, frames·tokens_per_frame, heads, head_dim]."""
    shape = (s.batch, s.frames * s.tokens_per_frame, s.heads, s.head_dim)
    q, k, v = (jax.random.normal(kk, shape) for kk in jax.random.split(key, 3))
    return q, k, v


def fsa_and_dense(
    q: jax.Array, k: jax.Array, v: jax.Array, cot: jax.Array, *, P: int, chunk: int | None
) -> dict[str, Any]:
    """Outputs and input gradients (VJP of ``cot``) of the FSA fine branch with k = T−1 and of dense
    frame-causal attention, with the routing's ``num_sel`` per query frame."""
    t = q.shape[1] // P
    sel, num_sel = routing.select_frames(routing.routing_logits(q, k, P), t - 1)
    o_fsa, vjp_fsa = jax.vjp(lambda *a: fsa_fine_reference(*a, sel, P, chunk=chunk), q, k, v)
    o_dense, vjp_dense = jax.vjp(lambda *a: dense_block_causal(*a, P), q, k, v)
    return {"fsa": o_fsa, "dense": o_dense, "grad_fsa": vjp_fsa(cot), "grad_dense": vjp_dense(cot), "num_sel": num_sel}


def measure_full_history(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F1: forward max-abs difference and the relative gradient error (worst of dq, dk, dv)."""
    s = to_dataclass(AttentionShapes, cfg.exactness)
    kq, kg = jax.random.split(key)
    q, k, v = random_qkv(kq, s)
    cot = jax.random.normal(kg, q.shape)
    out = jax.device_get(
        jax.jit(fsa_and_dense, static_argnames=("P", "chunk"))(q, k, v, cot, P=s.tokens_per_frame, chunk=s.chunk)
    )
    grad_rel = max(rel_error(g1, g2) for g1, g2 in zip(out["grad_fsa"], out["grad_dense"], strict=True))
    full = bool(np.all(out["num_sel"] == np.arange(1, s.frames + 1)))
    return Measurement(
        measured={"fwd_max_abs": float(np.max(np.abs(out["fsa"] - out["dense"]))), "grad_rel": grad_rel},
        n=s.batch * s.heads * s.frames,
        details={"selection_is_full_history": full, "shape": list(q.shape), "chunk": s.chunk},
    )


def overwrite_diffs(
    q: jax.Array, k: jax.Array, v: jax.Array, noise_k: jax.Array, noise_v: jax.Array, *, P: int, k_frames: int
) -> tuple[jax.Array, jax.Array]:
    """For every frame j (vmapped), the max change of each query frame's fine-branch output when the K/V
    of frame j are replaced by ``noise_k``/``noise_v`` [B, P, N, H], with ``sel`` fixed.

    The untouched output is one more lane of the same vmapped program as the overwrites, so an unselected
    frame's change is exactly 0 on any backend (a separately compiled base differed by 3.6e-7 on one CPU).

    Returns ``diff`` [T(j), B, N, T(i)] and ``member`` [T(j), B, N, T(i)] (j ∈ S_i).
    """
    b, n_tok, n, h = q.shape
    t = n_tok // P
    sel, _ = routing.select_frames(routing.routing_logits(q, k, P), k_frames)

    def attend(j):  # j = t: the untouched K/V, computed by the same vmapped program as every overwrite
        kj = jnp.where(j < t, jax.lax.dynamic_update_slice(k, noise_k, (0, j * P, 0, 0)), k)
        vj = jnp.where(j < t, jax.lax.dynamic_update_slice(v, noise_v, (0, j * P, 0, 0)), v)
        return fsa_fine_reference(q, kj, vj, sel, P)

    outs = jax.vmap(attend)(jnp.arange(t + 1))  # [T+1, B, TP, N, H]
    d = jnp.abs(outs[:t] - outs[t]).reshape(t, b, t, P, n, h)
    diff = jnp.max(d, axis=(3, 5)).transpose(0, 1, 3, 2)  # [T(j), B, N, T(i)]
    member = jnp.moveaxis(routing.selection_membership(sel, t), -1, 0)
    return diff, member


def measure_inert(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F4: the largest change over unselected (i, j) pairs and the smallest over selected pairs."""
    s = to_dataclass(AttentionShapes, cfg.inert)
    kq, kn = jax.random.split(key)
    q, k, v = random_qkv(kq, s)
    noise_k, noise_v = jax.random.normal(kn, (2, s.batch, s.tokens_per_frame, s.heads, s.head_dim))
    run = jax.jit(overwrite_diffs, static_argnames=("P", "k_frames"))
    diff, member = jax.device_get(run(q, k, v, noise_k, noise_v, P=s.tokens_per_frame, k_frames=s.k))
    return Measurement(
        measured={
            "unselected_max_diff": float(np.max(np.where(member, 0.0, diff))),
            "selected_min_diff": float(np.min(np.where(member, diff, np.inf))),
        },
        n=int(diff.size),
        details={"pairs_unselected": int((~member).sum()), "pairs_selected": int(member.sum()), "k": s.k},
    )
