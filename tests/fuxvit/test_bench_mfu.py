"""The MFU row of benchmarks/fuxvit.py: its model-FLOP count for the GPU configuration (FuxViT-B/16, the F8
full preset) against ViT-B/16's parameter count written out by hand, and its CPU path end to end."""

import importlib.util
from pathlib import Path

import flax.linen as nn
import jax
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.train import TrainState
from jaxpapers.fuxvit import train
from jaxpapers.fuxvit.kernels.fsa import dispatch

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench_module():
    spec = importlib.util.spec_from_file_location("fuxvit_benchmark", ROOT / "benchmarks" / "fuxvit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_model_flops_of_fuxvit_b16_match_the_hand_count(bench_module):
    overrides = {k: v for k, v in bench_module.MFU_GPU.items() if k != "preset"}
    cfg = config.apply_overrides(config.load("fuxvit/motion", bench_module.MFU_GPU["preset"]), overrides)
    cfg = config.apply_overrides(cfg, {"model.attn_impl": "reference"})  # same param tree as the kernel's
    arrays = train.task_data(cfg, 1, seed=0)
    params = nn.unbox(jax.eval_shape(train.init_fn(cfg, arrays), jax.random.key(0)))
    D, L, H, M, T, P = 768, 12, 12, 3072, 32, (256 // 16) ** 2  # ViT-B/16, 32 frames of 256 px
    per_layer = 4 * D * D + 2 * D * M + D * H * 2  # q, k, v, out; MLP in/out; the gate (D, heads, 2)
    encoder = 16 * 16 * 3 * D + L * per_layer  # patch embedding of RGB 16 x 16 patches
    selected = sum(1 + min(i, 8) for i in range(T))  # own frame + up to k = 8 history frames
    attention = 4 * P * P * D * selected + 4 * T * T * D  # fine branch + gated coarse branch
    want = 3 * 8 * (2 * encoder * T * P + 2 * D * 4 + L * attention)
    assert bench_module.model_flops(params, cfg, 8) == pytest.approx(want, rel=1e-12)


@pytest.mark.slow
def test_cpu_training_step_row_runs_and_reports_no_mfu(bench_module):
    out = bench_module.train_step_mfu(bench_module.MFU_CPU, jax.random.key(0), steps=1)
    assert out["seconds"] > 0 and out["model_tflop"] > 0 and "mfu" not in out
    assert np.isfinite(out["tflops"])


@pytest.mark.slow  # a 12-layer FuxViT-B step traced and lowered: ~40 s
def test_the_gpu_mfu_step_lowers_for_cuda_with_the_kernel_in_every_layer(bench_module):
    """The benchmark's GPU row cannot be run here; its train step at the GPU configuration lowers from this
    CPU with the Triton kernel (forward, dQ, dK/dV) in each of the 12 layers."""
    cfg, arrays, tx, step = bench_module.training_step(bench_module.MFU_GPU)
    with dispatch.lowering_platform("cuda"):
        params = nn.unbox(jax.eval_shape(train.init_fn(cfg, arrays), jax.random.key(0)))
        state = jax.eval_shape(lambda p: TrainState.create(p, tx, jax.random.key(0)), params)
        traced = jax.jit(step).trace(state, jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), arrays))
    assert traced.lower(lowering_platforms=("cuda",)).as_text().count("__gpu$xla.gpu.triton") == 3 * 12
