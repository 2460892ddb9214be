"""Runs claims and reports predicted vs measured (the engine behind ``jaxpapers verify``).

For each claim: load its config at the chosen preset, run the experiment with a fixed key, time it,
let the predicate decide the verdict, save figures, and collect one :class:`ClaimResult`. An
experiment that raises becomes an ``error`` row and the run goes on. A negative control
(``Claim.control_of``) runs after its positive claim and is ``inconclusive`` unless that passed.

Exit code (:func:`exit_code`): 0 when every claim passes (or is skipped, report-only, divergent or
inconclusive), 1 when any fails honestly, 2 when any errors. A claim over its time budget is
reported (the seconds and the budget) and makes the exit code 2 only with ``strict_budgets`` (CI
passes ``--strict-budgets``; on a busy laptop an overrun is not a failure).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import itertools
import json
import os
import platform
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jaxpapers.core.claim_runner import (  # noqa: F401 - re-exported: verify.run_claim is the public entry
    ClaimResult,
    CompileMeter,
    check_predicted,
    cpu_seconds,
    format_value,
    has_gpu,
    judge_control,
    most_expensive,
    profile_line,
    run_claim,
)
from jaxpapers.core.claims import Claim

VERDICT_ORDER: tuple[str, ...] = ("pass", "fail", "error", "skipped", "report", "divergent", "inconclusive")


def run(
    claims: Sequence[Claim],
    preset: str = "quick",
    *,
    out_dir: str | os.PathLike | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
    progress: bool = True,
    overrides: Sequence[str] = (),
    jobs: int = 1,
    worker_setup: str | None = None,
) -> list[ClaimResult]:
    """Runs ``claims`` in order with a progress bar; calls ``on_result`` after each.

    The positive claim of every selected control is run first, even when not selected, and the
    control's verdict becomes ``inconclusive`` unless the positive claim passed. With ``jobs`` > 1 and
    claims of several papers, the papers run in up to that many worker processes (``core.verify_jobs``;
    registered claims only, each worker first calls ``worker_setup``, ``"module:function"``) and
    ``on_result`` sees claims in the order they finish; the returned list keeps the order of ``claims``.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    claims = with_positives(claims)
    results: list[ClaimResult] = []
    by_id: dict[str, ClaimResult] = {}
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True, disable=not progress) as bar:
        task = bar.add_task("verify", total=len(claims))

        def done(r: ClaimResult) -> None:
            if on_result is not None:
                on_result(r)
            bar.update(task, description=r.id, advance=1)

        if jobs > 1 and len({c.paper for c in claims}) > 1:  # one paper's claims stay in one process anyway
            from jaxpapers.core.verify_jobs import run_parallel

            return run_parallel(
                claims,
                preset,
                jobs,
                out_dir=None if out_dir is None else str(out_dir),
                overrides=overrides,
                on_result=done,
                setup=worker_setup,
            )
        for claim in claims:
            bar.update(task, description=claim.id)
            r = run_claim(claim, preset, out_dir=out_dir, overrides=overrides)
            if claim.control_of is not None:
                judge_control(r, by_id[claim.control_of])
            by_id[claim.id] = r
            results.append(r)
            done(r)
    return results


def with_positives(claims: Sequence[Claim]) -> list[Claim]:
    """``claims`` with the positive claim of each control inserted before it (once, where missing)."""
    from jaxpapers.core import registry

    given = {c.id: c for c in claims}
    out: list[Claim] = []
    seen: set[str] = set()
    for claim in claims:
        if claim.control_of is not None and claim.control_of not in seen:
            positive = given.get(claim.control_of) or registry.select([claim.control_of])[0]
            out.append(positive)
            seen.add(positive.id)
        if claim.id not in seen:
            out.append(claim)
            seen.add(claim.id)
    return out


def over_budget(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    """The results that ran longer than their preset's budget."""
    return [r for r in results if r.over_budget]


def papers_over_budget(results: Sequence[ClaimResult]) -> dict[str, tuple[float, float]]:
    """``{slug: (seconds, budget)}`` for papers whose quick claims together overran ``core.budgets``."""
    from jaxpapers.core import budgets

    totals = budgets.paper_seconds([(r.id, r.seconds) for r in results if r.preset == "quick"])
    return {s: (sec, budgets.budget(s).verify_s) for s, sec in totals.items() if sec > budgets.budget(s).verify_s}


def strict_overruns(results: Sequence[ClaimResult]) -> list[str]:
    """Claims and papers over their budget by more than the timing noise ``core.budgets.STRICT_ALLOWANCE``
    (what fails ``--strict-budgets``)."""
    from jaxpapers.core import budgets

    claims = [r.id for r in over_budget(results) if budgets.fails_strict(r.seconds, r.budget_s or 0.0)]
    papers = [s for s, (sec, limit) in papers_over_budget(results).items() if budgets.fails_strict(sec, limit)]
    return claims + papers


def exit_code(results: Sequence[ClaimResult], *, strict_budgets: bool = False) -> int:
    """2: an error (or, with ``strict_budgets``, a claim or paper over its budget by more than the timing
    noise ``core.budgets.STRICT_ALLOWANCE``); else 1: an honest failure; else 0."""
    slow = strict_overruns(results)
    if any(r.verdict == "error" for r in results) or (strict_budgets and slow):
        return 2
    if any(r.verdict == "fail" for r in results):
        return 1
    return 0


def environment() -> dict[str, Any]:
    """JAX version, backend and devices, host, date and git commit, recorded with every report."""
    import jax

    commit = None
    with contextlib.suppress(Exception):
        commit = (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                cwd=Path(__file__).parent,
                timeout=5,
            ).stdout.strip()
            or None
        )
    return {
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "devices": [f"{d.platform}:{d.device_kind}" for d in jax.devices()],
        "python": platform.python_version(),
        "host": platform.platform(),
        "cpus": os.cpu_count(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit,
    }


def write_reports(
    results: Sequence[ClaimResult], out_dir: str | os.PathLike, env: dict[str, Any] | None = None
) -> dict[str, Path]:
    """Writes ``results.json`` and ``report.md`` into ``out_dir``; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = env or environment()
    counts = {v: sum(r.verdict == v for r in results) for v in VERDICT_ORDER}
    payload = {
        "environment": env,
        "summary": counts,
        "exit_code": exit_code(results),
        "results": [dataclasses.asdict(r) for r in results],
    }
    json_path = out / "results.json"
    json_path.write_text(json.dumps(payload, indent=2, default=str))
    md_path = out / "report.md"
    md_path.write_text(markdown_report(results, env))
    return {"json": json_path, "markdown": md_path}


def markdown_report(results: Sequence[ClaimResult], env: dict[str, Any]) -> str:
    lines = [
        "# jaxpapers verify report",
        "",
        f"JAX {env['jax']} on {env['backend']} ({', '.join(sorted(set(env['devices'])))}), "
        f"Python {env['python']}, {env['cpus']} CPUs, {env['date']}, commit {env['commit']}.",
        "",
        "| claim | predicted | measured | criterion | verdict | s | CPU-s | compiling s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        verdict = f"**{r.verdict}**" + (" (over budget)" if r.over_budget else "")
        cells = (f"`{r.id}`", _md(r.predicted), _md(r.measured), _md(r.criterion), verdict)
        lines.append(f"| {' | '.join(cells)} | {r.seconds:.1f} | {r.cpu_s:.1f} | {r.compile_s:.1f} |")
    lines += [
        "",
        "## The ten most expensive claims",
        "",
        "Seconds split as `jaxpapers verify --profile` prints them: XLA compiling (and reading the persistent "
        "cache), tracing and lowering, waiting on execution, host Python.",
        "",
        "| claim | s | compile s | tracing s | programs (cached) | execute s | host s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in most_expensive(results):
        lines.append(
            f"| `{r.id}` | {r.seconds:.1f} | {r.compile_s:.1f} | {r.trace_s:.1f} | {r.programs} ({r.cache_hits}) "
            f"| {r.execute_s:.1f} | {r.host_s:.1f} |"
        )
    notes = [r for r in results if r.reason and r.verdict != "pass"]
    if notes:
        lines += ["", "## Notes", ""]
        lines += [f"- `{r.id}` ({r.verdict}): {_md(r.reason)}" for r in notes]
    figs = [(r.id, f, c) for r in results for f, c in itertools.zip_longest(r.figures, r.captions, fillvalue="")]
    if figs:
        lines += ["", "## Figures", ""]
        for cid, f, caption in figs:
            lines += [f"![{cid}]({f})", "", f"*`{cid}`* — {_md(caption) or 'no caption'}", ""]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
