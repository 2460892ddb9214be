"""Log ceiling on random finite classes (claim O4 of ``online_autoregressive``; spec "E2E log ceiling").

Random subfamilies of LTF_3 (8–32 members, drawn with the claim's seed); exact Ldim(F) and Ldim(F^M) for
M ∈ {1, 2, 3, 4, 8, 16}; checks Ldim(F^M) ≤ Ldim(F)·(1 + ⌊log2 M⌋).

    jaxpapers verify online_autoregressive/O4                 # quick: 40 classes
    jaxpapers verify online_autoregressive/O4 --preset full   # 512 classes

Expected: no violation, max ratio 1.0 (attained at M = 1; these classes never grow with M). ≈ 3 s.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 4
    cfg.ceiling = ml_collections.ConfigDict(dict(d=3, num_classes=40, size_min=8, size_max=32, ms=(1, 2, 3, 4, 8, 16)))
    if a.preset == "tiny":
        cfg.ceiling.update(num_classes=4, ms=(1, 2, 4))
    elif a.preset == "full":
        cfg.ceiling.num_classes = 512
    return cfg
