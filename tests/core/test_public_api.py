"""Notebooks and benchmarks use each paper's public API only: no private modules or names, and what
they import from a paper's package is in its ``__all__``."""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from jaxpapers.core import docs, registry

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "benchmarks").glob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(source: str) -> list[str]:
    """Private jaxpapers modules/names imported, and private attributes read, in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jaxpapers"):
            if any(_private(part) for part in node.module.split(".")):
                found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names if _private(a.name)]
            if node.module.count(".") == 1 and node.module.split(".")[1] not in ("core", "launch", "configs"):
                exported = getattr(importlib.import_module(node.module), "__all__", None)
                if exported is not None:  # a name of the package's API, or a public submodule
                    found += [
                        f"{node.module}.{a.name} (not in __all__)"
                        for a in node.names
                        if a.name not in exported and importlib.util.find_spec(f"{node.module}.{a.name}") is None
                    ]
        elif isinstance(node, ast.Import):
            found += [
                a.name for a in node.names if a.name.startswith("jaxpapers") and any(map(_private, a.name.split(".")))
            ]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            found.append(f".{node.attr}")
    return found


def test_the_scan_sees_private_uses():
    src = "\n".join(
        [
            "from jaxpapers.example._impl import f",
            "from jaxpapers.core.sim import _x",
            "import jaxpapers.a._b",
            "m._run(1)",
        ]
    )
    assert private_uses(src) == ["jaxpapers.example._impl", "jaxpapers.core.sim._x", "jaxpapers.a._b", "._run"]


@pytest.mark.parametrize("script", SCRIPTS, ids=[f"{s.parent.name}/{s.stem}" for s in SCRIPTS])
def test_scripts_use_public_names_only(script):
    assert private_uses(script.read_text()) == [], f"{script.relative_to(ROOT)} reaches past the public API"


def test_api_names_reads_only_the_api_section():
    text = "# T\n\n## API\n\nintro `x`\n- `Model`: the model\n* `fit` trains\n- not `this`\n\n## Claims\n- `later`\n"
    assert docs.api_names(text) == ["Model", "fit"]
    assert docs.api_names("# T\n- `a`\n") == []


@pytest.mark.parametrize("slug", registry.papers())
def test_readme_api_section_lists_exactly_the_package_all(slug):
    readme = (registry.PACKAGE_DIR / slug / "README.md").read_text()
    listed = docs.api_names(readme)
    assert listed, f"jaxpapers/{slug}/README.md has no '## API' section with '- `name`: ...' bullets"
    exported = list(importlib.import_module(f"jaxpapers.{slug}").__all__)
    assert sorted(listed) == sorted(exported), (
        f"jaxpapers/{slug}: README API only {sorted(set(listed) - set(exported))}, "
        f"__all__ only {sorted(set(exported) - set(listed))}"
    )
    assert len(listed) == len(set(listed)), f"jaxpapers/{slug}/README.md lists a name twice"
