"""Padding written inside the CoT (claim H4 of ``cot_hierarchy``).

L = palindromes over {1, 2}, p(n) = n²; every x with 1 ≤ |x| ≤ 8 (510 strings) through the PadWriter, and the
well-formed padded strings through Construction A for M_pad (direction 2).

    jaxpapers verify cot_hierarchy/H4                  # quick: |x| ≤ 8
    jaxpapers verify cot_hierarchy/H4 --preset full    # |x| ≤ 12

Expected: 0 answer errors, c_L = p(n) − n + time + 2 exactly. Quick ≈ 5–15 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.pad = ml_collections.ConfigDict(dict(n_max=8, pad_poly=(0, 0, 1)))
    if a.preset == "tiny":
        cfg.pad.update(n_max=4)
    elif a.preset == "full":
        cfg.pad.update(n_max=12)
    return cfg
