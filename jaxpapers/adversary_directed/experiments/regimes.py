"""D2, D3, D4 (the trichotomy's rates as exact game values) and D6 (standard online contrast).

All measured values come from the solver (studies.family_values: one padded program per kind); the closed
forms and the spec's listed sequences are the predictions.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.adversary_directed import classes, closed_forms, dims, figures
from jaxpapers.adversary_directed.config import RegimeConfig
from jaxpapers.adversary_directed.online import standard_online_table
from jaxpapers.adversary_directed.studies import family_values
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass

OCTAVES = (1, 3, 7)  # T = 2^j − 1: the staircase's corners (spec D3: do not fit over all T)


def octave_slope(Ts, values) -> float:
    """Least-squares slope of value against log2(T + 1) at T ∈ {1, 3, 7} (spec D3)."""
    Ts = list(Ts)
    x = np.log2(np.array(OCTAVES) + 1.0)
    y = np.array([values[Ts.index(t)] for t in OCTAVES], np.float64)
    return float(np.polyfit(x, y, 1)[0])


def measure_constant(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D2: singletons ∪ ∅ and k-sparse classes (Ldim < ∞) — values 1 and min(T, k); randomized 1 − 2^−T."""
    del key
    rc = to_dataclass(RegimeConfig, cfg.regimes)
    Ts = np.arange(1, rc.const_t_max + 1)
    measured = {"singletons": family_values("singletons", Ts)}
    predicted = {"singletons": closed_forms.k_sparse_value(Ts, 1)}
    for k in rc.sparse_ks:
        measured[f"sparse{k}"] = family_values(f"sparse{k}", Ts)
        predicted[f"sparse{k}"] = closed_forms.k_sparse_value(Ts, k)
    measured["singletons_randomized"] = family_values("singletons", Ts, randomized=True)
    predicted["singletons_randomized"] = closed_forms.singletons_randomized(Ts)
    fig = figures.rate_figure(Ts, dict(measured), title="D2: Θ(1) regime", predicted=predicted)
    return Measurement(
        measured={k: np.asarray(v).tolist() for k, v in measured.items()},
        predicted={k: np.asarray(v).tolist() for k, v in predicted.items()},
        n=len(Ts),
        details={"T": Ts.tolist()},
        figures={"constant_regime": fig},
        captions={"constant_regime": figures.CAPTIONS["constant_regime"]},
    )


def measure_log(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D3: thresholds, intervals, unions of ≤ 2 intervals — exact staircases, ≤ VC·log2(T+1), octave slopes."""
    del key
    rc = to_dataclass(RegimeConfig, cfg.regimes)
    spec = {
        "thresholds": (rc.log_t_max, 1, lambda T: int(closed_forms.thresholds_value(T))),
        "intervals": (rc.log_t_max, 2, closed_forms.INTERVALS.get),
        "unions2": (rc.unions_t_max, 4, closed_forms.UNIONS2.get),
    }
    measured, predicted, details = {}, {}, {}
    bound_viol, growth, slopes = 0, [], []
    for name, (t_max, vc, pred) in spec.items():
        Ts = list(range(1, t_max + 1))
        v = family_values(name, Ts)
        measured[name] = v.tolist()
        predicted[name] = [float(pred(T)) for T in Ts]
        bound_viol += int(np.sum(v > vc * np.log2(np.array(Ts) + 1.0) + 1e-9))
        growth.append(float(v[-1] - v[-(-t_max // 4) - 1]))
        slopes.append(octave_slope(Ts, v))
        details[f"{name}_T"] = Ts
        details[f"{name}_vc"] = vc
    measured.update(bound_violations=bound_viol, growth=growth, octave_slopes=slopes)
    predicted.update(bound_violations=0)
    details["octave_slopes_by_family"] = dict(zip(spec, slopes, strict=True))
    fig = figures.rate_figure(
        range(1, rc.log_t_max + 1),
        {k: measured[k] for k in spec},
        title="D3: Θ(log T) regime",
        log_ref=True,
        predicted={k: predicted[k] for k in spec},
    )
    return Measurement(
        measured=measured,
        predicted=predicted,
        n=len(spec),
        details=details,
        figures={"log_regime": fig},
        captions={"log_regime": figures.CAPTIONS["log_regime"]},
    )


def measure_linear(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D4: all subsets (VC = ∞) and the prefix class (Natarajan = 1): value T, randomized T/2."""
    del key
    rc = to_dataclass(RegimeConfig, cfg.regimes)
    Ts = np.arange(1, rc.linear_t_max + 1)
    Tr = np.arange(1, rc.prefix_randomized_t_max + 1)
    measured = {
        "all_subsets": family_values("all_subsets", Ts).tolist(),
        "all_subsets_randomized": family_values("all_subsets", Ts, randomized=True).tolist(),
        "prefix": family_values("prefix", Ts).tolist(),
        "prefix_randomized": family_values("prefix", Tr, randomized=True).tolist(),
        "prefix_natarajan": [dims.natarajan_dim(classes.prefix_class(int(T))) for T in Ts],
    }
    predicted = {
        "all_subsets": closed_forms.linear_value(Ts).tolist(),
        "all_subsets_randomized": closed_forms.linear_value(Ts, True).tolist(),
        "prefix": closed_forms.linear_value(Ts).tolist(),
        "prefix_randomized": closed_forms.linear_value(Tr, True).tolist(),
        "prefix_natarajan": [1] * len(Ts),
    }
    fig = figures.rate_figure(
        Ts,
        {k: measured[k] for k in ("all_subsets", "prefix", "all_subsets_randomized")},
        title="D4: Θ(T) regime",
        predicted=predicted,
        linear_ref=True,
    )
    return Measurement(
        measured=measured,
        predicted=predicted,
        n=len(Ts),
        details={"T": Ts.tolist()},
        figures={"linear_regime": fig},
        captions={"linear_regime": figures.CAPTIONS["linear_regime"]},
    )


def measure_online(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D6: thresholds, standard online (domain [2^T − 1], not announced) vs adversary-directed on T points."""
    del key
    rc = to_dataclass(RegimeConfig, cfg.regimes)
    Ts = np.arange(1, rc.online_t_max + 1)
    table = standard_online_table(1 << int(Ts[-1]), int(Ts[-1]))  # one program for every horizon
    std = [float(table[int(T), 1 << int(T)]) for T in Ts]  # 2^T − 1 points: 2^T thresholds
    ad = family_values("thresholds", Ts).tolist()
    return Measurement(
        measured={"standard": std, "adversary_directed": ad},
        predicted={
            "standard": Ts.astype(float).tolist(),
            "adversary_directed": closed_forms.thresholds_value(Ts).tolist(),
        },
        n=len(Ts),
        details={"T": Ts.tolist(), "standard_domain_size": [(1 << int(T)) - 1 for T in Ts]},
        figures={
            "online_vs_ad": figures.rate_figure(
                Ts,
                {"standard online": std, "adversary-directed": ad},
                title="D6: thresholds",
                log_ref=True,
                linear_ref=True,
            )
        },
        captions={"online_vs_ad": figures.CAPTIONS["online_vs_ad"]},
    )
