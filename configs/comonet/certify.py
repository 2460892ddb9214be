"""COMONet CO1 + CO2: shapes hold by construction for any parameters; the certifier is not vacuous.

Spec rows CO1 ("Every declared constraint holds by construction for any parameters") and CO2 ("The
certifier is not vacuous"), our reconstruction of the COMONet abstract's "guarantees by construction".
A 9-regime COMONet (one variable per regime) is certified in float64 — gradient and Hessian signs,
second and monotone differences at h ∈ {0.01, 0.1, 0.5}, projected-Adam adversarial search — for
``n_inits`` random inits with every raw parameter ~ N(0, 3²) (far outside training scale), for the
softplus and ReLU variants, and for one softplus COMONet trained 300 steps by the shared trainer.
Controls: an MLP trained the same way, and the trained COMONet with exp replaced by the identity in
its last convex layer.

    jaxpapers verify comonet/CO1 comonet/CO2                       # quick: ~20-40 s on 2 CPU cores
    jaxpapers verify comonet/CO1 --preset full                     # 200 inits, 1e5 points, 256×300 adversarial

Expected (quick): worst violation / (1 + max|f|) ≈ 1e-15 (float64 roundoff) ≤ 1e-9, zero monotone-
difference violations; controls: MLP and identity-exp mutant both show violations ≫ 1e-3. The criteria
live in ``jaxpapers/comonet/claims.py``; the certifier counts a violation above 1e-9·(1 + max|f|).
Presets: ``tiny`` (unit tests), ``quick`` (2-core CPU, default), ``full`` (accelerator).
"""

import dataclasses

import ml_collections

from jaxpapers.comonet.config import CertConfig, CertModelConfig
from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.model = ml_collections.ConfigDict(dataclasses.asdict(CertModelConfig()))  # softplus + ReLU variants
    cfg.data = ml_collections.ConfigDict(dict(n_train=2000, noise=0.1))
    cfg.optim = ml_collections.ConfigDict(dict(lr=1e-2, schedule="cosine"))  # core.train.OptimConfig
    cfg.train = ml_collections.ConfigDict(dict(steps=300, batch_size=256, ckpt_every=100))  # core.train.LoopConfig
    cfg.n_inits = 20
    cfg.init_scale = 3.0  # raw parameters ~ N(0, init_scale²)
    cfg.cert = ml_collections.ConfigDict(dataclasses.asdict(CertConfig()))  # box [-2, 2], 2048 random points, ...

    if a.preset == "tiny":
        cfg.model.update(hidden=4, depth=1)
        cfg.data.update(n_train=64)
        cfg.train.update(steps=3, batch_size=16)
        cfg.n_inits = 2
        cfg.cert.update(n_random=16, n_adv=2, adv_steps=2)
    elif a.preset == "full":
        cfg.n_inits = 200
        cfg.cert.update(n_random=100_000, n_adv=256, adv_steps=300)
    return cfg
