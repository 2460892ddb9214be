"""The public API is narrow, config.py imports nothing of the paper, claims use the experiments' measure
functions. (Notebook/benchmark names, launch imports and config weight: tests/core.)"""

from pathlib import Path

import jaxpapers.llm_economics as paper
from jaxpapers.core import registry

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "llm_economics"


def test_config_imports_nothing_of_the_paper():  # the rest of the layering: tests/core/test_layout.py
    import ast

    tree = ast.parse((PACKAGE / "config.py").read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any(m.startswith("jaxpapers.llm_economics") for m in modules), modules  # no cycle through config


def test_claims_name_measure_functions_and_e3_is_a_calibration_point():
    claims = {c.name.split("-")[0]: c for c in registry.claims_of("llm_economics")}
    for c in claims.values():
        assert c.resolve_experiment().__module__.startswith("jaxpapers.llm_economics.experiments.")
        assert c.resolve_experiment().__name__.startswith("measure")
    assert claims["E3"].statement.startswith("Calibration point (R0 was calibrated so that N*(E = 5e17) = 4e11")


def test_public_api_is_narrow():
    assert len(paper.__all__) == len(set(paper.__all__)) <= 40
    assert {"experiments", "figures", "reference"} <= set(paper.__all__)
    for gone in ("data_bound_profit", "fit_exponents", "loglog_slope", "tpp_spend"):
        assert gone not in paper.__all__
    assert not hasattr(paper.model, "data_bound_profit")


def test_readme_api_section_lists_exactly_all():
    """The README's ``## API`` bullets (one name in backticks per line) are ``__all__``, in order."""
    import importlib
    import pathlib
    import re

    pkg = importlib.import_module("jaxpapers.llm_economics")
    text = (pathlib.Path(pkg.__file__).parent / "README.md").read_text()
    section = re.search(r"^## API\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "README.md needs a '## API' section"
    listed = re.findall(r"^- `([^`]+)`$", section.group(1), re.M)
    assert listed == list(pkg.__all__)
    assert all(hasattr(pkg, name) for name in listed)
