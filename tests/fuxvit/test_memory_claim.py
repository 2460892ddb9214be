"""F11b (GPU only): what a CPU can check of the so400m 64K-token memory claim — the shapes it measures,
that its forward + backward lowers for cuda with the Pallas kernel, and that a CPU reports it skipped."""

import jax

from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim
from jaxpapers.fuxvit.experiments import memory
from jaxpapers.fuxvit.kernels.fsa import dispatch


def test_the_claim_measures_so400m_at_64k_tokens_with_the_kernel_in_the_layer_scan():
    mem = config.load("fuxvit/kernel", "preset=quick").memory
    m = memory.model_config(mem)
    assert (m.dim, m.depth, m.num_heads, m.mlp_dim, m.patch) == (1152, 27, 16, 4304, 14)  # SigLIP so400m/14
    assert m.remat and m.scan_layers and m.attn_impl == "pallas" and m.fsa_mode == "gated"
    assert mem.batch == 1 and mem.frames * (mem.size // m.patch) ** 2 == 65_536
    with dispatch.lowering_platform("cuda"):
        fn, args = memory.step_function(mem)
        traced = jax.jit(fn).trace(*args)
    text = traced.lower(lowering_platforms=("cuda",)).as_text()
    # one scanned layer body: forward, its rematerialised forward in the backward, dQ, dK/dV
    assert text.count("__gpu$xla.gpu.triton") == 4
    assert args[1].shape == (1, 256, 224, 224, 3)


def test_a_cpu_reports_the_claim_skipped():
    (claim,) = registry.select(["fuxvit/F11b"])
    assert claim.requires == ("gpu",)
    res = run_claim(claim, "quick")
    assert res.verdict == "skipped" and "gpu" in res.reason.lower()
