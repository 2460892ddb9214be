"""V7: the pipeline is training-free: the model's fingerprint is unchanged by ``run_dataset``, and the pipeline,
verifier and selection modules import no optimiser (an import-graph scan of the paper's own modules)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import jax
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.vmr_prompts.adapters.oracle import NoisyOracleVLM
from jaxpapers.vmr_prompts.config import OracleConfig, SynthConfig
from jaxpapers.vmr_prompts.pipeline import VMRPromptPipeline
from jaxpapers.vmr_prompts.synth.generator import generate_video

ROOTS = ("jaxpapers.vmr_prompts.pipeline", "jaxpapers.vmr_prompts.verify", "jaxpapers.vmr_prompts.select")
FORBIDDEN = ("optax", "flax.training", "jax.grad")


def _imports(module: str) -> set[str]:
    spec = importlib.util.find_spec(module)
    tree = ast.parse(Path(spec.origin).read_text())
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module:
            out.add(n.module)
            out |= {f"{n.module}.{a.name}" for a in n.names}
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "jax" and n.attr in (
                "grad", "value_and_grad", "vjp"):
            out.add(f"jax.{n.attr}")
    return out


def import_graph(roots=ROOTS) -> dict[str, set[str]]:
    """{module: its imports} for every ``jaxpapers.vmr_prompts`` module reachable from ``roots``."""
    seen, todo = {}, list(roots)
    while todo:
        mod = todo.pop()
        if mod in seen or importlib.util.find_spec(mod) is None:
            continue
        seen[mod] = _imports(mod)
        todo += [m for m in seen[mod] if m.startswith("jaxpapers.vmr_prompts") and m not in seen
                 and _is_module(m)]
    return seen


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def forbidden_imports(roots=ROOTS) -> list[str]:
    """``module -> name`` for every optimiser/gradient import in the graph of ``roots``."""
    return sorted(f"{m} -> {i}" for m, imps in import_graph(roots).items() for i in imps
                  if any(i == f or i.startswith(f + ".") for f in FORBIDDEN) or i in ("jax.grad", "jax.value_and_grad"))


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """Fingerprint before/after ``run_dataset`` on ``cfg.training_free.videos`` SynthVMR videos; forbidden imports."""
    del key
    model = NoisyOracleVLM(to_dataclass(OracleConfig, cfg.oracle))
    spec = to_dataclass(SynthConfig, cfg.synth)
    before = model.params_fingerprint()
    items = [generate_video(99, i, spec)[:2] for i in range(int(cfg.training_free.videos))]
    rows = VMRPromptPipeline(model).run_dataset(items)
    bad = forbidden_imports()
    return Measurement(measured={"fingerprint_changed": int(model.params_fingerprint() != before),
                                 "forbidden_imports": len(bad)},
                       predicted={"fingerprint_changed": 0, "forbidden_imports": 0}, n=len(rows),
                       details={"fingerprint": before, "imports_scanned": sorted(import_graph()), "offenders": bad})
