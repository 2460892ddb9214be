"""Benchmark: the batched Construction-A decode at the H1 batch (128 random machines × 8 inputs = 1,024 sequences,
T_max 128, static KV cache of 160 positions) against the NumPy loop of the same decode
(``reference.numpy_decode``: one sequence at a time, the loop a theorist would write; timed on a subset and scaled)
in the same run. Decoding is sequential and memory-bound, so it also prints generated tokens/s and the bytes the
loop moves per generated token (every step reads the whole static cache of every head, plus the weights) against
a nominal memory bandwidth.

    .venv/bin/python benchmarks/cot_hierarchy.py [--bandwidth-gbs 20]
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import jaxpapers.cot_hierarchy as ch
from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.reference import numpy_decode
from jaxpapers.cot_hierarchy.studies import machine_set

T_MAX, CACHE = 128, 160


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bandwidth-gbs", type=float, default=20.0, help="nominal memory bandwidth for the ratio")
    ap.add_argument("--numpy-sequences", type=int, default=8, help="sequences timed in the NumPy loop")
    args = ap.parse_args()
    with jax.enable_x64(True):
        sc = ch.SimConfig(busy_beavers=False)
        tms, xs, ns, _ = machine_set(sc, jax.random.key(0))
        arch, vocab, _ = cons.tm_arch(tms.k, tms.g)
        prompts, lens = cons.tm_prompts(xs, ns, vocab)
        params = cons.build_tm_params(tms, cons.c_constant(CACHE))
        flat_p, flat_l = prompts.reshape(-1, prompts.shape[-1]), lens.reshape(-1)

        def jax_run():
            return ch.decode(params, arch, flat_p, flat_l, T_MAX + 1, cache_len=CACHE, batched=cons.MACHINE_PARAMS)

        out = jax.block_until_ready(jax_run())
        gen = int(np.asarray(out["cot_len"]).sum())
        k = args.numpy_sequences
        one = [
            jax.tree.map(
                lambda a, i=i: a[i // sc.inputs] if a.ndim == 3 and a.shape[0] == len(tms.delta) else a, params
            )
            for i in range(k)
        ]

        def numpy_run():
            return [numpy_decode(one[i], arch, flat_p[i, : flat_l[i]], T_MAX + 1) for i in range(k)]

        t = time_interleaved({"jax": jax_run, "numpy": numpy_run}, rounds=3)
        gen_np = sum(r["cot_len"] for r in numpy_run())
        numpy_full = t["numpy"] / gen_np * gen  # per generated token, scaled to the whole batch
        report_ratio(
            f"H1 decode, {len(flat_l)} sequences, {gen} tokens",
            numpy_full,
            t["jax"],
            baseline="numpy loop (scaled)",
            candidate="jax vmapped while_loop",
        )
        cache_bytes = sum((dk + dv) * CACHE * 8 for s in arch.layers for dk, dv in s.heads)
        steps = int(np.asarray(flat_l).max() + np.asarray(out["cot_len"]).max())
        moved = cache_bytes * len(flat_l) * steps
        print(f"tokens/s: jax {gen / t['jax']:.0f}, numpy {gen_np / t['numpy']:.0f}")
        print(
            f"bytes moved per generated token (cache reads only): {moved / gen:.0f} B; "
            f"at {args.bandwidth_gbs:g} GB/s that is {moved / (args.bandwidth_gbs * 1e9) * 1e3:.1f} ms for the batch "
            f"vs {t['jax'] * 1e3:.1f} ms measured ({100 * moved / (args.bandwidth_gbs * 1e9) / t['jax']:.0f}% of "
            "the nominal bandwidth)"
        )
        start = time.perf_counter()
        jax.block_until_ready(jax_run())
        print(f"one more batched decode: {time.perf_counter() - start:.2f} s wall")


if __name__ == "__main__":
    main()
