"""H5: the instrumented score-evaluation counter of ``decode`` equals S(n, T) and grows quadratically in T."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.config import CostConfig
from jaxpapers.cot_hierarchy.cost import fit_exponent, score_evals
from jaxpapers.cot_hierarchy.tm import TM, make_tm
from jaxpapers.cot_hierarchy.transformer import cache_bucket, decode


def right_mover() -> TM:
    """A machine that never halts: δ(0, s) = (0, s, +1)."""
    d = np.zeros((3, 2, 3), np.int32)
    d[0, :, 0], d[0, :, 1], d[0, :, 2] = 0, (0, 1), 1
    d[1:, :, 0] = 2
    return make_tm(d)


def op_counts(cc: CostConfig) -> dict:
    """One decode of ``max(ts)`` tokens; the counter after T generated tokens for every T in ``ts``."""
    tm = right_mover()
    arch, vocab, _ = cons.tm_arch(tm.k, tm.g)
    T = max(cc.ts)
    prompts, lens = cons.tm_prompts(np.ones((1, cc.n), np.int32), np.array([cc.n]), vocab)
    L = cache_bucket(prompts.shape[1] + T)
    out = decode(cons.build_tm_params(tm, cons.c_constant(L)), arch, prompts, lens, T, cache_len=L)
    per = np.asarray(out["ops_per_token"])[0]
    ts = np.array(cc.ts)
    heads = [len(s.heads) for s in arch.layers]
    return {"ts": ts, "counted": per[ts - 1], "closed": score_evals(cc.n, ts, heads), "heads": heads}


def measure_cost(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H5: counter − S(n, T) at every T (must be 0) and the OLS exponent of the counter in T."""
    del key
    cc = to_dataclass(CostConfig, cfg.cost)
    r = op_counts(cc)
    return Measurement(
        measured={
            "max_abs_diff": int(np.max(np.abs(r["counted"] - r["closed"]))),
            "exponent": fit_exponent(r["ts"], r["counted"]),
        },
        predicted={"max_abs_diff": 0, "exponent": fit_exponent(r["ts"], r["closed"])},
        n=int(r["ts"].size),
        details={
            "T": r["ts"].tolist(),
            "counted": r["counted"].tolist(),
            "S(n,T)": r["closed"].tolist(),
            "heads_per_layer": r["heads"],
        },
        figures={"h5_cost": _figure(r)},
        captions={
            "h5_cost": "Score evaluations counted by the decode loop (markers) on the closed form S(n, T) "
            "(curve); the dashed line has slope 2."
        },
    )


def _figure(r):
    from jaxpapers.cot_hierarchy.figures import cost_figure

    return cost_figure(r["ts"], r["counted"], r["closed"])
