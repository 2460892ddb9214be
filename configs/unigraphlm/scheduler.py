"""U4: the curriculum sampler's pacing, easy-first eligibility and refresh (inspected on a scored pool).

Presets: ``tiny`` (a 200-sample pool), ``quick`` (the claim: 2000 samples, 300 steps), ``full`` (20k samples,
20k steps, the full Stage-B pacing). Groups: ``sched`` -> ``unigraphlm.config.SchedulerCheckConfig``, ``align``
-> ``unigraphlm.config.AlignConfig`` (only its pacing fields matter here).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.sched = ml_collections.ConfigDict(dict(pool=2000, buckets=6, steps=300, batch=32, refresh_size=512))
    cfg.align = ml_collections.ConfigDict(dict(c0=0.25, tc_frac=0.7, beta=0.5, loss_weight=0.7, norm="global"))
    if a.preset == "tiny":
        cfg.sched.update(pool=200, steps=40, batch=8, refresh_size=64)
    elif a.preset == "full":
        cfg.sched.update(pool=20_000, steps=20_000, batch=128, refresh_size=2048)
    return cfg
