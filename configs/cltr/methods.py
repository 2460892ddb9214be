"""CLTR claims C5a and C5b: Head-then-Tail training of an MLP 64-64-10 on LT-digits (raw standardised pixels)
against joint baselines, all methods and seeds in one compiled stage program.

    jaxpapers verify cltr/C5a                                  # variant=step: Theorem A's regime
    jaxpapers verify cltr/C5b                                  # variant=weak: exponential IF 50, AdamW

Variants: ``step`` (C5a: step IF = 20, mu = 1e-2 in the loss, Adam 400/200 steps, 8 seeds, ERM/LA/CB/Head/
FT/replay) and ``weak`` (C5b: exponential IF = 50, no in-loss L2, AdamW wd 1e-4, 600/300 steps, 3 seeds,
ERM/LA/FT/replay/LwF/EWC/l2_anchor). Presets: ``tiny`` (tests), ``quick``, ``full`` (16 seeds). Groups:
``digits`` -> ``cltr.config.DigitsConfig``, ``cl`` -> ``cltr.config.CLConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg, variants=("step", "weak"), default_variant="step")
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.variant = a.variant
    cfg.seed = 0
    cfg.digits = ml_collections.ConfigDict(
        dict(n_test=40, n_pool=130, features="pixels", pca_dim=16, whiten=False, bias=False)
    )
    cfg.cl = ml_collections.ConfigDict(
        dict(
            profile="step",
            imbalance=20.0,
            hidden=64,
            mu=1e-2,
            lr=1e-2,
            weight_decay=0.0,
            joint_steps=400,
            stage_steps=200,
            seeds=8,
            first_seed=0,
            methods=("erm", "la", "cb", "head", "ft", "replay"),
            replay_per_class=10,
            lwf_alpha=20.0,
            lwf_temperature=2.0,
            ewc_lambda=1e4,
            l2_lambda=0.03,
            la_tau=1.0,
            cb_beta=0.9999,
        )
    )
    if a.variant == "weak":
        cfg.cl.update(
            profile="exp",
            imbalance=50.0,
            mu=0.0,
            weight_decay=1e-4,
            joint_steps=600,
            stage_steps=300,
            seeds=3,
            methods=("erm", "la", "head", "ft", "replay", "lwf", "ewc", "l2_anchor"),
        )
    if a.preset == "tiny":
        cfg.cl.update(hidden=8, joint_steps=20, stage_steps=10, seeds=2)
    elif a.preset == "full":
        cfg.cl.update(seeds=16)
    return cfg
