"""MC8 of ``merge_calculus``: analytic identities of the merge calculus (spec "Properties to unit-test").

Chain closed form C = Σ_{ℓ=1}^{P+1} ℓ² + (P+1)² (P = 1..12), Chen's DP against path enumeration on the
spec's DAG-cell strings, cell "2_02_002" = chain P = 3, invariance under relabelling and zero edges, and the
worked values 40.75 / 84 / 80. Pure Python, < 1 s in every preset.

    jaxpapers verify merge_calculus/MC8

Expected: every error 0 (criterion ≤ 1e-9).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    return cfg
