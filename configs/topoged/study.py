"""The shared forecasting study (claims T3–T7 of ``topoged``; paper §5, Tables 3–4, App. D.5).

``pa_churn`` (pinned parameters), 40 daily snapshots split 28 / 6 / 6, seeds {0, 1}, 12 test snapshots pooled.
One decoder per seed (GCN trunk + four heads, teacher forced, one vmapped ``lax.scan``), one GCNGRU per seed
(identity features, d = 16, 60 epochs, Adam 3e-2) under the threshold-and-cap protocol, copy-last and EdgeBank
beside them; everything scored in one ID space under the strict and the reference protocol.

    jaxpapers verify topoged/T4a topoged/T4b topoged/T3 topoged/T5 topoged/T6 topoged/T7   # quick, 2 CPU cores
    jaxpapers verify topoged --preset full                                                  # accelerator

Expected (quick, measured): TopoGED strict node F1 ≈ 0.41 vs GCNGRU ≈ 0.03 (reference protocol ≈ 0.71),
copy-last 0.58; strict edge F1 ≈ 0.17 vs 0.00 (copy-last 0.34). The study is the cost: see the README.

Presets: ``tiny`` (tests: 12 snapshots, 2 epochs), ``quick`` (default), ``full`` (200 snapshots, 5 seeds, up to
100 decoder epochs with early stopping, EvolveGCN-O beside GCNGRU).
Groups: ``data`` -> ``topoged.config.PaChurnConfig``, ``model`` -> ``ModelConfig``, ``decoder_train`` ->
``DecoderTrainConfig``, ``baseline`` -> ``BaselineConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.seeds = (0, 1)
    cfg.sweep_ks = ()  # history-window sweep (paper Fig. 4), reported in T5's details; full only
    cfg.data = ml_collections.ConfigDict(dict(n_snapshots=40))
    cfg.model = ml_collections.ConfigDict(dict(k=5, history="all", hidden=128, fit_memory=True))
    cfg.decoder_train = ml_collections.ConfigDict(dict(epochs=30, lr=1e-3, early_stop=True, patience=10))
    cfg.baseline = ml_collections.ConfigDict(
        dict(dim=16, epochs=60, lr=3e-2, node_bucket=1536, universe="seen", evolvegcn=False)
    )
    if a.preset == "tiny":
        cfg.data.update(n_snapshots=14, n_init=30, arrivals=10.0)
        cfg.model.update(hidden=16, alpha_grid=(0.0, 3.0), beta_grid=(0.0, 8.0), lambda_grid=(0.35,))
        cfg.decoder_train.epochs = 2
        cfg.baseline.update(epochs=3, node_bucket=256)
    elif a.preset == "full":
        cfg.seeds = (0, 1, 2, 3, 4)
        cfg.sweep_ks = (1, 2, 3, 5, 8, 12, 20, 30)
        cfg.data.n_snapshots = 200
        cfg.decoder_train.epochs = 100
        cfg.baseline.update(node_bucket=8192, evolvegcn=True)
    return cfg
