"""The clocked diagonal language D_r (claim H6 of ``cot_hierarchy``).

512 machines sampled from the family (2 working states, Γ = {0, 1, 2}), inputs ⟨M⟩·1^k for k ≤ 8, clock r(n) = n.

    jaxpapers verify cot_hierarchy/H6                  # quick
    jaxpapers verify cot_hierarchy/H6 --preset full    # 2^16 machines, k ≤ 64, r = n⌈log2 n⌉

Expected: 0 decider errors, 0 diagonal agreements, c_D ≤ r(n) + 1 always. Quick ≈ 10–25 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.diag = ml_collections.ConfigDict(dict(sample=512, k_max=8, clock="n"))
    if a.preset == "tiny":
        cfg.diag.update(sample=16, k_max=2)
    elif a.preset == "full":
        cfg.diag.update(sample=2**16, k_max=64, clock="nlogn")
    return cfg
