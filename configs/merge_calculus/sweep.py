"""The learning-rate sweep behind MC1-MC5 of ``merge_calculus`` (spec "LR-sweep protocol", "Claims to reproduce").

Every graph in ``graphs`` is trained for every (seed, η) pair in one compiled program per graph: plain
SGD with μP per-layer multipliers, constant LR, cross-entropy; η* = argmin of the seed-mean *all-steps*
mean training loss, refined by a parabola in log η. MC1 fits η* of chains against depth, MC2/MC3 pool
the MC2 graphs against C(G) (and D_nom³, D_eff³, Chen's Σ L³), MC4 compares equal-depth graphs, MC5
transfers η* from G₀ = chain P = 1 zero-shot. ``graphs.extra`` holds graphs swept and reported only
(the two-branch uniform sum: the spec's known miss).

    jaxpapers verify merge_calculus --preset quick     # digits, width 64, batch 64, T = 80, 16 LRs, 2 seeds
    jaxpapers verify merge_calculus --preset full      # CIFAR-10 (sweep.data_dir), width 512, 24 LRs, 3 seeds
    jaxpapers verify merge_calculus --preset full --config.sweep.data_dir=/data/cifar-10-batches-bin

Expected (quick, spec prototype, seeds {0, 1}): η* chain P = 1/2/4/6/8 ≈ 0.76/0.45/0.25/0.14/0.09,
res-aware K = 4/16 ≈ 0.27/0.10, depth-μP K = 16 ≈ 0.43, concat ≈ 0.35; MC1 slope ≈ -1.7, MC2 slope ≈ -0.43
(R² ≈ 0.8 vs 0.26 for D_nom³), MC4 ratio ≈ 4.3, MC5 error C 1.48 / D_nom 1.89 / Chen 8.9. Quick: ten graphs,
≈ 2-5 s each on 2 shared cores (compile + training); the first claim pays it, the others reuse the study.
Tiny (width 16, T = 20, one seed, small graphs) is a smoke run: its numbers say nothing.
"""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.merge_calculus.config import FULL_SWEEP, sweep_group

FULL_GRAPHS = (
    *(f"chain:{p}" for p in (2, 3, 4, 6, 8, 12, 16)),
    *(f"cell:{c}:{k}" for c in ("2_02_002", "2_22_222", "2_12_112", "1_21_121", "2_20_202") for k in (1, 2)),
    *(f"{r}:{k}:{b}" for r in ("res", "dmup") for k in (2, 4, 8, 16) for b in (1, 2)),
    *(f"{m}:{d}:{s}:lin" for m in ("concat", "fusion") for d in ("1,3", "2,2", "1,2,4") for s in (1, 2)),
    "concat:4,4",
    "sum:4,4",
    "fusion:4,4",
    "concat:8,16",
    "hybrid:2:1,3:concat",
    "hybrid:4:1,3:concat",
    "hybrid:2:1,3:fusion",
    "hybrid:4:1,3:fusion",
)


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.sweep = sweep_group()
    cfg.graphs = ml_collections.ConfigDict(
        dict(
            base="chain:1",
            mc1=("chain:1", "chain:2", "chain:4", "chain:6"),
            mc2=("chain:2", "chain:8", "res:4", "res:16", "dmup:16", "concat:4,4"),
            mc4=("res:16", "dmup:16"),
            extra=("sum:4,4",),
        )
    )
    cfg.fit = ml_collections.ConfigDict(dict(n_boot=2000))
    if a.preset == "tiny":
        cfg.sweep.update(width=16, batch=32, steps=12, n_lrs=6, seeds=(0,))
        cfg.graphs.update(
            mc1=("chain:1", "chain:2"), mc2=("chain:2", "res:2", "dmup:2"), mc4=("res:2", "dmup:2"), extra=()
        )
        cfg.fit.update(n_boot=100)
    elif a.preset == "full":
        cfg.sweep.update(**FULL_SWEEP)
        cfg.graphs.update(
            mc1=("chain:1", "chain:2", "chain:3", "chain:4", "chain:6", "chain:8", "chain:12"),
            mc2=FULL_GRAPHS,
            mc4=(
                "chain:4",
                "sum:4,4",
                "concat:4,4",
                "fusion:4,4",
                "res:4",
                "dmup:4",
                "chain:16",
                "res:16",
                "dmup:16",
                "res:8:2",
                "dmup:8:2",
                "concat:8,16",
            ),
            extra=(),
        )
    return cfg
