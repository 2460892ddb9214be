"""``jaxpapers train`` as a job: workdir and resume-config checks before any work, the
start-up summary and plain job-log lines, and multi-host start-up rules."""

import json
import os

import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.launch import topologies
from jaxpapers.launch import train as launch_train

TINY = "configs/example/copy.py:preset=tiny"


def test_workdir_problems_are_one_line_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match="--workdir is empty"):
        launch_train.check_workdir("")
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ConfigError, match=r"lies below the file .*afile"):
        launch_train.check_workdir(str(afile / "sub"))
    if os.geteuid() != 0:  # root may write anywhere on a local disk
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(ConfigError, match="cannot be written"):
            launch_train.check_workdir(str(locked / "w"))
    with pytest.raises(ConfigError, match="cannot be written"):
        launch_train.check_workdir("/proc/nosuch/w")
    assert launch_train.check_workdir("gs://bucket/run") == "gs://bucket/run"  # remote paths pass through


def test_relative_workdir_becomes_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert launch_train.check_workdir("runs/a") == str(tmp_path / "runs" / "a")
    assert (tmp_path / "runs" / "a").is_dir()


def test_a_job_prints_its_summary_and_log_lines_and_refuses_another_seed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))  # the checkout (configs/)
    workdir = str(tmp_path / "w")
    result = launch_train.run(TINY, workdir)
    err = capsys.readouterr().err
    assert "copy: mesh data=8" in err  # tests run on 8 CPU devices
    assert "parameters" in err and "fresh start at step 0" in err
    assert "compiled and ran the first step in" in err
    assert "copy step 2/4  loss" in err and "copy step 4/4  loss" in err  # off a terminal: plain lines
    rows = [json.loads(line) for line in open(os.path.join(workdir, "metrics.jsonl"))]
    assert all("lr" in r for r in rows if "loss" in r) and any("examples_per_s" in r for r in rows)
    assert result.preempted is None
    saved = open(os.path.join(workdir, "config.json")).read()

    with pytest.raises(ConfigError, match=r"holds checkpoints of another config \(seed: 0 there, 1 now"):
        launch_train.run(TINY, workdir, ["--config.seed=1"])
    assert open(os.path.join(workdir, "config.json")).read() == saved  # a refused run writes nothing

    longer = launch_train.run(TINY, workdir, ["--config.train.steps=6"])  # more steps: allowed
    assert longer.resumed_from == 4
    assert "resumed from step 4" in capsys.readouterr().err


def test_multi_host_topologies_start_jax_distributed():
    """JAX auto-detects Cloud TPU VMs and GKE: every multi-host slice initialises, whatever its env."""
    for name, topo in topologies.TOPOLOGIES.items():
        assert mesh_lib.needs_distributed({}, platform=topo.platform, hosts=topo.hosts) is (topo.hosts > 1), name
    assert mesh_lib.needs_distributed({"SLURM_NTASKS": "16"})
    assert mesh_lib.needs_distributed({"JAX_COORDINATOR_ADDRESS": "10.0.0.1:1234"})
    assert not mesh_lib.needs_distributed({"SLURM_NTASKS": "1"})
    assert topologies.get("v5p-128").hosts == 16 and topologies.get("h200-8").peak_flops == 989e12
