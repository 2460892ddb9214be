"""TopoGED: temporal graph forecasting as an inverse topology problem (descriptor forecast + snapshot decoding).

Public API: the snapshot builder and loaders, the generators, the descriptor Φ, edge types, forecasters and
budgets, the memory module, the decoder, baselines, metrics and the :class:`TopoGED` pipeline, plus the
``experiments`` and ``figures`` modules.
"""

from jaxpapers.topoged import experiments, figures
from jaxpapers.topoged.baselines import EvolveGCNO, copy_last, edgebank_scores, threshold_and_cap
from jaxpapers.topoged.config import ModelConfig, PaChurnConfig
from jaxpapers.topoged.data.events import EventStream, Snapshot, to_snapshots
from jaxpapers.topoged.data.loaders import (
    load_dyglib,
    load_erc20_csv,
    load_jodie_csv,
    load_reddit_hyperlinks_tsv,
    load_snap_txt,
    load_tgb_csv,
)
from jaxpapers.topoged.data.synthetic import forest_fire_churn, hub_exchange, pa_churn, sbm_drift
from jaxpapers.topoged.descriptor import (
    beta0_curve,
    degree_thresholds,
    extended_descriptor,
    filtration_descriptor,
    netlsd_heat_trace,
    phi,
)
from jaxpapers.topoged.edge_types import classify, count_vector
from jaxpapers.topoged.forecast import Budgets, forecast_budgets, vewma
from jaxpapers.topoged.learned_forecast import GRUForecaster
from jaxpapers.topoged.memory import reappearance_logits, sample_old_nodes
from jaxpapers.topoged.metrics import forecast_scores, structure_errors
from jaxpapers.topoged.pipeline import TopoGED

__all__ = [
    "Budgets", "EventStream", "EvolveGCNO", "GRUForecaster", "ModelConfig", "PaChurnConfig", "Snapshot", "TopoGED",
    "beta0_curve", "classify", "copy_last", "count_vector", "degree_thresholds", "edgebank_scores", "experiments",
    "extended_descriptor", "figures", "filtration_descriptor", "netlsd_heat_trace",
    "forecast_budgets", "forecast_scores", "forest_fire_churn", "hub_exchange", "load_dyglib", "load_erc20_csv",
    "load_jodie_csv", "load_reddit_hyperlinks_tsv", "load_snap_txt", "load_tgb_csv", "pa_churn", "phi",
    "reappearance_logits", "sample_old_nodes", "sbm_drift", "structure_errors", "threshold_and_cap", "to_snapshots",
    "vewma",
]
