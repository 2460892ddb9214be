"""Benchmark: ``jaxpapers verify`` on an empty compilation cache (a newcomer's first run) against the same claims
with every program already cached, in the same run, one process (``--jobs 1``) and in the same order.

    .venv/bin/python benchmarks/verify.py                      # every paper (about half an hour on 2 cores)
    .venv/bin/python benchmarks/verify.py online_autoregressive example

Prints, for the cold and the warm run: claim seconds, of which compiling (XLA and tracing), programs compiled
and cache hits, the cold/warm ratio, and each run against the reference measured on 2026-12-02 for the
thirteen papers then built (1,061 claim-seconds cold, 597 warm, one paper at a time on 2 cores); and the ten
most expensive claims of the cold run with their profile (``jaxpapers verify --profile``). Every measured
value must be the same in both runs: the benchmark says which differ.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REFERENCE_S = {"cold": 1061.0, "warm": 597.0}  # 13 papers, 2026-12-02 (the reference table of the speed goal)


def run_verify(targets: list[str], cache: str, out: str) -> list[dict]:
    """One ``jaxpapers verify --jobs 1`` in a child process with its compilation cache at ``cache``."""
    env = dict(os.environ, JAXPAPERS_CACHE_DIR=cache)
    cmd = [sys.executable, "-m", "jaxpapers", "verify", *targets, "--jobs", "1", "--no-progress", "--out", out]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode > 1:
        raise SystemExit(f"verify exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return json.loads((Path(out) / "results.json").read_text())["results"]


def summary(results: list[dict]) -> dict[str, float]:
    keys = ("seconds", "compile_s", "trace_s", "programs", "cache_hits")
    return {k: float(sum(r.get(k, 0) for r in results)) for k in keys}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help="papers or claims (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "xla")
        cold = run_verify(args.targets, cache, os.path.join(tmp, "cold"))
        warm = run_verify(args.targets, cache, os.path.join(tmp, "warm"))
    runs = {"cold": summary(cold), "warm": summary(warm)}
    for name, s in runs.items():
        print(
            f"{name}: {s['seconds']:.0f} claim-seconds, {s['compile_s'] + s['trace_s']:.0f} s compiling "
            f"({s['programs']:.0f} programs, {s['cache_hits']:.0f} read from the cache)"
        )
    print(f"cold / warm: {runs['cold']['seconds'] / runs['warm']['seconds']:.2f}x")
    if not args.targets:  # the reference covers every paper then built
        for name, s in runs.items():
            ratio = REFERENCE_S[name] / s["seconds"]
            print(f"{name}: reference {REFERENCE_S[name]:.0f} s (2026-12-02) / now {s['seconds']:.0f} s = {ratio:.2f}x")
    print("the ten most expensive claims (cold):")
    for r in sorted(cold, key=lambda r: -r["seconds"])[:10]:
        print(
            f"  {r['seconds']:6.1f} s {r['id']}: compile {r.get('compile_s', 0):.1f} s "
            f"(+{r.get('trace_s', 0):.1f} tracing, {r.get('programs', 0)} programs), "
            f"execute {r.get('execute_s', 0):.1f} s, host {r.get('host_s', 0):.1f} s"
        )
    differ = [
        c["id"]
        for c, w in zip(cold, warm, strict=True)
        if (c["measured"], c["verdict"]) != (w["measured"], w["verdict"])
    ]
    print(f"measured values and verdicts identical in both runs: {'yes' if not differ else 'NO: ' + ', '.join(differ)}")


if __name__ == "__main__":
    main()
