"""Typed settings of TopoGED: frozen, validated dataclasses (no JAX).

Groups: ``pa_churn`` / ``hub_exchange`` (the synthetic generators), ``model`` (descriptor, memory, decoder),
``decoder_train`` (teacher-forced training of the four heads), ``baseline`` (GCNGRU and the threshold-and-cap
protocol), ``stability`` (T2), ``wellformed`` (T1), ``forecast_check`` (T8). No field restates a claim's
threshold: thresholds live in the predicates (``claims.py``).
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range

HISTORIES: tuple[str, ...] = ("all", "window")
PROTOCOLS: tuple[str, ...] = ("strict", "reference")
TAU_OBJECTIVES: tuple[str, ...] = ("sampled", "all_pairs")
UNIVERSES: tuple[str, ...] = ("seen", "all_time")
DEGREE_MODES: tuple[str, ...] = ("last", "window")
MODES: tuple[str, ...] = ("topoged", "oracle", "unguided", "random_probs", "random_phi_ref", "random_phi_same")
GENERATORS: tuple[str, ...] = ("pa_churn", "sbm_drift", "forest_fire_churn", "hub_exchange")


@dataclasses.dataclass(frozen=True)
class PaChurnConfig:
    """``pa_churn`` (spec, Data): preferential attachment with churn; parameters pinned from the prototype."""

    n_snapshots: int = 40
    n_init: int = 100
    stay: float = 0.7
    return_prob: float = 0.05
    dormant_window: int = 10
    arrivals: float = 35.0
    top_frac: float = 0.05
    p_hub: float = 0.7
    p_arrival: float = 0.12
    edge_factor: float = 1.2
    ar: float = 0.6
    ar_scale: float = 0.1
    p_bank: float = 0.5
    bank_window: int = 5

    def __post_init__(self):
        check_range("pa_churn.n_snapshots", self.n_snapshots, 2)
        check_range("pa_churn.n_init", self.n_init, 2)
        for name in ("stay", "return_prob", "top_frac", "p_hub", "p_arrival", "p_bank"):
            check_range(f"pa_churn.{name}", getattr(self, name), 0.0, 1.0)
        check_range("pa_churn.p_hub + p_arrival", self.p_hub + self.p_arrival, 0.0, 1.0)
        check_range("pa_churn.arrivals", self.arrivals, 0.0)
        check_range("pa_churn.edge_factor", self.edge_factor, 0.0, lo_open=True)
        check_range("pa_churn.dormant_window", self.dormant_window, 1)
        check_range("pa_churn.bank_window", self.bank_window, 1)


@dataclasses.dataclass(frozen=True)
class HubExchangeConfig:
    """``hub_exchange``: a few persistent hubs that arrivals attach to (the ERC20 regime, on% ≥ 40)."""

    n_snapshots: int = 40
    n_hubs: int = 5
    n_init: int = 60
    stay: float = 0.6
    arrivals: float = 45.0
    p_hub: float = 0.8
    p_arrival: float = 0.1
    extra_edges: float = 0.8
    p_bank: float = 0.5

    def __post_init__(self):
        check_range("hub_exchange.n_snapshots", self.n_snapshots, 2)
        check_range("hub_exchange.n_hubs", self.n_hubs, 1)
        check_range("hub_exchange.n_init", self.n_init, 2)
        for name in ("stay", "p_hub", "p_arrival", "p_bank"):
            check_range(f"hub_exchange.{name}", getattr(self, name), 0.0, 1.0)
        check_range("hub_exchange.p_hub + p_arrival", self.p_hub + self.p_arrival, 0.0, 1.0)
        check_range("hub_exchange.arrivals", self.arrivals, 0.0)
        check_range("hub_exchange.extra_edges", self.extra_edges, 0.0)


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """The ``model`` group: descriptor, splits, memory module and decoder (spec, Definitions and method)."""

    n_levels: int = 10
    k: int = 5  # history window: edge bank and memory window
    history: str = "all"
    train_frac: float = 0.7
    val_frac: float = 0.15
    ewma_alpha: float = 0.5
    mem_alpha: float = 3.0
    mem_beta: float = 8.0
    mem_lambda: float = 0.35
    mem_degree: str = "last"
    fit_memory: bool = True
    alpha_grid: tuple[float, ...] = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    beta_grid: tuple[float, ...] = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0)
    lambda_grid: tuple[float, ...] = (0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
    hidden: int = 128
    dropout: float = 0.1
    partners: int = 20  # M sampled partners per node in phases II-IV
    pool_factor: float = 10.0  # rho: pool capped at rho * budget
    gamma_f: float = 2.0
    gamma_c: float = 2.0
    reencode: bool = True

    def __post_init__(self):
        check_range("model.n_levels", self.n_levels, 1)
        check_range("model.k", self.k, 1)
        check_choice("model.history", self.history, HISTORIES)
        check_range("model.train_frac", self.train_frac, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("model.val_frac", self.val_frac, 0.0, 1.0 - self.train_frac, lo_open=True, hi_open=True)
        check_range("model.ewma_alpha", self.ewma_alpha, 0.0, 1.0, lo_open=True)
        check_range("model.mem_lambda", self.mem_lambda, 0.0, lo_open=True)
        check_range("model.lambda_grid", self.lambda_grid, 0.0, lo_open=True)
        check_choice("model.mem_degree", self.mem_degree, DEGREE_MODES)
        check_range("model.hidden", self.hidden, 1)
        check_range("model.dropout", self.dropout, 0.0, 1.0, hi_open=True)
        check_range("model.partners", self.partners, 1)
        check_range("model.pool_factor", self.pool_factor, 1.0)
        check_range("model.gamma_f", self.gamma_f, 0.0)
        check_range("model.gamma_c", self.gamma_c, 0.0)


@dataclasses.dataclass(frozen=True)
class DecoderTrainConfig:
    """The ``decoder_train`` group: teacher-forced BCE training of the trunk and heads (Adam, at most ``epochs``
    epochs, early stopping on validation ROC-AUC with ``patience``)."""

    epochs: int = 30
    lr: float = 1e-3
    weight_decay: float = 0.0
    neg_ratio: int = 1
    early_stop: bool = True
    patience: int = 10

    def __post_init__(self):
        check_range("decoder_train.epochs", self.epochs, 1)
        check_range("decoder_train.lr", self.lr, 0.0, lo_open=True)
        check_range("decoder_train.weight_decay", self.weight_decay, 0.0)
        check_range("decoder_train.neg_ratio", self.neg_ratio, 1)
        check_range("decoder_train.patience", self.patience, 1)


@dataclasses.dataclass(frozen=True)
class BaselineConfig:
    """The ``baseline`` group: GCNGRU (identity features) and the threshold-and-cap protocol (App. D.5)."""

    dim: int = 16
    epochs: int = 60
    lr: float = 3e-2
    cap_factor: float = 5.0
    tau_objective: str = "sampled"
    tau_grid: tuple[float, ...] = tuple(round(0.05 + 0.01 * i, 2) for i in range(95))
    universe: str = "seen"
    node_bucket: int = 1536
    evolvegcn: bool = False  # also train EvolveGCN-O (full preset: T6 among TopoGED and both GNNs)

    def __post_init__(self):
        check_range("baseline.dim", self.dim, 1)
        check_range("baseline.epochs", self.epochs, 1)
        check_range("baseline.lr", self.lr, 0.0, lo_open=True)
        check_range("baseline.cap_factor", self.cap_factor, 0.0, lo_open=True)
        check_choice("baseline.tau_objective", self.tau_objective, TAU_OBJECTIVES)
        check_range("baseline.tau_grid", self.tau_grid, 0.0, 1.0)
        check_choice("baseline.universe", self.universe, UNIVERSES)
        check_range("baseline.node_bucket", self.node_bucket, 8)


@dataclasses.dataclass(frozen=True)
class StabilityConfig:
    """T2 (Prop. 4.1): random graphs, random δ-edits, integer thresholds 0..max_threshold."""

    trials: int = 2000
    n_max: int = 60
    delta_max: int = 10
    max_threshold: int = 63
    edge_prob: float = 0.1
    witness_eps: int = 5

    def __post_init__(self):
        check_range("stability.trials", self.trials, 1)
        check_range("stability.n_max", self.n_max, 4)
        check_range("stability.delta_max", self.delta_max, 1)
        check_range("stability.max_threshold", self.max_threshold, 1)
        check_range("stability.edge_prob", self.edge_prob, 0.0, 1.0)
        check_range("stability.witness_eps", self.witness_eps, 1)


@dataclasses.dataclass(frozen=True)
class WellFormedConfig:
    """T1: random graphs of at most ``n_max`` nodes, plus every snapshot of the generated series."""

    n_graphs: int = 200
    n_max: int = 300
    n_levels: int = 10

    def __post_init__(self):
        check_range("wellformed.n_graphs", self.n_graphs, 1)
        check_range("wellformed.n_max", self.n_max, 2)
        check_range("wellformed.n_levels", self.n_levels, 1)


@dataclasses.dataclass(frozen=True)
class ForecastCheckConfig:
    """T8: one-step-ahead terminal-count errors of the five predictors over each test split."""

    generators: tuple[str, ...] = ("pa_churn", "hub_exchange")
    seeds: tuple[int, ...] = (0, 1, 2)
    n_snapshots: int = 40
    test_frac: float = 0.15
    learned: bool = False  # also fit and report the GRUForecaster (full preset)
    gru_hidden: int = 64
    gru_steps: int = 300

    def __post_init__(self):
        check_range("forecast_check.gru_hidden", self.gru_hidden, 1)
        check_range("forecast_check.gru_steps", self.gru_steps, 1)
        for g in self.generators:
            check_choice("forecast_check.generators", g, GENERATORS)
        check_range("forecast_check.n_snapshots", self.n_snapshots, 10)
        check_range("forecast_check.test_frac", self.test_frac, 0.0, 0.5, lo_open=True)
