"""The command line: listing, describing, verify's exit codes and outputs, training, one-line errors."""

import json
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
    assert "predicted vs measured (tiny)" in proc.stdout and (tmp_path / "report.md").exists()
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
    # another model in the same workdir is refused in one line
    assert cli.main([*args, "--config.model.dim=64", "--config.train.steps=8"]) == 2
    assert "holds a checkpoint of a different model" in capsys.readouterr().err
