"""H1: Construction A's CoT equals the TM trace token by token; H3: one universal parameter set does too."""

from __future__ import annotations

import hashlib

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.api import run_machines
from jaxpapers.cot_hierarchy.config import SimConfig
from jaxpapers.cot_hierarchy.studies import machine_set
from jaxpapers.cot_hierarchy.transformer import cache_bucket


def params_hash(params) -> str:
    """SHA-256 of the structure and every leaf (shape, dtype, bytes) of a params pytree (identical hash = the same
    weights in the same layout; a per-machine axis changes it)."""
    h = hashlib.sha256(str(jax.tree.structure(params)).encode())
    for leaf in jax.tree.leaves(params):
        a = np.asarray(leaf)
        h.update(f"{a.shape}{a.dtype}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _summary(r: dict, labels: list[str]) -> dict:
    match, halted = r["match"], r["halted"]
    over = np.abs(r["cot_len"] - r["tm_time"] - 1)[halted]
    bb = {lab: int(r["tm_time"][i, 0]) for i, lab in enumerate(labels) if lab.startswith("BB")}
    return {
        "mismatched_runs": int((~match).sum()),
        "overhead_violations": int((over != 0).sum()),
        "runs": int(match.size),
        "halting_fraction": float(halted.mean()),
        "bb_steps": bb,
    }


def measure_trace_match(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H1: random machines × inputs (+ BB(2..4)) through Construction A (one param set per machine, vmapped)."""
    sc = to_dataclass(SimConfig, cfg.sim)
    tms, xs, ns, labels = machine_set(sc, key)
    measured, details, figs = {}, {"bucket": (tms.k, tms.g), "machines": len(labels)}, {}
    total_bad = 0
    for att in sc.attention:
        r = run_machines(tms, xs, ns, sc.t_max, attention=att)
        s = _summary(r, labels)
        total_bad += s["mismatched_runs"] + s["overhead_violations"]
        details[att] = s
        if att == sc.attention[0]:
            figs["h1_cot_vs_time"] = _figure(r)
            measured["bb_steps"] = np.array([s["bb_steps"].get(f"BB({b})", 0) for b in (2, 3, 4)])
    measured["mismatched_runs"] = total_bad
    details["halting_fraction"] = details[sc.attention[0]]["halting_fraction"]
    return Measurement(
        measured=measured,
        predicted={"mismatched_runs": 0, "bb_steps": np.array([6, 21, 107]) if sc.busy_beavers else np.zeros(3)},
        n=int(ns.size) * len(sc.attention),
        details=details,
        figures=figs,
        captions={
            "h1_cot_vs_time": "Every halting run lies on the line c = time + 1 (one STEP token per TM step "
            "plus the answer); runs cut at T_max sit at the right edge."
        },
    )


def measure_universal(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H3: the same machines through Construction B, one parameter set.

    ``param_sets`` counts the distinct hashes of (a) ``build_universal_params(k, g, C)`` built before any decode and
    before any machine is seen, and (b) the params the decode of every machine actually received. They agree only
    if one machine-independent pytree (no per-machine axis) decoded all machines."""
    sc = to_dataclass(SimConfig, cfg.sim)
    tms, xs, ns, labels = machine_set(sc, key)
    plen = cons.universal_prompts(np.asarray(tms.delta)[:1, None], xs[:1], ns[:1], cons.universal_arch(tms.k, tms.g)[1])
    h_before = params_hash(
        cons.build_universal_params(tms.k, tms.g, cons.c_constant(cache_bucket(plen[0].shape[-1] + sc.t_max + 1)))
    )
    r = run_machines(tms, xs, ns, sc.t_max, universal=True)
    s = _summary(r, labels)
    depth = len(r["arch"].layers)
    return Measurement(
        measured={
            "mismatched_runs": s["mismatched_runs"] + s["overhead_violations"],
            "param_sets": len({h_before, params_hash(r["params"])}),
        },
        predicted={"mismatched_runs": 0, "param_sets": 1},
        n=int(ns.size),
        details={**s, "params_hash": h_before, "depth": depth, "bucket": (tms.k, tms.g)},
    )


def _figure(r):
    from jaxpapers.cot_hierarchy.figures import cot_vs_time_figure

    return cot_vs_time_figure(r["tm_time"].ravel(), r["cot_len"].ravel(), r["halted"].ravel())
