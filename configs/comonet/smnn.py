"""COMONet CO3: the partial configuration {inc, free} reduces exactly to SMNN.

Spec row CO3 (the abstract's "full or partial configuration"; SMNN: Kim & Lee, ICLR 2024). A COMONet
with only increasing and free inputs builds the free stream, the confluence units, the monotone
stream and the exp-weighted output — SMNN. An independently written ``baselines.SMNN`` receives the
same parameters (``smnn_params_from_comonet``) and both run on the same inputs in float32.

    jaxpapers verify comonet/CO3            # quick: ~2-5 s on 2 CPU cores

Expected: max |COMONet(x) − SMNN(x)| ≈ 1e-7 (float32 sums in another order), criterion ≤ 1e-6.
Presets: ``tiny`` (unit tests), ``quick`` (default), ``full`` (same as quick: nothing to scale).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.regimes = ("inc", "free", "inc", "free", "free", "inc")
    cfg.hidden = 16
    cfg.depth = 2
    cfg.n_inits = 8
    cfg.n_points = 1024
    cfg.input_scale = 2.0
    if a.preset == "tiny":
        cfg.update(hidden=4, depth=1, n_inits=2, n_points=8)
    return cfg
