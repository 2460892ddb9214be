"""O3 (taxonomy of E2E rates: latch classes with sparse K) and O4 (log ceiling on random LTF subclasses)."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.online_autoregressive.config import CeilingConfig, TaxonomyConfig
from jaxpapers.online_autoregressive.generators import _pow2, latch_class, latch_family, ltf_class
from jaxpapers.online_autoregressive.induced import e2e_matrix
from jaxpapers.online_autoregressive.littlestone import ldim


def taxonomy_values(tc: TaxonomyConfig) -> dict[str, np.ndarray]:
    """Exact Ldim(F_K^M) per family (rows follow ``tc.ms``), prompts 0^n, n < R."""
    r_max = max(tc.r(m) for m in tc.ms)
    pad = (_pow2(r_max), _pow2(r_max + 2), _pow2(r_max))
    out = {}
    for fam in tc.families:
        vals = []
        for m in tc.ms:
            r = tc.r(m)
            cls = latch_class(latch_family(fam, m, r), r)
            vals.append(ldim(e2e_matrix(cls, np.arange(r), m, pad=pad)))
        out[fam] = np.array(vals)
    return out


def measure_taxonomy(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O3: all ≤ 1 + ⌊log2 M⌋ (attained by ℕ); {0..7} constant for M ≥ 8; pow2 ≤ squares ≤ ℕ, strict at max M."""
    tc = to_dataclass(TaxonomyConfig, cfg.taxonomy)
    vals = taxonomy_values(tc)
    ms = np.array(tc.ms)
    ceiling = 1 + np.floor(np.log2(ms)).astype(int)
    measured: dict = {"excess_over_ceiling": max(int(np.max(v - ceiling)) for v in vals.values())}
    predicted: dict = {"excess_over_ceiling": 0}
    if "naturals" in vals:
        measured["naturals"], predicted["naturals"] = vals["naturals"], ceiling
    if "finite8" in vals and (ms >= 8).any():
        f = vals["finite8"][ms >= 8]
        measured["finite8_spread_m_ge_8"], predicted["finite8_spread_m_ge_8"] = int(f.max() - f.min()), 0
    if {"pow2", "squares", "naturals"} <= set(vals):
        big = ms >= 16
        p, s, n = vals["pow2"][big], vals["squares"][big], vals["naturals"][big]
        measured["order_violations_m_ge_16"] = int(np.sum(p > s) + np.sum(s > n))
        measured["gaps_at_max_m"] = np.array(
            [vals["squares"][-1] - vals["pow2"][-1], vals["naturals"][-1] - vals["squares"][-1]]
        )
    from jaxpapers.online_autoregressive.figures import CAPTIONS, taxonomy_figure

    return Measurement(
        measured=measured,
        predicted=predicted,
        n=len(tc.ms) * len(tc.families),
        details={"ms": list(tc.ms), "R": [tc.r(m) for m in tc.ms]} | {k: v.tolist() for k, v in vals.items()},
        figures={"taxonomy": taxonomy_figure(tc.ms, vals)},
        captions={"taxonomy": CAPTIONS["taxonomy"]},
    )


def ceiling_values(cc: CeilingConfig, key: jax.Array) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """``(base [C], induced [C, len(ms)], sizes)``: exact Ldim(F) and Ldim(F^M) of random subclasses of LTF_d.

    The induced matrices of all of LTF_d are computed once per M (one roll-out each); subclasses select rows.
    """
    full = ltf_class(cc.d)
    prompts = np.arange(2**cc.d)
    mats = {m: e2e_matrix(full, prompts, m) for m in cc.ms}
    rng = np.random.default_rng(int(jax.random.randint(key, (), 0, 2**31 - 1)))
    hi = min(cc.size_max, full.n)
    base, induced, sizes = [], [], []
    for _ in range(cc.num_classes):
        size = int(rng.integers(min(cc.size_min, hi), hi + 1))
        rows = rng.choice(full.n, size=size, replace=False)
        base.append(ldim(full.table[rows]))
        induced.append([ldim(mats[m][rows]) for m in cc.ms])
        sizes.append(size)
    return np.array(base), np.array(induced), sizes


def measure_ceiling(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O4: Ldim(F^M) ≤ Ldim(F)·(1 + ⌊log2 M⌋) for every random subclass and M; reports the largest ratio."""
    cc = to_dataclass(CeilingConfig, cfg.ceiling)
    base, induced, sizes = ceiling_values(cc, key)
    ceiling = base[:, None] * (1 + np.floor(np.log2(np.array(cc.ms)))[None, :])
    ratio = induced / np.maximum(ceiling, 1)
    growth = induced.max(axis=1) - base
    return Measurement(
        measured={"violations": int(np.sum(induced > ceiling)), "max_ratio": float(ratio.max())},
        predicted={"violations": 0},
        n=int(induced.size),
        details={
            "ms": list(cc.ms),
            "argmax_ratio_M": int(np.array(cc.ms)[np.unravel_index(ratio.argmax(), ratio.shape)[1]]),
            "classes_whose_dimension_grew_with_M": int(np.sum(growth > 0)),
            "base_ldim_range": [int(base.min()), int(base.max())],
            "sizes_range": [min(sizes), max(sizes)],
        },
    )
