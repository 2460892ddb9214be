"""Observed trends for claim E9 (report only): training-cost growth vs hardware price-performance.

The model's spend exponent e_$ = γλ/(1 − γλ) says how training spend grows with FLOP/$. Observed trends give
it as a ratio of growth rates: frontier training cost grows ≈ 2.4×/yr (Cottier et al. 2024, Epoch AI) while ML
GPU price-performance doubles every ≈ 2-2.5 years, so e_$ = ln 2.4 / ln g_E with g_E = 2^{1/T_double}. The γ
that matches is γ = e_$/((1 + e_$)·λ).

A user may supply their own trend points as a CSV with columns ``year, flop_per_dollar, train_cost_usd``;
e_$ is then the log-log slope of cost on FLOP/$.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.stats import fit_loglog

TREND_COLUMNS: tuple[str, ...] = ("year", "flop_per_dollar", "train_cost_usd")


@dataclasses.dataclass(frozen=True)
class TrendData:
    """Trend points read from a CSV (float64 arrays of equal length)."""

    year: np.ndarray
    flop_per_dollar: np.ndarray
    train_cost_usd: np.ndarray


@dataclasses.dataclass(frozen=True)
class TrendFit:
    """Annual growth factors of FLOP/$ and of training cost, and the implied spend exponent e_$ (with its SE)."""

    flop_per_dollar_growth: float
    cost_growth: float
    spend_exponent: float
    spend_exponent_stderr: float
    r2: float
    n: int


def load_trend_csv(path: str | Path) -> TrendData:
    """Reads ``year, flop_per_dollar, train_cost_usd`` rows (extra columns ignored); positive values only."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"trend_csv={str(path)!r} does not exist; give a CSV with columns {', '.join(TREND_COLUMNS)}")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in TREND_COLUMNS if c not in header]
        if missing:
            raise ConfigError(
                f"trend_csv={str(path)!r} lacks column(s) {', '.join(missing)}; has {', '.join(header) or '(none)'}; "
                f"needs {', '.join(TREND_COLUMNS)}"
            )
        rows = [{k.strip(): v for k, v in row.items() if k is not None} for row in reader]
    cols: dict[str, list[float]] = {c: [] for c in TREND_COLUMNS}
    for line, row in enumerate(rows, start=2):
        for c in TREND_COLUMNS:
            text = (row.get(c) or "").strip()
            try:
                value = float(text)
            except ValueError:
                raise ConfigError(f"trend_csv line {line}: {c}={text!r} is not a number") from None
            if not math.isfinite(value) or (c != "year" and value <= 0):
                allowed = "a finite year" if c == "year" else "a positive, finite number"
                raise ConfigError(f"trend_csv line {line}: {c}={value!r} is not allowed; expected {allowed}")
            cols[c].append(value)
    if len(rows) < 3:
        raise ConfigError(f"trend_csv={str(path)!r} has {len(rows)} data rows; need at least 3 to fit a trend")
    return TrendData(**{c: np.asarray(v, dtype=np.float64) for c, v in cols.items()})


def fit_trend(data: TrendData) -> TrendFit:
    """e_$ as the slope of log cost on log FLOP/$, and both annual growth factors from log-linear fits on year."""
    fit = fit_loglog(data.flop_per_dollar, data.train_cost_usd)
    g_e = math.exp(np.polyfit(data.year, np.log(data.flop_per_dollar), 1)[0])
    g_c = math.exp(np.polyfit(data.year, np.log(data.train_cost_usd), 1)[0])
    return TrendFit(g_e, g_c, fit.slope, fit.stderr, fit.r2, fit.n)


def spend_exponent_from_growth(cost_growth_per_year: float, flop_per_dollar_doubling_years: float) -> float:
    """e_$ = ln(cost growth per year) / ln(FLOP/$ growth per year), with FLOP/$ doubling every T years."""
    return math.log(cost_growth_per_year) / (math.log(2.0) / flop_per_dollar_doubling_years)
