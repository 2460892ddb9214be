"""The public API: notebook and benchmark import public names only; ``__all__`` resolves; modules stay small."""

import ast
import importlib
import importlib.util
import pathlib

import pytest

import jaxpapers.timely_generation as tg
from jaxpapers.core.errors import ConfigError

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "timely_generation"
USERS = [ROOT / "notebooks" / "timely_generation.py", ROOT / "benchmarks" / "timely_generation.py"]


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxpapers"):
            yield from ((node.module, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names if a.name.startswith("jaxpapers"))


def test_notebook_and_benchmark_use_public_names_only():
    for path in [p for p in USERS if p.exists()]:
        for module, name in _imports(path):
            assert not any(part.startswith("_") for part in module.split(".")), (path.name, module)
            if name is None:
                continue
            assert not name.startswith("_"), (path.name, module, name)
            mod = importlib.import_module(module)
            assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}"), (path.name, module, name)
        tree = ast.parse(path.read_text())
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and getattr(n.value, "id", None) == "tg"}
        assert used <= set(tg.__all__), used - set(tg.__all__)


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
