"""High-level runs: a batch of machines × inputs through run_tm and through the CoT transformer, compared.

``simulate_cot(tm, xs)`` is the one-call public entry: it runs Construction A (or B, ``universal=True``) on
every input and returns the token-by-token match with the TM trace, the CoT lengths and the TM times.
"""

from __future__ import annotations

import jax
import numpy as np
from jaxtyping import ArrayLike, Int

from jaxpapers.core.checks import check_choice, require_x64
from jaxpapers.core.errors import ConfigError
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.tm import TM, Trace, run_tm_batch
from jaxpapers.cot_hierarchy.transformer import cache_bucket, decode
from jaxpapers.cot_hierarchy.vocab import Vocab, trace_tokens


def reference_tokens(trace: Trace, vocab: Vocab) -> np.ndarray:
    """The CoT a correct construction emits for ``trace`` ([..., T+1], −1 where nothing is determined)."""
    return np.asarray(trace_tokens(trace.q, trace.w, trace.d, trace.steps, trace.accept, trace.halted, vocab))


def compare(tokens: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per-run exact match on every determined token (non-halting runs: on all T_max STEP tokens)."""
    tokens, ref = np.asarray(tokens), np.asarray(ref)
    return np.all((tokens[..., : ref.shape[-1]] == ref) | (ref == -1), axis=-1)


def run_machines(
    tms: TM,
    xs: Int[ArrayLike, "m i n"],
    ns: Int[ArrayLike, "m i"],
    t_max: int,
    *,
    universal: bool = False,
    attention: str = "hard",
) -> dict:
    """Machines (stacked, one bucket) × inputs: TM trace, CoT decode (Construction A with per-machine params, or
    B with one fixed parameter set), match, CoT length, TM time."""
    require_x64("run_machines")
    check_choice("attention", attention, ("hard", "saturated"))
    if tms.delta.ndim != 3 + 1:
        raise ConfigError(f"tms.delta has shape {tms.delta.shape}; expected stacked machines (m, k, g, 3)")
    xs, ns = np.asarray(xs, np.int32), np.asarray(ns, np.int32)
    m, i = ns.shape
    trace = run_tm_batch(tms.delta, xs, ns, t_max)
    if universal:
        arch, vocab, _ = cons.universal_arch(tms.k, tms.g, attention)
        prompts, lens = cons.universal_prompts(np.asarray(tms.delta)[:, None], xs, ns, vocab)
    else:
        arch, vocab, _ = cons.tm_arch(tms.k, tms.g, attention)
        prompts, lens = cons.tm_prompts(xs, ns, vocab)
    L = cache_bucket(prompts.shape[-1] + t_max + 1)
    C = cons.c_constant(L)
    flat = prompts.reshape(m * i, -1), lens.reshape(m * i)
    if universal:
        params = cons.build_universal_params(tms.k, tms.g, C)
        out = decode(params, arch, *flat, t_max + 1, cache_len=L)
    else:
        params = cons.build_tm_params(tms, C)
        out = decode(params, arch, *flat, t_max + 1, cache_len=L, batched=cons.MACHINE_PARAMS)
    tokens = np.asarray(out["tokens"]).reshape(m, i, -1)
    ref = reference_tokens(trace, vocab)
    return {
        "match": compare(tokens, ref),
        "cot_len": np.asarray(out["cot_len"]).reshape(m, i),
        "tm_time": np.asarray(trace.steps),
        "halted": np.asarray(trace.halted),
        "accept": np.asarray(trace.accept),
        "answer": np.asarray(out["answer"]).reshape(m, i),
        "ops": np.asarray(out["ops"]).reshape(m, i),
        "params": params,
        "arch": arch,
    }


def simulate_cot(tm: TM, xs, t_max: int = 256, *, universal: bool = False) -> dict:
    """Runs one machine on a list of inputs (sequences over {1..g-1}) through the CoT transformer.

    Returns ``trace_match`` (bool per input), ``cot_len`` and ``tm_time`` (TM steps, transition into the halting
    state included); halting runs satisfy cot_len = tm_time + 1."""
    xs = [np.asarray(x, np.int32).ravel() for x in xs]
    if not xs:
        raise ConfigError("simulate_cot xs=[] is not allowed; give at least one input")
    n_max = max(1, max(x.size for x in xs))
    X = np.zeros((1, len(xs), n_max), np.int32)
    for j, x in enumerate(xs):
        if x.size and (x.min() < 1 or x.max() >= tm.g):
            raise ConfigError(f"simulate_cot xs[{j}] has symbols outside the input alphabet 1..{tm.g - 1}")
        X[0, j, : x.size] = x
    N = np.array([[x.size for x in xs]], np.int32)
    stacked = TM(delta=tm.delta[None], k=tm.k, g=tm.g)
    with jax.enable_x64(True):
        r = run_machines(stacked, X, N, t_max, universal=universal)
    return {"trace_match": r["match"][0], "cot_len": r["cot_len"][0], "tm_time": r["tm_time"][0]}
