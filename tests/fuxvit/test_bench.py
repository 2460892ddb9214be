"""Compiled FLOP counts against the analytic cost model, and the loop pitfall of ``cost_analysis``."""

import jax
import jax.numpy as jnp
import pytest

from jaxpapers.fuxvit.experiments.scaling import fsa_layer
from jaxpapers.fuxvit.kernels.fsa import bench
from jaxpapers.fuxvit.kernels.fsa.reference import dense_block_causal, fsa_fine_reference

B, N, H, P = 1, 2, 16, 8


def spec(t):
    return jax.ShapeDtypeStruct((B, t * P, N, H), jnp.float32)


def test_compiled_fsa_flops_follow_the_analytic_count():
    t, k = 16, 2
    got = bench.compiled_stats(lambda q, kk, v: fsa_layer(q, kk, v, P=P, k_frames=k), spec(t), spec(t), spec(t)).flops
    dim = N * H
    analytic = bench.fsa_fine_flops(bench.selected_frames_per_query(t, k), P, dim) + bench.routing_coarse_flops(t, dim)
    assert 1.0 <= got / analytic <= 1.35  # softmax, summaries and masking add a little


def test_dense_frame_causal_with_a_mask_costs_full_attention():
    """An explicit mask does not skip work: XLA computes all N² scores, 4·N²·D, twice frame-causal."""
    t = 16
    got = bench.compiled_stats(lambda q, k, v: dense_block_causal(q, k, v, P), spec(t), spec(t), spec(t)).flops
    assert got / bench.dense_flops(t, P, N * H) == pytest.approx(1.0, abs=0.1)
    assert bench.frame_causal_flops(t, P, N * H) == pytest.approx(bench.dense_flops(t, P, N * H) / 2 * (1 + 1 / t))


def test_cost_analysis_counts_a_loop_body_once():
    """Pitfall: with ``lax.map`` over query chunks XLA reports one chunk's FLOPs, so scaling claims
    compile the reference as one chunk."""
    t = 16
    sel = jax.ShapeDtypeStruct((B, N, t, 3), jnp.int32)
    one = bench.compiled_stats(lambda q, k, v, s: fsa_fine_reference(q, k, v, s, P), spec(t), spec(t), spec(t), sel)
    looped = bench.compiled_stats(
        lambda q, k, v, s: fsa_fine_reference(q, k, v, s, P, chunk=4), spec(t), spec(t), spec(t), sel
    )
    assert looped.flops < one.flops / 3
    assert bench.selected_frames_per_query(5, 2).tolist() == [1, 2, 3, 3, 3]
