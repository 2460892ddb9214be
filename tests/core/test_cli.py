"""The command line: listing, describing, verify's exit codes and outputs, training, one-line errors."""

import argparse
import json
import re
import subprocess
import sys

import pytest

from jaxpapers import cli


def run_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "jaxpapers", *args], capture_output=True, text=True, timeout=timeout)


def test_list_and_describe(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "example" in out and "X1-copy-learned" in out and "configs/example/copy.py" in out
    assert cli.main(["describe", "example/X1"]) == 0
    out = capsys.readouterr().out
    assert "criterion:" in out and "configs/example/copy.py" in out


def test_list_imports_no_jax_and_every_experiment_resolves():
    """`jaxpapers list` answers without importing JAX (claims name their experiments as
    "module:function" strings, resolved only when a claim runs) -- and every such string resolves."""
    probe = (
        "import sys; from jaxpapers import cli; rc = cli.main(['list']); "
        "heavy = sorted(m for m in ('jax', 'flax', 'optax', 'orbax', 'grain', 'matplotlib.pyplot') "
        "if m in sys.modules); "
        "print('HEAVY', heavy); sys.exit(rc)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stdout
    from jaxpapers.core import registry

    for claim in registry.all_claims():
        assert callable(claim.resolve_experiment()), claim.id


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["verify", "nopaper"], "error: paper 'nopaper' does not exist; papers: "),
        (["verify", "example/Z1"], "error: claim 'example/Z1' does not exist; claims of example: X1-copy-learned"),
        (["describe", "nopaper"], "error: paper 'nopaper' does not exist"),
        (
            ["train", "--config", "configs/example/nope.py", "--workdir", "/tmp/x"],
            "error: config 'configs/example/nope.py' does not exist",
        ),
        (
            ["train", "--config", "example/copy", "--workdir", "/tmp/x", "--config.train.stepz=3"],
            "error: config field 'train.stepz' does not exist",
        ),
        (
            ["train", "--config", "example/copy", "--workdir", "/tmp/x", "--steps=3"],
            "error: unrecognized arguments: --steps=3",
        ),
        (["bench", "nobench"], "error: benchmark 'nobench' does not exist"),
        (["verify", "example", "--config.train.stepz=3"], "error: example/X1-copy-learned: config field 'train.stepz'"),
        (["verify", "example", "--steps=3"], "error: unrecognized arguments: --steps=3"),
    ],
)
def test_user_errors_are_one_line_without_traceback(args, pattern, capsys):
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(pattern) and err.count("\n") == 1 and "Traceback" not in err


def test_verify_end_to_end_writes_reports(tmp_path):
    proc = run_cli("verify", "example", "--preset", "tiny", "--out", str(tmp_path), "--no-progress")
    assert proc.returncode in (0, 1), proc.stderr  # the tiny preset runs 4 steps: the claim may honestly fail
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["results"][0]["id"] == "example/X1-copy-learned"
    assert data["exit_code"] == proc.returncode
    # each claim is streamed once (verdict line, measured/criterion line); the full table goes to report.md
    rows = re.findall(r"^ *\w+ example/X1-copy-learned  [\d.]+ s", proc.stdout, re.M)
    assert len(rows) == 1 and "measured " in proc.stdout and "criterion: " in proc.stdout
    assert "| claim | predicted | measured |" in (tmp_path / "report.md").read_text()
    assert re.search(r"^[\d.]+ s of claims$", proc.stdout, re.M) and "programs before this run" in proc.stdout
    assert (tmp_path / "figures" / "example" / "X1-copy-learned-loss.png").exists()


def test_train_resumes_from_its_workdir(tmp_path, capsys):
    args = ["train", "--config", "configs/example/copy.py:preset=tiny", "--workdir", str(tmp_path)]
    assert cli.main(args) == 0
    assert "trained to step 4" in capsys.readouterr().out
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["meta"]["config"] == "configs/example/copy.py:preset=tiny"
    assert cli.main([*args, "--config.train.steps=6"]) == 0
    assert "trained to step 6" in capsys.readouterr().out
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in lines] == [2, 4, 6]
    # another model in the same workdir is refused in one line, before any work
    assert cli.main([*args, "--config.model.dim=64", "--config.train.steps=8"]) == 2
    assert "holds checkpoints of another config (model.dim: 32 there, 64 now" in capsys.readouterr().err


def test_bench_help_prints_help_and_runs_nothing(tmp_path, monkeypatch, capsys):
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "plain.py").write_text('"""Times nothing."""\nraise SystemExit("ran")\n')
    (bench / "withargs.py").write_text(
        '"""Has options."""\nimport argparse\nargparse.ArgumentParser(description="opts").parse_args()\n'
        'raise SystemExit("ran")\n'
    )
    monkeypatch.chdir(tmp_path)
    assert cli.main(["bench", "plain", "--help"]) == 0
    assert "usage: jaxpapers bench plain" in capsys.readouterr().out
    assert cli.main(["bench", "withargs", "--help"]) == 0
    assert "opts" in capsys.readouterr().out
    assert cli.main(["bench", "plain"]) == 2  # it does run without --help (and its exit is reported)


def test_maintainer_commands_are_not_in_the_user_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "readme" not in capsys.readouterr().out


def test_exit_reason_names_the_claims_behind_the_code():
    from jaxpapers.core.verify import ClaimResult

    def row(i, verdict, seconds=1.0, budget=None):
        r = ClaimResult(id=f"example/{i}", statement="", source="", kind="closed_form", preset="quick", verdict=verdict)
        r.seconds, r.budget_s, r.over_budget = seconds, budget, budget is not None and seconds > budget
        return r

    rows = [row("A", "pass", 5.0, 1.0), row("B", "fail"), row("C", "pass", 1.1, 1.0)]  # C: within the noise
    assert cli._exit_reason(rows, 2, strict_budgets=True) == (
        "exit 2: 1 over budget past the timing noise, --strict-budgets (example/A); 1 fail honestly (example/B)"
    )
    assert cli._exit_reason(rows, 1, strict_budgets=False) == "exit 1: 1 fail honestly (example/B)"
    # the line CI's log ends with: each paper's claim seconds against core.budgets, slowest claim named
    rows.append(row("D-slowest", "pass", 40.0))
    assert cli._seconds_per_paper(rows) == (
        "seconds per paper, claims/budget (slowest claim): example 47/60 (D 40); 47 s in all"
    )


def test_jobs_auto_is_one_worker_per_usable_core_capped(monkeypatch):
    """``--jobs auto`` (the default): the cores this process may use, at most ``MAX_AUTO_JOBS``, at least 1."""
    for cores, want in [(1, 1), (2, 2), (3, 3), (64, cli.MAX_AUTO_JOBS)]:
        monkeypatch.setattr(cli.os, "sched_getaffinity", lambda _pid, n=cores: set(range(n)))
        assert cli._jobs("auto") == want
    monkeypatch.delattr(cli.os, "sched_getaffinity")
    monkeypatch.setattr(cli.os, "cpu_count", lambda: None)
    assert cli._jobs("auto") == 1
    assert cli._jobs("3") == 3
    for bad in ("0", "-2", "many"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"'{bad}' is not a positive integer or 'auto'"):
            cli._jobs(bad)
