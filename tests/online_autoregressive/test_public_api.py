"""The public API: notebook and benchmark import public names only; ``__all__`` resolves; modules stay small."""

import ast
import importlib
import importlib.util
import pathlib

import numpy as np
import pytest

import jaxpapers.online_autoregressive as oa
from jaxpapers.core.errors import ConfigError

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "online_autoregressive"
USERS = [ROOT / "notebooks" / "online_autoregressive.py", ROOT / "benchmarks" / "online_autoregressive.py"]


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxpapers"):
            yield from ((node.module, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names if a.name.startswith("jaxpapers"))


def test_notebook_and_benchmark_use_public_names_only():
    for path in USERS:
        for module, name in _imports(path):
            assert not any(part.startswith("_") for part in module.split(".")), (path.name, module)
            if name is None:
                continue
            assert not name.startswith("_"), (path.name, module, name)
            mod = importlib.import_module(module)
            assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}"), (path.name, module, name)
    tree = ast.parse(USERS[0].read_text())
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and getattr(n.value, "id", None) == "oa"}
    assert used <= set(oa.__all__), used - set(oa.__all__)


def test_all_resolves_and_modules_stay_small():
    for name in oa.__all__:
        assert getattr(oa, name) is not None
    for path in PACKAGE.rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path
        for module, _ in _imports(path):
            assert not module.startswith("jaxpapers.launch"), (path, module)


def test_api_optimal_mistakes_and_play():
    latch = oa.latch_class(np.arange(40), 40)
    assert oa.optimal_mistakes(latch, np.arange(40), 8) == 4
    small = oa.latch_class(np.arange(12), 12)
    assert oa.optimal_mistakes(small, np.arange(12), 1, feedback="cot") == 1
    assert oa.play(latch, np.arange(40), 8, "e2e", "soa", "latch", 100) == 4
    assert oa.play(latch, np.arange(40), 8, "cot", "cot_soa", "latch", 100) == 1
    ltf = oa.ltf_class(2)
    assert oa.play(ltf, np.arange(4), 2, "e2e", "soa", "optimal", 50) == oa.optimal_mistakes(ltf, np.arange(4), 2)
    assert oa.play(ltf, np.arange(4), 2, "cot", "cot_halving", "greedy", 50) <= np.log2(14)
    assert oa.play(ltf, np.arange(4), 2, "e2e", "halving", "random", 30) <= np.log2(14)
    with pytest.raises(ConfigError, match="learner='soa'"):
        oa.play(ltf, np.arange(4), 2, "cot", "soa", "greedy", 5)
    with pytest.raises(ConfigError, match="feedback='both'"):
        oa.optimal_mistakes(ltf, np.arange(4), 2, feedback="both")
    with pytest.raises(NotImplementedError):
        oa.hard_prompts(3, 8)
