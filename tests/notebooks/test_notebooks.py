"""Notebooks: every ``notebooks/<slug>.py`` (jupytext percent) has a matching ``.ipynb`` without
outputs, and executes top to bottom on the CPU in its tiny mode (``JAXPAPERS_NOTEBOOK_PRESET=tiny``)."""

import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "notebooks"
SOURCES = sorted(ROOT.glob("*.py"))


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_notebook_pair_matches(source):
    import jupytext

    ipynb = source.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `jupytext --to ipynb {source}`"
    paired = jupytext.read(ipynb)
    assert all(not c.get("outputs") for c in paired.cells if c.cell_type == "code"), f"{ipynb.name} has outputs"
    want = [c.source.strip() for c in jupytext.read(source).cells]
    got = [c.source.strip() for c in paired.cells]
    assert got == want, f"{ipynb.name} differs from {source.name}: run `jupytext --to ipynb {source}`"


@pytest.mark.notebook
@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_notebook_runs_in_tiny_mode(source, tmp_path):
    import jupytext
    import nbclient

    nb = jupytext.read(source)
    os.environ["JAXPAPERS_NOTEBOOK_PRESET"] = "tiny"
    start = time.perf_counter()
    nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    assert time.perf_counter() - start < 120
