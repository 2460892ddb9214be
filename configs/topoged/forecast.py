"""V-EWMA as a descriptor forecaster (claim T8 of ``topoged``; paper App. C.3).

One-step-ahead terminal node and edge % errors of V-EWMA (α = 0.5), SMA(5), VAR(1), a random-walk Kalman filter
(SSM) and ridge VECM over the test split of 6 series (``pa_churn`` and ``hub_exchange`` × seeds 0–2, T = 40),
pooled over the series. The paper (14 real datasets): nodes SMA 8.64 / VAR 34.47 / V-EWMA 8.12 / SSM 19.33 /
VECM 28.57 %.

    jaxpapers verify topoged/T8                       # quick: a few seconds on 2 CPU cores
    jaxpapers verify topoged/T8 --preset full         # 200-snapshot series, 5 seeds

Presets: ``tiny`` (one series of 16 snapshots), ``quick`` (default), ``full`` (adds the learned GRUForecaster,
reported beside the five, not judged). Group ``forecast_check`` ->
``topoged.config.ForecastCheckConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.forecast_check = ml_collections.ConfigDict(
        dict(generators=("pa_churn", "hub_exchange"), seeds=(0, 1, 2), n_snapshots=40, test_frac=0.15,
             learned=False, gru_hidden=64, gru_steps=300)
    )
    if a.preset == "tiny":
        cfg.forecast_check.update(generators=("pa_churn",), seeds=(0,), n_snapshots=16)
    elif a.preset == "full":
        cfg.forecast_check.update(seeds=(0, 1, 2, 3, 4), n_snapshots=200, learned=True)
    return cfg
