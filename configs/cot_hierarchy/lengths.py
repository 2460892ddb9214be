"""CoT length = TM time + 1 and the float32 precision boundary (claims H2 and H7 of ``cot_hierarchy``).

H2: parity_tm on 8 random inputs per n ∈ {64, 128, 256, 512}; palindrome_tm on one palindrome per n ∈ {16, 32, 64}
plus 8 random strings per n (reported). H7: palindromes n ∈ {16, 32, 48, 64, 80}, read scores in float32 vs float64.

    jaxpapers verify cot_hierarchy/H2 cot_hierarchy/H7                  # quick
    jaxpapers verify cot_hierarchy/H2 --preset full                     # parity to 4096, palindromes to 512

Expected: c − time = 1 on every run; slopes ≈ 0.99 (parity) and 1.90 (palindromes); float64 exact, float32 exact
at n = 16 and first wrong at n ≈ 64 (numpy emulation: 6 wrong reads at n = 64). Quick ≈ 15–30 s per claim.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.lengths = ml_collections.ConfigDict(
        dict(
            parity_ns=(64, 128, 256, 512),
            parity_inputs=8,
            pal_ns=(16, 32, 64),
            random_per_n=8,
            precision_ns=(16, 32, 48, 64, 80),
        )
    )
    if a.preset == "tiny":
        cfg.lengths.update(
            parity_ns=(8, 16, 32), parity_inputs=2, pal_ns=(4, 8, 12), random_per_n=2, precision_ns=(8, 16)
        )
    elif a.preset == "full":
        cfg.lengths.update(
            parity_ns=(64, 256, 1024, 4096),
            pal_ns=(32, 64, 128, 256, 512),
            precision_ns=(16, 32, 48, 64, 80, 96, 128, 256, 512),
        )
    return cfg
