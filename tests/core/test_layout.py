"""The package layout rules: papers never import launch/, and launch/ and configs/ resolve to this checkout."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import jaxpapers
from jaxpapers.core import registry

ROOT = Path(jaxpapers.__file__).resolve().parents[1]
# Sharding experiments build meshes to measure sharded programs: the one allowed edge into launch/.
ALLOWED = {"jaxpapers.launch.mesh"}


def _launch_imports(path: Path) -> set[str]:
    """The ``jaxpapers.launch`` modules (or names in them) that ``path`` imports, fully qualified."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return {n for n in names if n == "jaxpapers.launch" or n.startswith("jaxpapers.launch.")}


def test_papers_never_import_launch():
    offenders = []
    for slug in registry.papers():
        for path in sorted((ROOT / "jaxpapers" / slug).rglob("*.py")):
            bad = {n for n in _launch_imports(path) if not any(n == a or n.startswith(a + ".") for a in ALLOWED)}
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "papers receive mesh and rules as arguments:\n" + "\n".join(offenders)


def test_the_import_scan_sees_every_form(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import jaxpapers.launch.rules\nfrom jaxpapers.launch import mesh, rules\ndef f():\n"
        "    from jaxpapers.launch.train import run\n"
    )
    assert _launch_imports(src) == {"jaxpapers.launch.rules", "jaxpapers.launch.mesh", "jaxpapers.launch.train.run"}


def test_launch_and_configs_resolve_to_this_checkout():
    import jaxpapers.configs
    import jaxpapers.launch

    for module in (jaxpapers.launch, jaxpapers.configs):
        assert Path(module.__file__).resolve().parents[1] == ROOT, module.__file__


def test_plain_pythonpath_import_finds_launch_and_configs(tmp_path):
    """Without site-packages (no editable-install finder), PYTHONPATH=<checkout> is enough."""
    code = "import jaxpapers.launch as l, jaxpapers.configs as c; print(l.__file__); print(c.__file__)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [str(ROOT / "launch" / "__init__.py"), str(ROOT / "configs" / "__init__.py")]


HEAVY = ("jax", "flax", "optax", "orbax", "grain", "chex")


def _imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_paper_modules_stay_small():
    big = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for slug in registry.papers()
        for p in sorted((ROOT / "jaxpapers" / slug).rglob("*.py"))
        if (n := len(p.read_text().splitlines())) > 500
    ]
    assert not big, "split modules over 500 lines:\n" + "\n".join(big)


def test_paper_configs_import_no_jax():
    """``<slug>/config.py`` (typed configs) and ``configs/<slug>/*.py`` import no JAX-stack library."""
    offenders = []
    for slug in registry.papers():
        files = [ROOT / "jaxpapers" / slug / "config.py", *sorted((ROOT / "configs" / slug).glob("*.py"))]
        for path in files:
            heavy = {m for m in _imported_modules(path) if m.split(".")[0] in HEAVY}
            if heavy:
                offenders.append(f"{path.relative_to(ROOT)}: {sorted(heavy)}")
    assert not offenders, "\n".join(offenders)


def test_config_files_import_only_their_papers_config():
    offenders = []
    for slug in registry.papers():
        for path in sorted((ROOT / "configs" / slug).glob("*.py")):
            ours = {m for m in _imported_modules(path) if m.startswith("jaxpapers")}
            extra = ours - {"jaxpapers.core.config", f"jaxpapers.{slug}.config", f"jaxpapers.{slug}"}
            if extra:
                offenders.append(f"{path.relative_to(ROOT)}: {sorted(extra)}")
    assert not offenders, "config files import only jaxpapers.core.config and the paper's config.py:\n" + "\n".join(
        offenders
    )


def _imports_of(path: Path, module: str) -> set[str]:
    """The jaxpapers modules ``module`` imports anywhere in its file (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("jaxpapers")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("jaxpapers"):
            for a in node.names:  # `from pkg import submodule` depends on the submodule
                sub = f"{node.module}.{a.name}"
                found.add(sub if _module_file(sub) else node.module)
    return found - {module}


def _module_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def test_core_has_no_import_circle():
    """No chain of imports among jaxpapers.core's modules leads back to where it started."""
    modules = {}
    for path in sorted((ROOT / "jaxpapers" / "core").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = path
    graph = {
        m: {d for d in _imports_of(p, m) if d in modules and not m.startswith(d + ".")} for m, p in modules.items()
    }
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                raise AssertionError("import circle: " + " -> ".join([*stack[stack.index(d) :], d]))
            if d not in state:
                visit(d, [*stack, d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
