"""COMONet CO8: the public tabular benchmarks (full preset, accelerator; files read from disk).

Spec row CO8: AutoMPG (weight, displacement, horsepower ``dec``; test MSE), Cleveland heart
(trestbps, chol ``inc``; accuracy), COMPAS (four prior/juvenile counts ``inc``; accuracy),
BlogFeedback (A51-A54, A56-A59 ``inc``; RMSE of the min-max scaled target) and Lending Club (our
28-column choice; accuracy) vs the published Constrained Monotonic NN numbers (AutoMPG 8.37 ± 0.08,
Heart 0.879 ± 0.009, COMPAS 0.693, Blog 0.154, Loan 0.653): pass when within one reported std or
better. Each (dataset, seed) trains with the shared trainer: Adam 1e-3 cosine, batch 256, early
stopping on a 20% validation split. Put the files (their usual names, see
``jaxpapers.comonet.loaders.BENCHMARK_FILES``) in one directory; nothing is downloaded.

    jaxpapers verify comonet/CO8 --preset full --config.data_dir=/data/tabular   # GPU, minutes

Expected: not measured by us (no data or GPU at build time); the claim is skipped on a CPU and when
the files are missing. Presets: ``tiny`` (unit tests on files the tests write), ``full``.
"""

import ml_collections

from jaxpapers.comonet.config import model_group
from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.data_dir = ""
    cfg.files = ml_collections.ConfigDict(
        {
            "auto_mpg": "auto-mpg.data",
            "heart": "processed.cleveland.data",
            "compas": "compas-scores-two-years.csv",
            "blog": "blogData_train.csv",
            "loan": "loan.csv",
        }
    )
    cfg.datasets = ("auto_mpg", "heart", "compas", "blog", "loan")
    cfg.test_fraction = 0.2
    cfg.seeds = 3
    cfg.model = model_group(hidden=32, penalty_box=(-3.0, 3.0))
    cfg.optim = ml_collections.ConfigDict(dict(lr=1e-3, schedule="cosine"))  # core.train.OptimConfig
    cfg.train = ml_collections.ConfigDict(
        dict(steps=20_000, batch_size=256, log_every=100, eval_every=100, ckpt_every=2000)
    )
    cfg.early_stop = ml_collections.ConfigDict(dict(val_fraction=0.2, patience=50))  # comonet.config.EarlyStopConfig
    if a.preset == "tiny":
        cfg.model.update(hidden=4, depth=1)
        cfg.train.update(steps=6, batch_size=8, log_every=6, eval_every=2, ckpt_every=3)
        cfg.early_stop.update(patience=2)
        cfg.seeds = 1
    return cfg
