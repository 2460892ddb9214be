"""D5 (PLdim, not VC/Natarajan, predicts the regime) and D8 (adversary-directed ≠ transductive).

Both depend on our reconstructed PLdim (``dims.perfect_ldim``; see the spec). Dimensions are brute force on
nested domains T = 1..T_max; measured regimes come from the solver's game values (``studies.family_values``).
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.adversary_directed import classes, closed_forms, dims, figures, reference
from jaxpapers.adversary_directed.config import DimsConfig
from jaxpapers.adversary_directed.game import transductive_value
from jaxpapers.adversary_directed.studies import MULTICLASS, family, family_values
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass

SMALL = ("singletons", "sparse2", "sparse3", "thresholds", "intervals")
LINEAR = ("all_subsets", "prefix")


def dimension_table(name: str, t_max: int) -> dict[str, list[int]]:
    """Ldim, VC/Natarajan, LCdim, PLdim of family ``name`` on T = 1..t_max (brute force)."""
    rows = [dims.dimensions(family(name, T)) for T in range(1, t_max + 1)]
    return {k: [r[k] for r in rows] for k in rows[0]}


def measure_regimes(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D5: the regime predicted from the dimension sequences equals the regime of the measured game values."""
    del key
    dc = to_dataclass(DimsConfig, cfg.dims)
    t_max = {
        **{n: dc.small_t_max for n in SMALL},
        **{n: dc.linear_t_max for n in LINEAR},
        "adaptive_order": dc.ao_t_max,
    }
    predicted_regime, measured_regime, tables = {}, {}, {}
    pl_ne_vc = order_viol = 0
    ratio = 0.0
    for name, tm in t_max.items():
        tab = dimension_table(name, tm)
        Ts = list(range(1, tm + 1))
        values = family_values(name, Ts)
        tables[name] = {**tab, "game_value": values.tolist()}
        predicted_regime[name] = dims.predict_regime(tab)
        measured_regime[name] = dims.regime_of_values(Ts, values)
        if name not in MULTICLASS:
            pl_ne_vc += sum(int(p != v) for p, v in zip(tab["pldim"], tab["vc"], strict=True))
        order_viol += sum(
            int(not (n <= lc <= pl <= ld))
            for n, lc, pl, ld in zip(tab["natarajan"], tab["lcdim"], tab["pldim"], tab["ldim"], strict=True)
        )
        ratio = max(
            ratio, max(ld / (pl * np.log2(T + 1)) for T, ld, pl in zip(Ts, tab["ldim"], tab["pldim"], strict=True))
        )
    pre = tables["prefix"]
    prefix_ok = all(n == 1 for n in pre["natarajan"]) and pre["pldim"] == list(range(1, dc.linear_t_max + 1))
    mismatches = sum(int(predicted_regime[n] != measured_regime[n]) for n in t_max)
    return Measurement(
        measured={
            "regime_mismatches": mismatches,
            "pldim_ne_vc_binary": pl_ne_vc,
            "dimension_order_violations": order_viol,
            "prefix_natarajan1_pldimT_failures": int(not prefix_ok),
        },
        predicted={
            "regime_mismatches": 0,
            "pldim_ne_vc_binary": 0,
            "dimension_order_violations": 0,
            "prefix_natarajan1_pldimT_failures": 0,
        },
        n=len(t_max),
        details={
            "predicted_regime": predicted_regime,
            "measured_regime": measured_regime,
            "dimensions": tables,
            "report_max_ldim_over_pldim_log2": ratio,
        },
        figures={"dimensions": figures.dimension_figure(tables)},
        captions={"dimensions": figures.CAPTIONS["dimensions"]},
    )


def measure_transductive_gap(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D8: AO_T — AD = PLdim = T while TD = LCdim < T; the prefix class has TD = AD = T."""
    del key
    dc = to_dataclass(DimsConfig, cfg.dims)
    Ts = list(dc.gap_ts)
    ao = [classes.adaptive_order_class(T) for T in Ts]
    pre = [classes.prefix_class(T) for T in Ts]
    ad = family_values("adaptive_order", Ts)
    td = np.array([transductive_value(h) for h in ao])
    td_ref = np.array([reference.transductive_value(h) for h in ao])
    measured = {
        "ad": ad.tolist(),
        "pldim": [float(dims.perfect_ldim(h)) for h in ao],
        "td": td.tolist(),
        "lcdim": [float(dims.lc_ldim(h)) for h in ao],
        "ad_minus_td": float(np.min(ad - td)),
        "td_reference_mismatches": int(np.sum(td != td_ref)),
        "prefix_ad": family_values("prefix", Ts).tolist(),
        "prefix_td": [transductive_value(h) for h in pre],
    }
    T = np.array(Ts, float)
    predicted = {
        "ad": T.tolist(),
        "pldim": T.tolist(),
        "td": [float(closed_forms.AO_TRANSDUCTIVE[t]) for t in Ts],
        "lcdim": [float(closed_forms.AO_TRANSDUCTIVE[t]) for t in Ts],
        "td_reference_mismatches": 0,
        "prefix_ad": T.tolist(),
        "prefix_td": T.tolist(),
    }
    return Measurement(
        measured=measured,
        predicted=predicted,
        n=len(Ts),
        details={"T": Ts},
        figures={"ad_vs_td": figures.gap_figure(Ts, measured)},
        captions={"ad_vs_td": figures.CAPTIONS["ad_vs_td"]},
    )
