"""COMONet CO7: parity with an MLP on scikit-learn's bundled diabetes data (offline).

Spec row CO7 (the abstract's "accuracy comparable to benchmarks", on data that ships with
scikit-learn). Standardised X and y (train-fold statistics); bmi, bp and s5 declared ``inc``, the
other seven columns free; 5-fold split; COMONet (widths 16, depth 2) vs MLP (64, 64), 1000 Adam steps
at lr 1e-3 cosine-decayed, batch 256 sampled with replacement, seeds vmapped. Needs the ``data``
extra (scikit-learn); without it the claim is reported as skipped.

    jaxpapers verify comonet/CO7                                  # quick: fold 0 × 3 seeds, ~10-20 s
    jaxpapers train --config configs/comonet/diabetes.py --workdir /tmp/diabetes
    jaxpapers verify comonet/CO7 --preset full                    # 5 folds × 3 seeds

Expected (quick, spec prototype): test MSE ratio COMONet/MLP ≈ 0.83-0.99 per fold (≤ 1.10).
Presets: ``tiny`` (unit tests), ``quick`` (default), ``full``.
"""

import ml_collections

from jaxpapers.comonet.config import model_group
from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.dataset = "diabetes"  # for `jaxpapers train`
    cfg.regimes = ml_collections.ConfigDict({"bmi": "inc", "bp": "inc", "s5": "inc"})
    cfg.rules_family = "tabular"  # launch/rules/tabular.py, for `jaxpapers train`
    cfg.model = model_group(penalty_box=(-3.0, 3.0))
    cfg.optim = ml_collections.ConfigDict(dict(lr=1e-3, schedule="cosine"))  # core.train.OptimConfig
    # core.train.LoopConfig
    cfg.train = ml_collections.ConfigDict(dict(steps=1000, batch_size=256, log_every=100, ckpt_every=250))
    cfg.n_folds = 5
    cfg.folds = (0,)
    cfg.seeds = 3

    if a.preset == "tiny":
        cfg.model.update(hidden=4, depth=1, mlp_hidden=(8,))
        cfg.train.update(steps=5, batch_size=16)
        cfg.seeds = 1
    elif a.preset == "full":
        cfg.folds = (0, 1, 2, 3, 4)
    return cfg
