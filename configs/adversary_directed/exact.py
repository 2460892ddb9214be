"""D1 — the exact solver (spec "The game", "reference.py"): the vectorised fori_loop solver against the pure-Python
game reference and the independent Littlestone recursion, deterministic and randomized, binary and multiclass.

    jaxpapers verify adversary_directed/D1                    # quick: 200 binary + 100 multiclass + named T ≤ 8
    jaxpapers verify adversary_directed/D1 --preset full      # GPU: named classes T ≤ 10, more random classes

Expected (quick): 0 mismatches, randomized max |err| ~1e-7, 0 order/monotonicity violations, TD ≤ AD ≤ standard
on every tested class. ≈ 24 s of CPU when run alone (mostly compiling the solver programs that D2–D5 reuse);
wall time on the shared 2-core machine was 75 s at load 7–14.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.exact = ml_collections.ConfigDict(
        dict(
            binary_classes=200,
            binary_t_max=7,
            binary_m_max=20,
            multi_classes=100,
            multi_t=5,
            multi_labels_max=4,
            multi_m_pad=32,
            named_t_max=8,
            randomized_named_t_max=6,
            transductive_classes=20,
            chunk_size=50,
        )
    )
    if a.preset == "tiny":
        cfg.exact.update(
            binary_classes=12,
            binary_t_max=5,
            binary_m_max=10,
            multi_classes=6,
            multi_t=4,
            multi_m_pad=16,
            named_t_max=5,
            randomized_named_t_max=4,
            transductive_classes=3,
            chunk_size=4,
        )
    elif a.preset == "full":
        cfg.exact.update(
            binary_classes=2000, binary_t_max=9, multi_classes=1000, named_t_max=10, transductive_classes=100
        )
    return cfg
