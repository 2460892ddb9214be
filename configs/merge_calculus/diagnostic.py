"""MC7 of ``merge_calculus`` (report-only): C(G) against the measured one-step change Ĉ(G) (spec "Empirical one-step
coefficient").

At init, one batch of 256 digits: the gradient, then the first-order change of every lin-edge output and of
the readout's input along the actual μP SGD update direction −(m ⊙ g) (one ``jax.jvp``), averaged over 3
inits; Spearman ρ(C, Ĉ) and the log-log slope over 8 graphs, no training.

    jaxpapers verify merge_calculus/MC7                 # quick: 8 graphs, width 64 (≈ 5-15 s)
    jaxpapers verify merge_calculus/MC7 --preset full   # CIFAR-10, width 512

Expected (spec prototype): ρ ≈ 0.6, slope ≈ 0.3. Tiny is a smoke run.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.sweep = ml_collections.ConfigDict(dict(dataset="digits", data_dir="", data_limit=0))
    cfg.diagnostic = ml_collections.ConfigDict(
        dict(
            graphs=("chain:1", "chain:2", "chain:4", "chain:8", "res:4", "res:16", "dmup:16", "concat:4,4"),
            width=64,
            batch=256,
            inits=3,
        )
    )
    if a.preset == "tiny":
        cfg.diagnostic.update(graphs=("chain:1", "chain:2", "res:2"), width=16, batch=64, inits=1)
    elif a.preset == "full":
        cfg.sweep.update(dataset="cifar10", data_dir="data/cifar-10-batches-bin", data_limit=1024)
        cfg.diagnostic.update(width=512)
    return cfg
