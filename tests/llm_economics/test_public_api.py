"""The public API: what the notebook and benchmark import resolves from ``__all__``; the package is layered
(config.py imports no JAX, no module imports ``jaxpapers.launch``, claims use the experiments' measure
functions); ``predicted`` values are numbers."""

import ast
import importlib
from pathlib import Path

import jaxpapers.llm_economics as paper
from jaxpapers.core import registry

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "llm_economics"


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every ``from module import name`` and (module, "") for every ``import module``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names]
    return out


def test_notebook_and_benchmark_use_public_names():
    for path in (ROOT / "notebooks" / "llm_economics.py", ROOT / "benchmarks" / "llm_economics.py"):
        ours = [(m, n) for m, n in _imports(path) if m.startswith("jaxpapers.llm_economics")]
        assert ours, path
        for module, name in ours:
            assert module == "jaxpapers.llm_economics" and name in paper.__all__, (path.name, module, name)
            assert getattr(importlib.import_module(module), name) is not None


def test_layering():
    config_imports = {m for m, _ in _imports(PACKAGE / "config.py")}
    assert not {m for m in config_imports if m.split(".")[0] in ("jax", "flax", "optax")}, config_imports
    assert not any(m.startswith("jaxpapers.llm_economics") for m in config_imports)  # no cycle through config
    for path in PACKAGE.rglob("*.py"):
        assert not any(m.startswith("jaxpapers.launch") or n == "launch" for m, n in _imports(path)), path
    for path in (ROOT / "configs" / "llm_economics").glob("*.py"):
        ours = {m for m, _ in _imports(path) if m.startswith("jaxpapers")}
        assert ours <= {"jaxpapers.core.config", "jaxpapers.llm_economics.config"}, (path.name, ours)


def test_claims_name_measure_functions_and_e3_is_a_calibration_point():
    claims = {c.name.split("-")[0]: c for c in registry.claims_of("llm_economics")}
    for c in claims.values():
        assert c.experiment.__module__.startswith("jaxpapers.llm_economics.experiments.")
        assert c.experiment.__name__.startswith("measure")
    assert claims["E3"].statement.startswith("Calibration point (R0 was calibrated so that N*(E = 5e17) = 4e11")


def test_public_api_is_narrow():
    assert len(paper.__all__) == len(set(paper.__all__)) <= 40
    assert {"experiments", "figures", "reference"} <= set(paper.__all__)
    for gone in ("data_bound_profit", "fit_exponents", "loglog_slope", "concat_params", "tpp_spend"):
        assert gone not in paper.__all__
    assert not hasattr(paper.model, "data_bound_profit")
