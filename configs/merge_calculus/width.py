"""MC6 of ``merge_calculus`` (full preset only): μP width transfer vs SP drift (spec "Claims to reproduce", MC6).

Chain P = 4 swept (the MC1-MC5 protocol) at widths 128, 256, 512, 1024 under μP and under SP.

    jaxpapers verify merge_calculus/MC6 --preset full --config.sweep.data_dir=/data/cifar-10-batches-bin

Expected: μP max/min η* ≤ 1.5; SP η* drifts monotonically by ≥ 2×. Not run on a CPU (quick: skipped);
the tiny preset is a smoke run on digits for the tests.
"""

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.merge_calculus.config import FULL_SWEEP, sweep_group


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.sweep = sweep_group(**FULL_SWEEP)
    cfg.width = ml_collections.ConfigDict(dict(graph="chain:4", widths=(128, 256, 512, 1024)))
    if a.preset in ("tiny", "quick"):
        cfg.sweep.update(dataset="digits", width=16, batch=32, steps=20, lr_lo=0.01, lr_hi=10.0, n_lrs=8, seeds=(0,))
        cfg.width.update(graph="chain:2", widths=(16, 32))
    return cfg
