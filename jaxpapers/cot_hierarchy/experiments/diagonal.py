"""H6: the diagonal language D_r is decided within r(n) + 1 tokens and differs from every sampled clocked machine
on its own code (a finite illustration of the time-hierarchy ingredient, not a proof of the CoT hierarchy)."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy import diagonal as dg
from jaxpapers.cot_hierarchy.config import DiagConfig
from jaxpapers.cot_hierarchy.transformer import cache_bucket, decode


def diagonal_runs(dc: DiagConfig, key: jax.Array) -> dict:
    """Decider answers and CoT lengths on ⟨M⟩1^k for sampled M, and the clocked TM ground truth."""
    deltas = dg.enumerate_family(dc.sample, key)
    xs, ns = dg.diagonal_inputs(deltas, dc.k_max)
    truth = dg.diag_label(deltas, xs, ns, dc.clock)
    n_max = int(ns.max())
    arch, vocab, _ = dg.diagonal_arch(n_max, dc.clock)
    prompts, lens = cons.tm_prompts(xs, ns, vocab)
    max_new = int(truth["r"].max()) + 1
    L = cache_bucket(prompts.shape[-1] + max_new)
    params = dg.build_diagonal_params(n_max, dc.clock, cons.c_constant(L))
    out = decode(params, arch, prompts.reshape(-1, prompts.shape[-1]), lens.reshape(-1), max_new, cache_len=L)
    return {
        **truth,
        "answer": np.asarray(out["answer"]).reshape(ns.shape),
        "cot_len": np.asarray(out["cot_len"]).reshape(ns.shape),
        "ns": ns,
    }


def measure_diagonal(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H6: decider = D_r, diagonal disagreement, c_D ≤ r + 1 and c_D = min(time, r) + 1, max c_D / r."""
    dc = to_dataclass(DiagConfig, cfg.diag)
    r = diagonal_runs(dc, key)
    ratio = r["cot_len"] / r["r"]
    return Measurement(
        measured={
            "decider_errors": int(np.sum(r["answer"] != r["label"])),
            "diagonal_agreements": int(np.sum(r["answer"] == r["accepts"])),
            "length_bound_violations": int(np.sum(r["cot_len"] > r["r"] + 1)),
            "length_formula_errors": int(np.sum(r["cot_len"] != r["steps"] + 1)),
            "max_ratio_excess": float(np.max(ratio - 1 - 1 / r["r"])),
        },
        predicted={
            "decider_errors": 0,
            "diagonal_agreements": 0,
            "length_bound_violations": 0,
            "length_formula_errors": 0,
        },
        n=int(r["ns"].size),
        details={
            "machines": dc.sample,
            "inputs": int(r["ns"].size),
            "max_c_over_r": float(ratio.max()),
            "fraction_in_D": float(r["label"].mean()),
            "clocked_out_fraction": float(np.mean(r["steps"] == r["r"])),
        },
        figures={"h6_diagonal": _figure(r)},
        captions={
            "h6_diagonal": "CoT length of the diagonal decider against input length: every run stays on or "
            "below the clock line r(n) + 1; runs on the line are the machines cut by the clock."
        },
    )


def _figure(r):
    from jaxpapers.cot_hierarchy.figures import diagonal_figure

    return diagonal_figure(r["ns"].ravel(), r["cot_len"].ravel(), r["r"].ravel())
