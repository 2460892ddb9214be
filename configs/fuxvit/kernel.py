"""FuxViT claims F5 and F10: the Pallas FSA kernel (kernel issue).

* F5 ``parity``: the kernel (interpret mode on a CPU, compiled on a GPU) against the pure-JAX reference,
  forward (O, LSE) and gradients (dq, dk, dv), float32, over a grid of shapes (B, N, T, P, H, k,
  packed, block) taken from the spec's T ∈ {1, 3, 8}, P ∈ {16, 32}, k ∈ {0, 1, 3}: −1 padding with
  num_sel < S_max, k ≥ T−1, packed segments with a padding frame, two sub-tiles per frame (block 16 at
  P = 32) and a padded head dim (24 → 32). quick: 4 shapes (interpret mode compiles each shape in
  ~10 s on 2 cores); full: the 10-shape grid.
* F10 ``speed`` (GPU only; skipped on a CPU): fwd+bwd of the kernel against cuDNN causal and the
  Pallas ``mha`` at N = 65,536 (T = 256, P = 256, 16 heads of 64, k = 8, bf16), after a float32
  check against the reference at ``speed_check``.
* F11b ``memory`` (GPU only; skipped on a CPU): planned peak memory of FuxViT-so400m/14 forward +
  backward at 65,536 tokens (T = 256 frames of 224 px, P = 256), batch 1, remat, bf16, gated FSA
  through the kernel; the spec's GPU half of F11 (< 40 GiB).

    jaxpapers verify fuxvit/F5                 # quick: ~40 s on 2 CPU cores
    jaxpapers verify fuxvit/F10 --preset full  # H200
    jaxpapers verify fuxvit/F11b               # H200 (same in every preset: one compile, one step)
"""

import ml_collections

from jaxpapers.core.config import parse_arg

QUICK_CASES = (
    (1, 2, 3, 32, 24, 1, False, 16),  # −1 padding, num_sel < S_max, 2 sub-tiles per frame, H padded 24 → 32
    (1, 2, 3, 16, 16, 3, False, 0),  # k ≥ T−1 (full history)
    (1, 2, 8, 16, 16, 1, True, 0),  # packed: two segments and a padding frame
    (2, 1, 1, 16, 16, 0, False, 0),  # T = 1 (an image), k = 0
)
FULL_CASES = (
    (2, 2, 1, 16, 16, 0, False, 0),
    (2, 2, 1, 32, 32, 3, False, 16),
    (2, 2, 3, 16, 16, 0, False, 0),
    (2, 2, 3, 32, 16, 1, True, 16),
    (2, 1, 3, 16, 32, 3, False, 0),
    (1, 2, 8, 16, 16, 0, True, 0),
    (1, 2, 8, 16, 16, 1, False, 0),
    (1, 2, 8, 32, 16, 3, True, 16),
    (2, 1, 8, 32, 24, 1, False, 16),
    (1, 1, 8, 16, 16, 7, False, 0),
)


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.parity = ml_collections.ConfigDict(dict(cases=QUICK_CASES))
    cfg.speed = ml_collections.ConfigDict(
        dict(batch=1, frames=256, tokens_per_frame=256, heads=16, head_dim=64, k=8, dtype="bfloat16", query_chunk=16)
    )
    cfg.speed_check = ml_collections.ConfigDict(
        dict(batch=1, frames=8, tokens_per_frame=256, heads=2, head_dim=64, k=3, dtype="float32", query_chunk=None)
    )
    cfg.memory = ml_collections.ConfigDict(
        dict(model="so400m", depth=0, attn_impl="pallas", remat=True, dtype="bfloat16", batch=1, frames=256, size=224)
    )
    cfg.memory.num_classes = 4
    if a.preset == "tiny":
        cfg.parity.cases = QUICK_CASES[:1]
    elif a.preset == "full":
        cfg.parity.cases = FULL_CASES
    return cfg
