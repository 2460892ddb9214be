"""The public API: notebook and benchmark import public names only; ``__all__`` resolves; modules stay small."""

import pathlib

import pytest

import jaxpapers.timely_generation as tg
from jaxpapers.core.errors import ConfigError

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "timely_generation"
USERS = [ROOT / "notebooks" / "timely_generation.py", ROOT / "benchmarks" / "timely_generation.py"]


def test_all_resolves_and_modules_stay_small():
    for name in tg.__all__:
        assert getattr(tg, name) is not None
    for path in PACKAGE.rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path


@pytest.mark.slow
def test_run_experiment_tiny():
    pc = tg.PhaseConfig(P=2, deadlines=("lin2",), superlinear=("nlogn",))
    out = tg.run_experiment(pc, generators=("critical",))
    assert out["phase_ends"]["critical/lin2"].tolist() == [0.75, 0.375]
    assert set(out) == {"density_curves", "hallucination_curves", "phase_ends", "summary"}
    with pytest.raises(ConfigError, match="generators\\[0\\]='oracle'"):
        tg.run_experiment(pc, generators=("oracle",))


def test_readme_api_section_lists_exactly_all():
    """The README's ``## API`` bullets (one name in backticks per line) are ``__all__``, in order."""
    import importlib
    import pathlib
    import re

    pkg = importlib.import_module("jaxpapers.timely_generation")
    text = (pathlib.Path(pkg.__file__).parent / "README.md").read_text()
    section = re.search(r"^## API\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "README.md needs a '## API' section"
    listed = re.findall(r"^- `([^`]+)`$", section.group(1), re.M)
    assert listed == list(pkg.__all__)
    assert all(hasattr(pkg, name) for name in listed)
