"""The Pallas FSA kernels (claim F5) against the pure-JAX reference, in interpret mode on the CPU, and
lowered for their target platform (cuda: Triton; tpu: Mosaic) on the CPU without running them.

Compared per case (``experiments.kernel``, F5's own measurement): O (max-abs), the log2-domain LSE
(against the reference's natural-log LSE · log2 e), and dq, dk, dv of VJPs with random cotangents for O
*and* the LSE (so the LSE's own cotangent path is checked). ``sel`` comes from the real routing (with
packing and padding frames where a case says so), so rows hold −1 padding and num_sel < S_max; k ≥ T−1
is in the grid. The reference itself is checked against float64 NumPy brute force in test_reference.py.
"""

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import attention, routing
from jaxpapers.fuxvit.config import FuxViTConfig
from jaxpapers.fuxvit.experiments import kernel as kernel_exp
from jaxpapers.fuxvit.kernels.fsa import context_parallel, dispatch, pallas_gpu, pallas_tpu, speed
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference
from jaxpapers.fuxvit.model import FuxViTClassifier
from jaxpapers.launch import mesh as mesh_lib

LOG2E = math.log2(math.e)
QUICK_CASES = config.load("fuxvit/kernel", "preset=quick").parity.cases
FULL_CASES = config.load("fuxvit/kernel", "preset=full").parity.cases
FWD_TOL, GRAD_TOL = 2e-5, 1e-4  # F5's fp32 pass line


def make_case(b, n, t, p, h, k, seed=0, packed=False):
    """q, k, v [B, T·P, N, H], cotangents for O and the LSE, and the routed (sel, num_sel)."""
    ks = jax.random.split(jax.random.key(seed), 5)
    q, kk, v, w = (jax.random.normal(x, (b, t * p, n, h)) for x in ks[:4])
    wl = jax.random.normal(ks[4], (b, n, t * p))
    seg = valid = None
    if packed:  # two segments per row and a padding frame at the end
        seg = jnp.asarray(np.repeat((np.arange(t) >= t // 2)[None], b, 0).astype(np.int32))
        valid = jnp.asarray(np.repeat((np.arange(t) < t - 1)[None], b, 0))
    sel, num_sel = routing.select_frames(routing.routing_logits(q, kk, p, seg, valid), k, seg, valid=valid)
    return q, kk, v, w, wl, sel, num_sel


def reference_fn(q, k, v, w, wl, sel, p):
    def loss(q, k, v):
        o, lse = fsa_fine_reference(q, k, v, sel, p, return_lse=True)
        lse2 = lse * LOG2E
        return jnp.sum(o * w) + jnp.sum(jnp.where(jnp.isfinite(lse2), lse2, 0.0) * wl), (o, lse2)

    (_, (o, lse2)), grads = jax.value_and_grad(loss, argnums=(0, 1, 2), has_aux=True)(q, k, v)
    return o, lse2, grads


def kernel_fn(kernel, q, k, v, w, wl, sel, num_sel):
    def loss(q, k, v):
        o, lse2 = kernel(q, k, v, sel, num_sel)
        return jnp.sum(o * w) + jnp.sum(jnp.where(jnp.isfinite(lse2), lse2, 0.0) * wl), (o, lse2)

    (_, (o, lse2)), grads = jax.value_and_grad(loss, argnums=(0, 1, 2), has_aux=True)(q, k, v)
    return o, lse2, grads


@functools.cache
def tpu_run(p, blocks, with_grads):
    kernel = lambda q, k, v, s, ns: pallas_tpu.fsa_fine_tpu(q, k, v, s, ns, p, block_sizes=blocks, interpret=True)  # noqa: E731
    if with_grads:
        return jax.jit(functools.partial(kernel_fn, kernel))
    return jax.jit(lambda q, k, v, w, wl, s, ns: kernel(q, k, v, s, ns))


def max_errors(got, want):
    (o, lse, grads), (ro, rlse, rgrads) = got, want
    finite = np.isfinite(np.asarray(rlse))
    np.testing.assert_array_equal(np.isfinite(np.asarray(lse)), finite)
    errs = {
        "o": float(jnp.max(jnp.abs(o - ro))),
        "lse": float(np.max(np.abs(np.asarray(lse - rlse)[finite]), initial=0)),
    }
    for name, g, r in zip(("dq", "dk", "dv"), grads, rgrads, strict=True):
        errs[name] = float(jnp.max(jnp.abs(g - r)) / jnp.maximum(1.0, jnp.max(jnp.abs(r))))
    return errs


def assert_f5(errs):
    assert errs["o"] <= FWD_TOL and errs["lse"] <= FWD_TOL, errs
    assert max(errs["dq"], errs["dk"], errs["dv"]) <= GRAD_TOL, errs


def test_f5_tiny_measures_parity_on_a_padded_case():
    """F5's experiment at its tiny preset: −1 padding and num_sel < S_max (T = 3, k = 1), two key and
    query sub-tiles per frame (block 16 at P = 32) and a padded head dim (24 → 32), with LSE cotangents."""
    cfg = config.load("fuxvit/kernel", "preset=tiny")
    m = kernel_exp.measure_parity(cfg, jax.random.key(0))
    assert m.details["mode"] == "interpret" and m.details["cases"][0]["padded_rows"] > 0
    assert m.measured["fwd_max_abs"] <= FWD_TOL and m.measured["grad_rel"] <= GRAD_TOL, m.details


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", FULL_CASES, ids=lambda c: "B{}N{}T{}P{}H{}k{}{}b{}".format(*c[:6], "pack" * c[6], c[7])
)
def test_gpu_kernel_matches_reference_on_the_f5_grid(case):
    x = kernel_exp.parity_inputs(case, jax.random.key(1))
    blocks = pallas_gpu.BlockSizes(*(case[7] or None,) * 4)
    errs = kernel_exp.parity_errors(kernel_exp.run_parity(x, P=case[3], blocks=blocks, interpret=True))
    assert_f5(errs)


def test_padding_slots_are_never_read_and_empty_rows_give_zero():
    """Loops are bounded by num_sel: garbage in the padding slots changes nothing (interpret mode
    clamps out-of-range slices, so a read would change the values). A row with no selected frame
    gives O = 0, LSE = −inf and finite gradients, like the reference (the tiny F5 program again)."""
    case = QUICK_CASES[0]
    p, blocks = case[3], pallas_gpu.BlockSizes(*(case[7],) * 4)
    run = functools.partial(kernel_exp.run_parity, P=p, blocks=blocks, interpret=True)
    x = kernel_exp.parity_inputs(case, jax.random.key(5))
    assert int(jnp.min(x["num_sel"])) < x["sel"].shape[-1]  # some rows are padded
    base = run(x)["kernel"]
    garbage = run({**x, "sel": jnp.where(x["sel"] < 0, 10**6, x["sel"])})["kernel"]
    for a, b in zip(jax.tree.leaves(base), jax.tree.leaves(garbage), strict=True):
        np.testing.assert_array_equal(a, b)
    empty = {**x, "sel": x["sel"].at[:, :, 1].set(-1), "num_sel": x["num_sel"].at[:, :, 1].set(0)}
    out = run(empty)
    assert_f5(kernel_exp.parity_errors(out))
    np.testing.assert_array_equal(out["kernel"]["o"][:, p : 2 * p], 0.0)
    assert bool(jnp.all(jnp.isinf(out["kernel"]["lse"][:, :, p : 2 * p])))
    assert all(bool(jnp.all(jnp.isfinite(g))) for g in out["kernel"]["grads"])


def test_tpu_kernel_matches_reference_in_tpu_interpret_mode():
    """The scalar-prefetch TPU variant in TPU interpret mode (SMEM/VMEM modelled on the CPU): forward,
    on a frame with a padding slot (T = 2, k = 1: frame 0 selects only itself)."""
    b, n, t, p, h, k = 1, 1, 2, 8, 16, 1
    q, kk, v, w, wl, sel, ns = make_case(b, n, t, p, h, k, seed=2)
    o, lse = tpu_run(p, pallas_tpu.TPUBlockSizes(8, 8), False)(q, kk, v, w, wl, sel, ns)
    ro, rlse = fsa_fine_reference(q, kk, v, sel, p, return_lse=True)
    assert float(jnp.max(jnp.abs(o - ro))) <= FWD_TOL
    assert float(jnp.max(jnp.abs(lse - rlse * LOG2E))) <= FWD_TOL


@pytest.mark.slow
def test_tpu_kernel_gradients_match_reference_in_tpu_interpret_mode():
    b, n, t, p, h, k = 1, 2, 3, 16, 16, 1
    q, kk, v, w, wl, sel, ns = make_case(b, n, t, p, h, k, seed=3, packed=True)
    got = tpu_run(p, pallas_tpu.TPUBlockSizes(8, 16), True)(q, kk, v, w, wl, sel, ns)
    want = jax.jit(reference_fn, static_argnums=6)(q, kk, v, w, wl, sel, p)
    assert_f5(max_errors(got, want))


def test_fsa_attention_pallas_equals_reference_with_full_history():
    """``fsa_attention(impl="pallas")`` with k ≥ T − 1 (every earlier frame selected)."""
    q, kk, v, *_ = make_case(1, 2, 3, 16, 16, 1, seed=4)
    run = jax.jit(functools.partial(attention.fsa_attention, P=16, k_frames=2), static_argnames="impl")
    (ref, sel_ref), (got, sel) = run(q, kk, v, impl="reference"), run(q, kk, v, impl="pallas")
    np.testing.assert_array_equal(sel, sel_ref)
    np.testing.assert_allclose(got, ref, atol=FWD_TOL)


# ------------------------------------------------------------------------------------------- lowering


def _lower(fn, platform, dtype, b=1, n=2, t=4, p=32, h=24, k_slots=3):
    sds = jax.ShapeDtypeStruct
    x = sds((b, t * p, n, h), dtype)
    args = (x, x, x, sds((b, n, t, k_slots), jnp.int32), sds((b, n, t), jnp.int32))
    return jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,)).as_text()


def _fwd_and_grad(kernel):
    def grad(q, k, v, s, ns):
        return jax.grad(lambda q, k, v: jnp.sum(kernel(q, k, v, s, ns)[0].astype(jnp.float32)), argnums=(0, 1, 2))(
            q, k, v
        )

    return kernel, grad


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16], ids=["f32", "bf16"])
def test_gpu_kernel_lowers_for_cuda_with_triton(dtype):
    """Forward (1 kernel) and fwd+bwd (3 kernels: forward, dQ, dK/dV) lower for cuda on the CPU through
    the Triton backend (not Mosaic GPU), with the head dim padded 24 → 32 and 3 selection slots."""
    blocks = pallas_gpu.BlockSizes(16, 16, 16, 16)
    kernel = lambda q, k, v, s, ns: pallas_gpu.fsa_fine(q, k, v, s, ns, 32, block_sizes=blocks)  # noqa: E731
    for fn, calls in zip(_fwd_and_grad(kernel), (1, 3), strict=True):
        text = _lower(fn, "cuda", dtype)
        assert text.count("__gpu$xla.gpu.triton") == calls
        assert "mosaic_gpu" not in text


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16], ids=["f32", "bf16"])
def test_tpu_kernel_lowers_for_tpu_with_mosaic(dtype):
    """Mosaic's block-shape rules hold for the spec's kernel shape (P = 128, H = 64) and a small one."""
    kernel = lambda q, k, v, s, ns: pallas_tpu.fsa_fine_tpu(q, k, v, s, ns, 128)  # noqa: E731
    for fn, calls in zip(_fwd_and_grad(kernel), (1, 3), strict=True):
        assert _lower(fn, "tpu", dtype, p=128, h=64).count("tpu_custom_call") == calls
    small = lambda q, k, v, s, ns: pallas_tpu.fsa_fine_tpu(q, k, v, s, ns, 16)  # noqa: E731
    assert _lower(small, "tpu", dtype, p=16, h=16).count("tpu_custom_call") == 1


def _lower_model_step(platform, depth=2, p_side=4, frames=3):
    """The StableHLO of a whole FuxViT classifier's loss and gradients (attn_impl="pallas", gated FSA,
    ``depth`` layers, frames of ``p_side``² tokens at patch 8) lowered for ``platform`` on this CPU;
    ``platform=None`` traces without :func:`dispatch.lowering_platform` (the CPU's interpret mode)."""
    cfg = FuxViTConfig.tiny(depth=depth, attn_impl="pallas", fsa_mode="gated", k_frames=1)
    model = FuxViTClassifier(cfg, num_classes=4)
    px = 8 * p_side
    pixels = jax.ShapeDtypeStruct((2, frames * cfg.tubelet, px, px, 3), jnp.float32)
    labels = jax.ShapeDtypeStruct((2,), jnp.int32)
    params = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.zeros(pixels.shape, pixels.dtype))["params"])

    def loss_and_grads(params, pixels, labels):
        def loss(p):
            logits, _ = model.apply({"params": p}, pixels)
            return jnp.mean(jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, labels[:, None], -1)[:, 0])

        return jax.value_and_grad(loss)(params)

    trace = lambda: jax.jit(loss_and_grads).trace(params, pixels, labels)  # noqa: E731
    if platform is None:
        return trace().lower(lowering_platforms=("cuda",)).as_text()
    with dispatch.lowering_platform(platform):
        traced = trace()
    return traced.lower(lowering_platforms=(platform,)).as_text()


@pytest.mark.slow  # three whole-model traces: 7.7 s at load 5, 85 s at load 12 (default tests are over budget)
def test_whole_model_lowers_with_the_platform_kernel_for_cuda_and_tpu():
    """A whole FuxViT train step (loss + gradients, 2 gated FSA layers) lowers on this CPU with
    the platform's kernel in every layer: for cuda 3 Triton calls per layer (forward, dQ, dK/dV; no
    Mosaic GPU), for tpu 3 Mosaic calls per layer. Without ``lowering_platform`` the tracing backend
    (cpu) picks interpret mode, and a cuda lowering then holds no kernel at all: the reason it exists."""
    cuda = _lower_model_step("cuda")
    assert cuda.count("__gpu$xla.gpu.triton") == 3 * 2
    assert "mosaic_gpu" not in cuda and "tpu_custom_call" not in cuda
    tpu = _lower_model_step("tpu")
    assert tpu.count("tpu_custom_call") == 3 * 2
    assert "__gpu$xla.gpu.triton" not in tpu
    assert "__gpu$xla.gpu.triton" not in _lower_model_step(None)
    assert dispatch.target_platform() == jax.default_backend()  # the context is reset on exit
    with pytest.raises(ConfigError, match="platform"):
        with dispatch.lowering_platform("rocm"):
            pass


def test_bad_block_sizes_and_shapes_raise():
    x = jnp.zeros((1, 32, 1, 16))
    sel, ns = jnp.zeros((1, 1, 2, 2), jnp.int32), jnp.ones((1, 1, 2), jnp.int32)
    with pytest.raises(ConfigError, match="block_k=8 is not allowed for P=16"):
        pallas_gpu.fsa_fine(x, x, x, sel, ns, 16, block_sizes=pallas_gpu.BlockSizes(block_k=8), interpret=True)
    with pytest.raises(ConfigError, match="block_q=32 is not allowed for P=16"):
        pallas_gpu.fsa_fine(x, x, x, sel, ns, 16, block_sizes=pallas_gpu.BlockSizes(block_q=32), interpret=True)
    x40 = jnp.zeros((1, 40, 1, 16))
    with pytest.raises(ConfigError, match="sequence lengths 40 \\(q\\) and 40 \\(k\\) must be multiples of P=16"):
        pallas_gpu.fsa_fine(x40, x40, x40, sel, ns, 16, interpret=True)
    with pytest.raises(ConfigError, match="block_q=12 is not allowed for P=16"):
        pallas_tpu.fsa_fine_tpu(x, x, x, sel, ns, 16, block_sizes=pallas_tpu.TPUBlockSizes(block_q=12))


# ----------------------------------------------------------------------------------- F10 (GPU speed)


def test_speed_harness_times_reference_and_dense_with_useful_flops():
    """The CPU half of the F10 benchmark: both timed, FLOPs counted only for the selected frames."""
    s = speed.SpeedShape(frames=4, tokens_per_frame=16, heads=2, head_dim=16, k=1, dtype="float32")
    t = speed.time_impls(s, ("fsa_reference", "dense_xla"), jax.random.key(0), repeats=1)
    assert all(v["seconds"] > 0 and v["tflops"] > 0 for v in t.values())
    num_sel = np.broadcast_to(1 + np.minimum(np.arange(4), 1), (1, 2, 4))  # |S_i| = 1, 2, 2, 2
    assert speed.useful_flops("fsa_reference", s, num_sel) == 3 * 4 * 16**2 * 32 * 7
    assert speed.useful_flops("dense_xla", s, num_sel) == 3 * 2 * 64**2 * 32


@pytest.mark.parametrize("impl", ["fsa_pallas", "dense_pallas"])
def test_f10_gpu_programs_lower_for_cuda_at_64k_tokens(impl):
    """F10's timed programs (fwd+bwd at T = 256, P = 256, 16 heads of 64, k = 8, bf16) lower for cuda
    (cuDNN's cannot be lowered without a GPU: it checks the cuDNN version when traced)."""
    s = speed.SpeedShape()
    x = jax.ShapeDtypeStruct((1, s.frames * s.tokens_per_frame, s.heads, s.head_dim), jnp.bfloat16)
    sel = jax.ShapeDtypeStruct((1, s.heads, s.frames, s.k + 1), jnp.int32)
    ns = jax.ShapeDtypeStruct((1, s.heads, s.frames), jnp.int32)

    def step(q, k, v, do, sel, ns):
        return jax.vjp(speed.attention_fn(impl, s, sel, ns), q, k, v)[1](do)

    text = jax.jit(step).trace(x, x, x, x, sel, ns).lower(lowering_platforms=("cuda",)).as_text()
    assert text.count("__gpu$xla.gpu.triton") == 3


# ------------------------------------------------------------------------ context parallelism (8 CPUs)


def _cp_case(b, n, t, p, h, seed=0):
    ks = jax.random.split(jax.random.key(seed), 4)
    return tuple(jax.random.normal(x, (b, t * p, n, h)) for x in ks)


def _loss_and_grads(fn, w):
    def f(q, k, v):
        o, sel = fn(q, k, v)
        return jnp.sum(o * w), (o, sel)

    return jax.jit(jax.value_and_grad(f, argnums=(0, 1, 2), has_aux=True))


@pytest.mark.parametrize(
    "impl", ["reference", pytest.param("pallas", marks=pytest.mark.slow)], ids=["reference", "pallas"]
)
def test_shard_fsa_over_sequence_equals_single_device(impl):
    """Frames split over sequence=4 (and the batch over data=2) on 8 CPU devices: the same selection,
    output and gradients as one device, with packing, a padding frame and a forced sink frame; the
    backward reduce-scatters dK/dV."""
    mesh = mesh_lib.make_mesh({"data": 2, "sequence": 4})
    q, k, v, w = _cp_case(2, 2 if impl == "reference" else 1, 8, 16, 16)
    seg = jnp.asarray([[0] * 5 + [1] * 3, [0] * 8], jnp.int32)
    valid = jnp.asarray([[True] * 8, [True] * 7 + [False]])
    kw = dict(P=16, k_frames=2, seg=seg, valid=valid, force_first=True)
    (_, (o1, s1)), g1 = _loss_and_grads(lambda q, k, v: attention.fsa_attention(q, k, v, **kw), w)(q, k, v)
    sharded = lambda q, k, v: context_parallel.shard_fsa(q, k, v, mesh=mesh, impl=impl, **kw)  # noqa: E731
    (_, (o2, s2)), g2 = _loss_and_grads(sharded, w)(q, k, v)
    np.testing.assert_array_equal(s2, s1)
    np.testing.assert_allclose(o2, o1, atol=FWD_TOL)
    for a, b in zip(g2, g1, strict=True):
        np.testing.assert_allclose(a, b, atol=GRAD_TOL)
    if impl == "reference":
        grad_k = jax.jit(jax.grad(lambda k: jnp.sum(sharded(q, k, v)[0] * w)))
        assert "reduce_scatter" in grad_k.lower(k).as_text()


def test_shard_fsa_rejects_split_frames():
    mesh = mesh_lib.make_mesh({"data": 2, "sequence": 4})
    x = jnp.zeros((2, 6 * 16, 1, 16))
    with pytest.raises(ConfigError, match="6 frames of P=16 cannot be split over sequence=4"):
        context_parallel.shard_fsa(x, x, x, P=16, k_frames=1, mesh=mesh)
