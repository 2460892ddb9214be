"""``jaxpapers list | describe | verify | train | bench | readme``.

Errors a user can cause (an unknown paper, claim, config or field) end with one line naming it and
what exists, and exit code 2; never a traceback.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

from jaxpapers.core.errors import ConfigError, JaxpapersError

EPILOG = """examples:
  jaxpapers list
  jaxpapers verify                          # every claim, quick preset, on this machine
  jaxpapers verify resource_allocation/RA1 --out results/ra1
  jaxpapers verify comonet/CO8 --preset full --config.data_dir=/data/tabular   # overrides apply to each claim's config
  jaxpapers train --config configs/example/copy.py:preset=quick --workdir /tmp/copy --config.train.steps=100
"""


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")  # the command line only writes PNGs; never opens a window
    parser = argparse.ArgumentParser(
        prog="jaxpapers",
        description="Reference JAX/Flax reimplementations of NeurIPS 2026 papers, with numerically checked claims.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{list,describe,verify,train,bench}")

    p = sub.add_parser("list", help="papers, their claims and configs")
    p.add_argument("papers", nargs="*", help="restrict to these papers")

    p = sub.add_parser("describe", help="everything about a paper or claim")
    p.add_argument("target", help="<paper> or <paper>/<claim>")

    p = sub.add_parser("verify", help="run claims and print predicted vs measured")
    p.add_argument("targets", nargs="*", help="papers or claims (default: all)")
    p.add_argument("--preset", default="quick", choices=("tiny", "quick", "full"))
    p.add_argument("--out", default=None, help="output directory (default: results/<preset>)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--jobs",
        type=_jobs,
        default="auto",
        help="run the papers in this many processes (a paper's claims stay in one); default auto: one per "
        f"CPU core this process may use, at most {MAX_AUTO_JOBS}",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="per claim: seconds compiling, tracing, executing and in host Python, programs compiled; "
        "then the ten most expensive claims",
    )
    p.add_argument(
        "--strict-budgets",
        action="store_true",
        help="exit 2 when a claim overruns its time budget (CI); otherwise overruns are only reported",
    )

    p = sub.add_parser("train", help="train a config through the shared trainer")
    from jaxpapers.launch.train import add_arguments

    add_arguments(p)

    p = sub.add_parser("bench", help="run a benchmark from benchmarks/ (prints ratios against a baseline)")
    p.add_argument("name", nargs="?", help="benchmark name (file stem); omit to list")
    p.add_argument("args", nargs=argparse.REMAINDER)

    # Maintainers only (not listed in the help of the user commands): regenerate the README tables.
    p = sub.add_parser("readme", description="maintainers: regenerate the claims tables in the READMEs")
    p.add_argument("--results", default=None, help="results.json whose verdicts go into the top README")
    p.add_argument("--check", action="store_true", help="only report stale READMEs (exit 1 if any)")

    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in ("train", "verify"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return {
            "list": _list,
            "describe": _describe,
            "verify": _verify,
            "train": _train,
            "bench": _bench,
            "readme": _readme,
        }[args.command](args, rest) or 0
    except JaxpapersError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


MAX_AUTO_JOBS = 4  # each worker is a separate JAX process, with its own memory and compiled programs


def _jobs(text: str) -> int:
    """argparse type of ``--jobs``: an integer >= 1, or ``auto`` (the CPU cores this process may use, at most
    :data:`MAX_AUTO_JOBS`)."""
    if text == "auto":
        # the cores this process may use (a container's or taskset's share); macOS has no affinity call
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return max(1, min(usable or 1, MAX_AUTO_JOBS))
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer or 'auto' (e.g. --jobs 2)")
    return value


def _console():
    """A rich console; wide when writing to a file or CI log, so tables do not wrap."""
    import sys

    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 160)


def _setup_jax() -> Path:
    """A persistent compilation cache: repeated runs skip recompiling unchanged functions. Returns its folder."""
    import jax

    cache = os.environ.get("JAXPAPERS_CACHE_DIR", str(Path.home() / ".cache" / "jaxpapers" / "xla"))
    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    return Path(cache)


def _cached_programs(cache: Path) -> int:
    """How many compiled programs the persistent cache folder holds (0 when it does not exist yet): JAX writes
    one ``<name>-<key>-cache`` file per program (and, with a size limit, an ``-atime`` file beside it)."""
    return sum(1 for p in cache.glob("*-cache") if p.is_file()) if cache.is_dir() else 0


def _list(args, _rest) -> None:
    from rich.table import Table

    from jaxpapers.core import config as config_lib
    from jaxpapers.core import registry

    slugs = args.papers or registry.papers()
    for slug in slugs:
        registry.claims_of(slug)  # validates the name
    configs = config_lib.list_configs()
    table = Table(title="jaxpapers", show_lines=False)
    for col in ("paper / claim", "kind", "statement"):
        table.add_column(col, overflow="fold")
    for slug in slugs:
        table.add_row(f"[bold]{slug}[/bold]", "", registry.paper_title(slug))
        for c in registry.claims_of(slug):
            table.add_row(f"  {c.name}", c.kind, c.statement)
        table.add_row("  configs", "", ", ".join(f"configs/{slug}/{e}.py" for e in configs.get(slug, [])) or "—")
    _console().print(table)


def _describe(args, _rest) -> None:
    from jaxpapers.core import registry

    con = _console()
    slug, _, name = args.target.partition("/")
    claims = registry.select([args.target])
    if not name:
        con.print(f"[bold]{slug}[/bold]: {registry.paper_title(slug)}\n")
    for c in claims:
        con.print(
            f"[bold]{c.id}[/bold] ({c.kind})\n  statement: {c.statement}\n  source:    {c.source}\n"
            f"  criterion: {c.predicate.describe()}\n"
            + (f"  control:   of {c.control_of} (inconclusive unless it passes)\n" if c.control_of else "")
            + f"  config:    {_config_text(c.config)}\n"
            f"  presets:   {', '.join(c.presets)}; quick budget {c.budget_s.get('quick', '-')} s"
            + (f"; requires {', '.join(c.requires)}" if c.requires else "")
            + "\n"
        )


def _config_text(spec: str) -> str:
    name, arg = spec.split(":", 1) if ":" in spec else (spec, None)
    return f"configs/{name}.py" + (f":{arg}" if arg else "")


def _verify(args, rest) -> int:
    from jaxpapers.core import registry, verify

    overrides = _config_overrides(rest)
    claims = registry.select(args.targets)
    if overrides:  # every selected claim's config must have the fields: a typo fails here, in one line
        from jaxpapers.core import config as config_lib

        for c in claims:
            try:
                config_lib.load_preset(c.config, args.preset, overrides)
            except JaxpapersError as e:
                raise JaxpapersError(
                    f"{c.id}: {e} (select only claims whose config has the overridden fields)"
                ) from None
    out = _writable_dir(Path(args.out or Path("results") / args.preset), "--out")
    cache = _setup_jax()
    cached_before = _cached_programs(cache)
    con = _console()
    colors = {
        "pass": "green",
        "fail": "red",
        "error": "bold red",
        "skipped": "yellow",
        "report": "cyan",
        "divergent": "magenta",
        "inconclusive": "yellow",
    }

    def show(r: verify.ClaimResult) -> None:
        """One claim, once, as soon as it is done: verdict, id, seconds; then what was measured against
        what criterion; for anything but a pass, one line of why and where the paper README explains it.
        soft_wrap: rich never breaks a number inside a token (the terminal wraps long lines whole)."""
        slow = f" [bold red]over budget ({r.budget_s:g} s)[/]" if r.over_budget else ""
        seconds = f"{r.seconds:.1f} s ({r.cpu_s:.1f} CPU-s, {r.compile_s:.1f} s compiling, {r.cache_hits} cached)"
        con.print(f"[{colors[r.verdict]}]{r.verdict:>12}[/] {r.id}  {seconds}{slow}", soft_wrap=True)
        predicted = f"  predicted {r.predicted}" if r.predicted and r.predicted != "-" else ""
        con.print(f"{'':>13}measured {r.measured or '-'}{predicted}  [dim]criterion: {r.criterion}[/]", soft_wrap=True)
        if r.verdict != "pass" and r.reason:
            readme = f"jaxpapers/{r.id.split('/', 1)[0]}/README.md"
            con.print(f"{'':>13}[dim]why: {r.reason.splitlines()[0]} (see {readme})[/]", soft_wrap=True)
        if args.profile:
            con.print(f"{'':>13}[dim]profile: {verify.profile_line(r)}[/]", soft_wrap=True)

    env = verify.environment()
    con.print(f"jaxpapers verify: {len(claims)} claims, preset {args.preset}, JAX {env['jax']} on {env['backend']}")
    results = verify.run(
        claims,
        args.preset,
        out_dir=out,
        on_result=show,
        progress=not args.no_progress,
        overrides=overrides,
        jobs=args.jobs,
        worker_setup="jaxpapers.cli:_setup_jax",
    )
    paths = verify.write_reports(results, out, env)
    code = verify.exit_code(results, strict_budgets=args.strict_budgets)
    counts = {v: sum(r.verdict == v for r in results) for v in verify.VERDICT_ORDER}
    summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    con.print(f"{summary}; wrote {paths['json']} and {paths['markdown']}")
    con.print(_seconds_per_paper(results), soft_wrap=True)
    if args.profile:
        con.print("the ten most expensive claims:")
        for r in verify.most_expensive(results):
            con.print(f"  {r.seconds:7.1f} s  {r.id}: {verify.profile_line(r)}", soft_wrap=True)
    con.print(
        f"compilation cache {cache}: {cached_before} programs before this run, {_cached_programs(cache)} after "
        "(timings with programs already cached skip their compilation)",
        soft_wrap=True,
    )
    consequence = " (an error under --strict-budgets)" if args.strict_budgets else " (reported only)"
    slow = verify.over_budget(results)
    if slow:
        con.print(
            f"{len(slow)} claim{'s' if len(slow) > 1 else ''} over budget{consequence}: "
            + ", ".join(f"{r.id} {r.seconds:.1f} s > {r.budget_s:g} s" for r in slow)
        )
    slow_papers = verify.papers_over_budget(results)
    if slow_papers:
        con.print(
            f"{len(slow_papers)} paper{'s' if len(slow_papers) > 1 else ''} over its quick budget{consequence}: "
            + ", ".join(f"{s} {sec:.1f} s > {b:g} s" for s, (sec, b) in slow_papers.items())
            + " (jaxpapers/core/budgets.py)"
        )
    con.print(_exit_reason(results, code, strict_budgets=args.strict_budgets), soft_wrap=True)
    return code


def _seconds_per_paper(results) -> str:
    """One line: each paper's claim seconds against its quick budget (``core.budgets``), slowest claim named."""
    from jaxpapers.core import budgets

    quick = [r for r in results if r.preset == "quick"]
    if not quick:
        return f"{sum(r.seconds for r in results):.0f} s of claims"
    parts = []
    for slug, seconds in budgets.paper_seconds([(r.id, r.seconds) for r in quick]).items():
        slowest = max((r for r in quick if r.id.startswith(slug + "/")), key=lambda r: r.seconds)
        parts.append(
            f"{slug} {seconds:.0f}/{budgets.budget(slug).verify_s:g} "
            f"({slowest.id.split('/', 1)[1].split('-')[0]} {slowest.seconds:.0f})"
        )
    total = sum(r.seconds for r in quick)
    return f"seconds per paper, claims/budget (slowest claim): {', '.join(parts)}; {total:.0f} s in all"


def _exit_reason(results, code: int, *, strict_budgets: bool) -> str:
    """Why the exit code is what it is, naming the claims behind it (an honest fail is always named)."""
    from jaxpapers.core import verify

    errors = [r.id for r in results if r.verdict == "error"]
    fails = [r.id for r in results if r.verdict == "fail"]
    slow = verify.strict_overruns(results)
    parts = []
    if errors:
        parts.append(f"{len(errors)} errored ({', '.join(errors)})")
    if strict_budgets and slow:
        parts.append(f"{len(slow)} over budget past the timing noise, --strict-budgets ({', '.join(slow)})")
    if fails:
        parts.append(f"{len(fails)} fail honestly ({', '.join(fails)})")
    if not parts:
        return f"exit {code}: every claim passes or is skipped, report-only, divergent or inconclusive"
    return f"exit {code}: " + "; ".join(parts)


def _config_overrides(rest: list[str]) -> list[str]:
    """``--config.a.b=value`` arguments; anything else is a one-line error."""
    unknown = [r for r in rest if not r.startswith("--config.")]
    if unknown:
        raise JaxpapersError(
            f"unrecognized arguments: {' '.join(unknown)} (config fields look like --config.a.b=value)"
        )
    return list(rest)


def _writable_dir(path: Path, flag: str) -> Path:
    """``path`` created and writable, or one ConfigError naming ``flag`` (before any work starts)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise ConfigError(
            f"{flag} {str(path)!r} cannot be written ({e.strerror or e}); choose another directory"
        ) from None
    return path


def _train(args, rest) -> None:
    from jaxpapers.launch import train

    overrides = _config_overrides(rest)
    _setup_jax()
    result = train.run(args.config, args.workdir, overrides, topology=args.topology)
    if getattr(result, "preempted", None):
        return  # fit printed the one line (signal, step, checkpoint); exit 0 so the scheduler may requeue
    last = next((r for r in reversed(getattr(result, "history", [])) if "loss" in r), None)
    if last is not None:
        print(f"trained to step {last['step']}: loss {last['loss']:.5g}; metrics in {args.workdir}/metrics.jsonl")


def _bench(args, _rest) -> None:
    root = Path.cwd() / "benchmarks"  # a checkout's benchmarks when run from its root
    if not root.is_dir():
        import jaxpapers.benchmarks

        root = Path(jaxpapers.benchmarks.__file__).parent
    names = sorted(p.stem for p in root.glob("*.py") if not p.name.startswith("_")) if root.is_dir() else []
    if not args.name:
        print("benchmarks: " + (", ".join(names) or "(none found; run from the repository root)"))
        return
    if args.name not in names:
        raise JaxpapersError(f"benchmark {args.name!r} does not exist; benchmarks: {', '.join(names) or '(none)'}")
    script = root / f"{args.name}.py"
    source = script.read_text()
    if {"-h", "--help"} & set(args.args) and "argparse" not in source:
        import ast

        print(f"usage: jaxpapers bench {args.name}  (no options)\n\n{ast.get_docstring(ast.parse(source)) or ''}")
        return
    sys.argv = [str(script), *args.args]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:  # argparse's --help and usage errors end the benchmark, not the CLI's own handling
        if e.code not in (0, None):
            raise JaxpapersError(f"benchmark {args.name} exited with {e.code}") from None


def _readme(args, _rest) -> int:
    from jaxpapers.core import docs

    stale = docs.stale_readmes(args.results, write=not args.check)
    for path in stale:
        print(("stale: " if args.check else "updated: ") + str(path))
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    raise SystemExit(main())
