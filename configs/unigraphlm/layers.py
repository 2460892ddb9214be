"""U7: the core GNN layers against a dense float64 reference, under node permutation and padding.

Presets: ``tiny`` (8 graphs), ``quick`` (the claim: 50 random graphs), ``full`` (200). Group ``layers`` ->
``unigraphlm.config.LayerCheckConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.layers = ml_collections.ConfigDict(
        dict(graphs=50, max_nodes=24, max_edges=96, extra_nodes=8, extra_edges=32, features=6, out_features=8)
    )
    if a.preset == "tiny":
        cfg.layers.graphs = 8
    elif a.preset == "full":
        cfg.layers.update(graphs=200, max_nodes=64, max_edges=512)
    return cfg
