"""The degree-filtration descriptor Φ (claims T1, T2 of ``topoged``; paper §4, Prop. 4.1 and App. E).

* T1  Φ is exact and well-formed: x_n = |V|, y_n = |E|, X and Y non-decreasing, y_i ≤ C(x_i, 2), and the jitted
  form equals the host form, on 200 random graphs (≤ 300 nodes) and every snapshot of a ``pa_churn`` series.
* T2  Prop. 4.1: zero violations of ‖ΔX‖₁ ≤ 2δ and of the per-level |Δy_i| ≤ δ(1 + 2ε_i) over 2,000 random
  δ-edits (n ≤ 60, δ ≤ 10, thresholds 0..63), ‖ΔX‖₁ = 2δ on every disjoint-deletion trial, and the witness
  |Δy_i| = 2ε = (10/11)·bound at ε = 5.

    jaxpapers verify topoged/T1 topoged/T2            # quick preset: a few seconds on 2 CPU cores
    jaxpapers verify topoged/T2 --preset full         # 1e5 trials

Presets: ``tiny`` (tests: 20 graphs, 100 trials), ``quick`` (default), ``full``. Groups: ``wellformed`` ->
``topoged.config.WellFormedConfig``, ``stability`` -> ``StabilityConfig``, ``data`` -> ``PaChurnConfig``.
Expected (quick): every violation count 0, ~660 disjoint-deletion trials, witness ratio 0.909.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.wellformed = ml_collections.ConfigDict(dict(n_graphs=200, n_max=300, n_levels=10))
    cfg.stability = ml_collections.ConfigDict(
        dict(trials=2000, n_max=60, delta_max=10, max_threshold=63, edge_prob=0.1, witness_eps=5)
    )
    cfg.data = ml_collections.ConfigDict(dict(n_snapshots=40))
    if a.preset == "tiny":
        cfg.wellformed.update(n_graphs=20, n_max=60)
        cfg.stability.update(trials=100, n_max=20)
        cfg.data.n_snapshots = 8
    elif a.preset == "full":
        cfg.wellformed.update(n_graphs=5000, n_max=2000)
        cfg.stability.update(trials=100_000)
        cfg.data.n_snapshots = 200
    return cfg
