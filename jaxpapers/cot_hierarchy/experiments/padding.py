"""H4: the PadWriter writes p(n) − n PADs and START itself, then simulates M_pad; direction 2 on padded inputs."""

from __future__ import annotations

import itertools

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.config import PadConfig
from jaxpapers.cot_hierarchy.padding import pad_tm, pad_value
from jaxpapers.cot_hierarchy.tm import palindrome_tm, run_tm_batch
from jaxpapers.cot_hierarchy.transformer import cache_bucket, decode


def all_strings(n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Every x ∈ {1, 2}^n for 1 ≤ n ≤ n_max (rows zero-padded) and the lengths."""
    strs = [s for n in range(1, n_max + 1) for s in itertools.product((1, 2), repeat=n)]
    xs = np.zeros((len(strs), n_max), np.int32)
    for i, s in enumerate(strs):
        xs[i, : len(s)] = s
    return xs, np.array([len(s) for s in strs], np.int32)


def padding_runs(pc: PadConfig) -> dict:
    """PadWriter (direction 1) and Construction A for M_pad on well-formed padded strings (direction 2)."""
    xs, ns = all_strings(pc.n_max)
    m_pad = pad_tm(palindrome_tm())
    hash_sym = m_pad.g - 1
    p = pad_value(pc.pad_poly, ns)
    p_max = int(p.max())
    padded = np.where(np.arange(p_max) < ns[:, None], np.pad(xs, ((0, 0), (0, p_max - pc.n_max))), 0)
    padded = np.where((np.arange(p_max) >= ns[:, None]) & (np.arange(p_max) < p[:, None]), hash_sym, padded)
    t_bound = int((p_max + 1) * (p_max + 2) // 2)
    tr = run_tm_batch(m_pad.delta[None], padded[None].astype(np.int32), p[None].astype(np.int32), t_bound)
    time = np.asarray(tr.steps)[0]
    is_pal = np.array([list(x[:n]) == list(x[:n])[::-1] for x, n in zip(xs, ns, strict=True)])
    max_new = int((p - ns + time + 2).max())
    arch, vocab, _ = cons.padwriter_arch(m_pad.k, m_pad.g)
    L = cache_bucket(pc.n_max + max_new)
    params = cons.build_padwriter_params(m_pad, pc.pad_poly, cons.c_constant(L))
    out = decode(params, arch, xs, ns, max_new, cache_len=L)
    tok = np.asarray(out["tokens"])
    n_pad = np.sum(tok == vocab.pad, 1)
    archA, vocabA, _ = cons.tm_arch(m_pad.k, m_pad.g)
    prompts, lens = cons.tm_prompts(xs, ns, vocabA, n_pad=p - ns)
    LA = cache_bucket(prompts.shape[1] + int(time.max()) + 1)
    out2 = decode(
        cons.build_tm_params(m_pad, cons.c_constant(LA)), archA, prompts, lens, int(time.max()) + 1, cache_len=LA
    )
    return {
        "xs": xs,
        "ns": ns,
        "p": p,
        "time": time,
        "is_pal": is_pal,
        "answer": np.asarray(out["answer"]),
        "cot_len": np.asarray(out["cot_len"]),
        "n_pad": n_pad,
        "answer2": np.asarray(out2["answer"]),
        "cot_len2": np.asarray(out2["cot_len"]),
        "tm_accept": np.asarray(tr.accept)[0],
    }


def measure_padding(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H4: answers, exact token counts c_L = p(n) − n + time + 2, PAD counts, direction-2 answers."""
    del key  # exhaustive: every string up to n_max
    pc = to_dataclass(PadConfig, cfg.pad)
    r = padding_runs(pc)
    predicted_len = r["p"] - r["ns"] + r["time"] + 2
    return Measurement(
        measured={
            "answer_errors": int(np.sum(r["answer"] != r["is_pal"])),
            "length_errors": int(np.sum(r["cot_len"] != predicted_len)),
            "pad_count_errors": int(np.sum(r["n_pad"] != r["p"] - r["ns"])),
            "direction2_errors": int(np.sum((r["answer2"] != r["is_pal"]) | (r["cot_len2"] != r["time"] + 1))),
        },
        predicted={"answer_errors": 0, "length_errors": 0, "pad_count_errors": 0, "direction2_errors": 0},
        n=int(r["ns"].size),
        details={
            "strings": int(r["ns"].size),
            "max_cot_len": int(r["cot_len"].max()),
            "mean_extra_tokens": float(np.mean(r["cot_len"] - r["time"] - 1)),
        },
        figures={"h4_padding": _figure(r)},
        captions={
            "h4_padding": "CoT length of the PadWriter against n: the p(n) − n + 1 PAD/START tokens it writes "
            "itself (line) plus the simulation of M_pad; every marker is on its exact count."
        },
    )


def _figure(r):
    from jaxpapers.cot_hierarchy.figures import padding_figure

    return padding_figure(r["ns"], r["cot_len"], r["p"] - r["ns"] + r["time"] + 2, r["p"] - r["ns"] + 1)
