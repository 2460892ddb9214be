"""H2: CoT length = TM time + 1 and the length exponents; H7: the float32 precision boundary of the read head."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.api import compare, reference_tokens
from jaxpapers.cot_hierarchy.config import LengthConfig
from jaxpapers.cot_hierarchy.cost import fit_exponent
from jaxpapers.cot_hierarchy.studies import key_rng
from jaxpapers.cot_hierarchy.tm import TM, palindrome_tm, parity_tm, run_tm_batch
from jaxpapers.cot_hierarchy.transformer import cache_bucket, decode, forced_argmax, score_dot_dtypes


def pal_time(n):
    """Steps of palindrome_tm on a palindrome of length n: (n+1)(n+2)/2."""
    return (np.asarray(n) + 1) * (np.asarray(n) + 2) // 2


def decode_runs(tm: TM, xs: np.ndarray, ns: np.ndarray, t_max: int, score_dtype: str = "float64") -> dict:
    """One machine on a batch of inputs: TM trace and Construction-A decode (one compile per cache bucket)."""
    arch, vocab, _ = cons.tm_arch(tm.k, tm.g, score_dtype=score_dtype)
    prompts, lens = cons.tm_prompts(xs, ns, vocab)
    L = cache_bucket(prompts.shape[-1] + t_max + 1)
    params = cons.build_tm_params(tm, cons.c_constant(L))
    out = decode(params, arch, prompts, lens, t_max + 1, cache_len=L)
    tr = run_tm_batch(tm.delta[None], xs[None], ns[None], t_max)
    ref = reference_tokens(tr, vocab)[0]
    return {
        "match": compare(np.asarray(out["tokens"]), ref),
        "cot_len": np.asarray(out["cot_len"]),
        "time": np.asarray(tr.steps)[0],
        "halted": np.asarray(tr.halted)[0],
    }


def _palindromes(n, rng, extra):
    half = rng.integers(1, 3, (n + 1) // 2)
    pal = np.concatenate([half, half[: n // 2][::-1]])
    return np.stack([pal] + [rng.integers(1, 3, n) for _ in range(extra)])


def palindrome_runs(lc: LengthConfig, key: jax.Array) -> dict:
    """Float64 decodes of palindrome_tm: per n one palindrome (row 0) and ``random_per_n`` random strings."""
    return memo.shared("cot_palindrome_runs", lc.pal_ns, lc.random_per_n, key, fn=lambda: _pal_runs(lc, key))


def _pal_runs(lc, key):
    rng = key_rng(key, 1)
    out = {}
    for n in lc.pal_ns:
        xs = _palindromes(n, rng, lc.random_per_n).astype(np.int32)
        out[n] = decode_runs(palindrome_tm(), xs, np.full(len(xs), n, np.int32), int(pal_time(n)))
    return out


def measure_lengths(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H2: parity on random inputs and palindrome_tm on palindromes (+ random strings, reported)."""
    lc = to_dataclass(LengthConfig, cfg.lengths)
    rng = key_rng(key, 0)
    nmax = max(lc.parity_ns)
    ns = np.repeat(np.array(lc.parity_ns, np.int32), lc.parity_inputs)
    xs = np.where(np.arange(nmax) < ns[:, None], rng.integers(1, 3, (ns.size, nmax)), 0).astype(np.int32)
    groups = [decode_runs(parity_tm(), xs[ns == n], ns[ns == n], nmax + 1) for n in lc.parity_ns]  # one program
    par = {k: np.concatenate([g[k] for g in groups]) for k in groups[0]}
    pal = palindrome_runs(lc, key)
    c_par = par["cot_len"].reshape(len(lc.parity_ns), -1)
    c_pal = np.array([pal[n]["cot_len"][0] for n in lc.pal_ns])
    over = np.concatenate([par["cot_len"] - par["time"] - 1] + [p["cot_len"] - p["time"] - 1 for p in pal.values()])
    mism = int((~par["match"]).sum() + sum((~p["match"]).sum() for p in pal.values()))
    rand_mean = {n: float(pal[n]["time"][1:].mean()) if lc.random_per_n else 0.0 for n in lc.pal_ns}
    return Measurement(
        measured={
            "overhead_violations": int(np.sum(over != 0)) + mism,
            "palindrome_exact_violations": int(np.sum(c_pal != pal_time(np.array(lc.pal_ns)) + 1)),
            "slope_parity": fit_exponent(lc.parity_ns, c_par.mean(1)),
            "slope_palindrome": fit_exponent(lc.pal_ns, c_pal),
        },
        predicted={
            "overhead_violations": 0,
            "palindrome_exact_violations": 0,
            "slope_parity": fit_exponent(lc.parity_ns, np.array(lc.parity_ns) + 2),
            "slope_palindrome": fit_exponent(lc.pal_ns, pal_time(np.array(lc.pal_ns)) + 1),
        },
        n=int(over.size),
        details={
            "parity_cot_len_mean": c_par.mean(1).tolist(),
            "palindrome_cot_len": c_pal.tolist(),
            "random_string_mean_time": rand_mean,
        },
        figures={"h2_lengths": _figure(lc, c_par.mean(1), c_pal)},
        captions={
            "h2_lengths": "CoT length against input length on log-log axes: parity follows n + 2 (slope ≈ 1), "
            "palindromes follow the closed form (n+1)(n+2)/2 + 1 (slope ≈ 2); markers are measured."
        },
    )


def precision_study(lc: LengthConfig, key: jax.Array) -> dict:
    """Teacher-forced next-token errors of palindrome_tm on palindromes with float64 and float32 read scores.

    Every position of the true CoT is fed in and the argmax compared with the next true token, so the count is
    the number of wrong reads (a free-running decode is exact iff the count is 0). One scan per dtype.
    ``dtypes[dtype]`` lists the dot-product dtypes of the traced program (:func:`score_dot_dtypes`), so a caller can
    check that the score dtype asked for is the one computed."""
    rng = key_rng(key, 2)
    tm = palindrome_tm()
    out, dtypes = {}, {}
    seqs = []
    for n in lc.precision_ns:
        x = _palindromes(n, rng, 0)[0].astype(np.int32)
        tr = run_tm_batch(tm.delta[None], x[None, None], np.array([[n]]), int(pal_time(n)))
        arch, vocab, _ = cons.tm_arch(tm.k, tm.g)
        cot = reference_tokens(tr, vocab)[0, 0]
        seqs.append(np.concatenate([x, [vocab.start], cot[cot >= 0]]))
    L = cache_bucket(max(len(s) for s in seqs))
    for dtype in ("float64", "float32"):
        arch, vocab, _ = cons.tm_arch(tm.k, tm.g, score_dtype=dtype)
        params = cons.build_tm_params(tm, cons.c_constant(L))
        padded = np.zeros((len(seqs), L), np.int32)
        for j, s in enumerate(seqs):
            padded[j, : len(s)] = s
        dtypes[dtype] = sorted(score_dot_dtypes(params, arch, padded))
        am = np.asarray(forced_argmax(params, arch, padded)[0])
        wrong = [
            int(np.sum(am[j, n : len(s) - 1] != s[n + 1 :]))
            for j, (n, s) in enumerate(zip(lc.precision_ns, seqs, strict=True))
        ]
        out[dtype] = np.array(wrong)
    out["context"] = np.array([len(s) for s in seqs])
    out["dtypes"] = dtypes
    return out


def measure_precision(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """H7: float64 exact everywhere; float32 exact at the smallest n; the first failing n is reported.

    ``score_dtype_mismatches`` counts the paths whose traced program does not compute what it is labelled with: the
    float64 path must have no float32 product, the float32 path must have one (the read scores). Without it a
    float32 path that silently runs in float64 would pass as "exact"."""
    lc = to_dataclass(LengthConfig, cfg.lengths)
    st = precision_study(lc, key)
    ns = np.array(lc.precision_ns)
    bad32 = ns[st["float32"] > 0]
    mismatches = int("float32" in st["dtypes"]["float64"]) + int("float32" not in st["dtypes"]["float32"])
    return Measurement(
        measured={
            "f64_wrong_reads": int(st["float64"].sum()),
            "f32_wrong_at_smallest_n": int(st["float32"][0]),
            "first_failing_n_f32": int(bad32[0]) if bad32.size else -1,
            "f32_wrong_reads": st["float32"],
            "score_dtype_mismatches": mismatches,
            "f32_path_exercised": bool(bad32.size),
        },
        predicted={"f64_wrong_reads": 0, "f32_wrong_at_smallest_n": 0, "score_dtype_mismatches": 0},
        n=int(st["context"].sum()),
        details={
            "ns": ns.tolist(),
            "context_len": st["context"].tolist(),
            "f32_wrong": st["float32"].tolist(),
            "f64_wrong": st["float64"].tolist(),
            "dot_dtypes": st["dtypes"],
            "numpy_emulation_first_failure": "n = 64 (6 reads), 19 at n = 80",
        },
        figures={"h7_precision": _precision_figure(ns, st)},
        captions={
            "h7_precision": "Wrong reads per run (teacher forcing) of the read head with float32 scores "
            "(float64 stays at 0); the dashed line marks where C·h² passes 2^24."
        },
    )


def _figure(lc, c_par, c_pal):
    from jaxpapers.cot_hierarchy.figures import lengths_figure

    return lengths_figure(np.array(lc.parity_ns), c_par, np.array(lc.pal_ns), c_pal)


def _precision_figure(ns, st):
    from jaxpapers.cot_hierarchy.figures import precision_figure

    return precision_figure(ns, st["float32"], st["float64"], st["context"])
