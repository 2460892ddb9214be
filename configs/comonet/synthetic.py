"""COMONet CO4-CO6: accuracy, noise robustness and extrapolation on the synthetic nine-regime function.

Spec rows CO4 ("Competitive accuracy"), CO5 ("Robust to noise", the abstract's robustness claim) and
CO6 ("Shape-consistent extrapolation"). Data: x ~ U[-1, 1]^9, one variable per regime, f of the spec
(our construction), Gaussian label noise σ = noise · std(f). COMONet (widths 16, depth 2), an MLP
(64, 64) and (on CO4's trials) a PenaltyMLP (λ = 1, h = 0.1, 128 fresh points per step) are trained identically —
1500 Adam steps, lr 1e-2 cosine-decayed to 0, batch 256 — on every (noise, seed) trial in one
vmapped run per model (CO4: noise 0.1 × 3 seeds; CO5: noise {0, 1} × 2 seeds). CO6 evaluates CO4's
models on x ~ U[1, 1.5]^9 (every coordinate out of range).

    jaxpapers verify comonet/CO4 comonet/CO5 comonet/CO6        # quick: ~30-60 s on 2 CPU cores (one study)
    jaxpapers train --config configs/comonet/synthetic.py --workdir /tmp/comonet   # one COMONet, shared trainer
    jaxpapers verify comonet/CO4 --preset full                   # n = 20k, 5 seeds, widths 64, depth 3

Expected (quick, spec prototype): COMONet/MLP test RMSE ratio ≈ 0.72-0.80 (criterion ≤ 1.10 quick,
≤ 1.05 full); at noise 1.0 the RMSE ratio vs noiseless f ≈ 0.3 (≤ 0.90), MLP violating shapes at ≥ 1%
of test points, COMONet at none; out of range (CO6) the tangent bound along x₅ and every shape check
hold for COMONet at every point, the MLP violates a shape at ≥ 1% of them on every seed (RMSE out of
range reported per seed and per variable, not judged). The criteria live in ``comonet/claims.py``.
Presets: ``tiny`` (unit tests and the notebook's CI run), ``quick`` (default), ``full`` (accelerator).
"""

import ml_collections

from jaxpapers.comonet.config import model_group
from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.dataset = "synthetic"  # for `jaxpapers train`
    cfg.rules_family = "tabular"  # launch/rules/tabular.py, for `jaxpapers train`
    cfg.model = model_group()
    cfg.data = ml_collections.ConfigDict(
        dict(n_train=2000, n_test=2000, noise=0.1, n_extrap=1000, extrap_box=(1.0, 1.5))
    )
    cfg.optim = ml_collections.ConfigDict(dict(lr=1e-2, schedule="cosine"))  # core.train.OptimConfig
    # core.train.LoopConfig
    cfg.train = ml_collections.ConfigDict(dict(steps=1500, batch_size=256, log_every=100, ckpt_every=250))
    # CO4 (and CO6) trials, and the models trained on them; the PenaltyMLP (≈ 7× an MLP step: input
    # gradients and second differences on 128 points) joins CO5's noise grid only in the full preset.
    cfg.accuracy = ml_collections.ConfigDict(dict(noise=0.1, seeds=3, models=("comonet", "mlp", "penalty_mlp")))
    cfg.robustness = ml_collections.ConfigDict(dict(noises=(0.0, 1.0), seeds=2, models=("comonet", "mlp")))  # CO5
    # Shape checks (float64) at n_points test points and at every out-of-range point: gradient/Hessian signs
    # and differences at h, a violation above rtol·(1 + max|f|) (roundoff); CO6's tangent bound along x5.
    cfg.check = ml_collections.ConfigDict(dict(n_points=1000, h=0.1, rtol=1e-9, tangent_var=5, tangent_step=0.5))

    if a.preset == "tiny":
        cfg.accuracy.update(models=("comonet", "mlp"))
        cfg.model.update(hidden=4, depth=1, mlp_hidden=(8,), penalty_points=8)
        cfg.data.update(n_train=64, n_test=32, n_extrap=16)
        cfg.train.update(steps=20, batch_size=16, log_every=10, ckpt_every=10)
        cfg.accuracy.update(seeds=1)
        cfg.robustness.update(seeds=1)
        cfg.check.update(n_points=16)
    elif a.preset == "full":
        cfg.model.update(hidden=64, depth=3)
        cfg.data.update(n_train=20_000, n_test=5000, n_extrap=5000)
        cfg.train.update(steps=20_000, ckpt_every=2000)
        cfg.accuracy.update(seeds=5)
        cfg.robustness.update(noises=(0.0, 0.25, 0.5, 1.0), seeds=5, models=("comonet", "mlp", "penalty_mlp"))
        cfg.check.update(n_points=5000)
    return cfg
