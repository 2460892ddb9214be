"""The launch scripts, run against a fake ``gcloud`` that records what it is asked."""

import os
import shutil
import stat
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_GCLOUD = """#!/usr/bin/env bash
echo "$@" >> "$GCLOUD_LOG"
for a in "$@"; do case "$a" in *.tar.gz) cp "$a" "$GCLOUD_LOG.tar.gz" ;; esac; done
"""


@pytest.fixture
def fake_gcloud(tmp_path):
    """A gcloud that logs its calls; the scripts' optional settings are left to their defaults."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gcloud = bin_dir / "gcloud"
    gcloud.write_text(FAKE_GCLOUD)
    gcloud.chmod(gcloud.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "gcloud.log"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("JAXPAPERS_CACHE_DIR", "LIBTPU_INIT_ARGS", "PROJECT")},
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "GCLOUD_LOG": str(log),
        "TPU_NAME": "pod",
        "ZONE": "z",
    }
    return env, log


@pytest.mark.parametrize("script", ["launch/tpu_pod.sh", "launch/gpu_hosts.sh"])
def test_scripts_parse(script):
    assert subprocess.run(["bash", "-n", str(ROOT / script)]).returncode == 0


def test_tpu_pod_refuses_a_local_workdir_before_touching_the_pod(fake_gcloud):
    env, log = fake_gcloud
    out = subprocess.run(
        ["bash", str(ROOT / "launch/tpu_pod.sh"), "--config", "c.py", "--workdir", "/tmp/x"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "must be a gs:// path" in out.stderr
    assert not log.exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_tpu_pod_ships_the_working_tree_and_starts_every_worker_detached(fake_gcloud, tmp_path):
    env, log = fake_gcloud
    repo = tmp_path / "repo"
    (repo / "launch").mkdir(parents=True)
    shutil.copy(ROOT / "launch/tpu_pod.sh", repo / "launch/tpu_pod.sh")
    (repo / ".gitignore").write_text("ignored.txt\n")
    (repo / "tracked.txt").write_text("t")
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"]):
        subprocess.run(["git", *cmd], cwd=repo, check=True)
    (repo / "untracked.txt").write_text("u")  # not committed: must still ship
    (repo / "ignored.txt").write_text("i")
    args = ["--config", "configs/example/copy.py:preset=full", "--workdir", "gs://b/run", "--topology", "v5p-128"]
    out = subprocess.run(["bash", str(repo / "launch/tpu_pod.sh"), *args], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    with tarfile.open(f"{log}.tar.gz") as tar:
        names = set(tar.getnames())
    assert {"tracked.txt", "untracked.txt", "launch/tpu_pod.sh"} <= names and "ignored.txt" not in names
    calls = log.read_text()
    assert "scp" in calls and "--worker=all" in calls
    assert "nohup .venv/bin/jaxpapers train --config configs/example/copy.py:preset=full" in calls
    assert "LIBTPU_INIT_ARGS=" in calls and "JAXPAPERS_CACHE_DIR='gs://b/run/xla-cache'" in calls
    assert "sys.version_info < (3, 11)" in calls  # a 3.11 venv even on images that ship 3.10
