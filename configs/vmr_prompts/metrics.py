"""V1 of ``vmr_prompts``: our metrics against hand-computed fixtures and an independent re-implementation of
Moment-DETR's ``compute_mr_r1`` on random QVHighlights-format rows.

    jaxpapers verify vmr_prompts/V1-metrics

Presets: ``tiny`` (50 rows), ``quick`` (500 rows), ``full`` (1,000 rows).
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.n_rows = {"tiny": 50, "quick": 500, "full": 1000}[a.preset]
    return cfg
