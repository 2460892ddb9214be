"""The training entry point that runs the same config on a laptop, a GPU host or a TPU pod slice.

    jaxpapers train --config configs/example/copy.py:preset=quick --workdir /tmp/copy
    jaxpapers train --config fuxvit/pretrain:preset=full,variant=so400m --workdir gs://... \\
        --topology v5p-128 --config.strategy=fsdp_tp_cp

Steps: start multi-host JAX when under a launcher, load and check the config, build the mesh
(the topology's, unless ``--config.mesh.<axis>=N`` arguments give one; configs never set a mesh),
pick the logical-axis rules (``rules.get(cfg.rules_family, cfg.strategy)``), write the resolved
config into the workdir, and call the paper's ``train(cfg, workdir, *, mesh, rules)`` (``cfg.entry`` may name another
``module:function``). Papers never import ``launch``: the mesh and rules arrive as arguments.
Training itself is ``jaxpapers.core.train.fit``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from jaxpapers.core import config as config_lib
from jaxpapers.core.errors import ConfigError


def resolve_entry(cfg: Any, spec: str) -> Callable[..., Any]:
    """The train function a config names: ``cfg.entry`` or ``jaxpapers.<paper>.train:train``."""
    name, _ = config_lib.split_name(spec)
    slug = config_lib.resolve_config_path(name).parent.name
    target = cfg.get("entry", None) or f"jaxpapers.{slug}.train:train"
    module_name, _, func_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        raise ConfigError(
            f"config {name!r} names no trainable model ({module_name} does not exist); "
            "it configures claims only: use `jaxpapers verify`"
        ) from None
    fn = getattr(module, func_name or "train", None)
    if fn is None:
        raise ConfigError(f"{module_name} has no function {func_name!r} to train config {name!r}")
    return fn


def check_paper_config(entry: Callable[..., Any], cfg: Any) -> None:
    """Calls ``check_config(cfg)`` of the entry's module when it has one: a paper refuses what it can
    (data paths, an index that lists nothing, ...) before the workdir or its config.json is touched."""
    check = getattr(sys.modules.get(entry.__module__), "check_config", None)
    if check is not None:
        check(cfg)


def split_mesh_overrides(overrides: Sequence[str]) -> tuple[dict[str, int], list[str]]:
    """``--config.mesh.<axis>=N`` arguments (the mesh, not config fields) and the remaining overrides."""
    mesh: dict[str, int] = {}
    rest = []
    for o in overrides:
        key, sep, value = o.removeprefix("--config.").removeprefix("config.").partition("=")
        if not key.startswith("mesh."):
            rest.append(o)
            continue
        try:
            mesh[key.removeprefix("mesh.")] = int(value)
        except ValueError:
            raise ConfigError(f"mesh size {key}={value!r} must be an integer (or -1 for the rest)") from None
    return mesh, rest


def split_profile_overrides(overrides: Sequence[str]) -> tuple[tuple[int, int] | None, list[str]]:
    """``--config.profile.steps=START:STOP`` (trace steps START..STOP-1 into <workdir>/profile; not a
    config field, so any config takes it) and the remaining overrides."""
    window, rest = None, []
    for o in overrides:
        key, _, value = o.removeprefix("--config.").removeprefix("config.").partition("=")
        if key != "profile.steps":
            rest.append(o)
            continue
        start, sep, stop = value.partition(":")
        try:
            window = (int(start), int(stop))
        except ValueError:
            window = None
        if not sep or window is None or not 1 <= window[0] < window[1]:
            raise ConfigError(
                f"profile.steps={value!r} must look like START:STOP with 1 <= START < STOP (e.g. 100:110)"
            )
    return window, rest


def build_mesh(topology: str | None, mesh_sizes: dict[str, int] | None = None):
    """The mesh for this run: ``--config.mesh.*`` sizes if given, else the topology's mesh, else all
    devices on ``data``; None on a single device with neither (plain single-device training)."""
    import jax

    from jaxpapers.launch import mesh as mesh_lib
    from jaxpapers.launch import topologies

    sizes = dict(mesh_sizes) if mesh_sizes else None
    if topology is not None:
        topo = topologies.get(topology)
        if jax.device_count() != topo.num_devices:
            raise ConfigError(
                f"topology {topology} expects {topo.num_devices} devices, found {jax.device_count()} "
                f"({jax.default_backend()})"
            )
        sizes = sizes or dict(topo.mesh)
    if sizes is None and jax.device_count() == 1:
        return None
    return mesh_lib.make_mesh(sizes or {"data": -1})


def pick_rules(cfg: Any):
    """The rule table of ``cfg.rules_family`` and ``cfg.strategy``; None when the config names no family."""
    from jaxpapers.launch import rules as rules_lib

    family = cfg.get("rules_family", None)
    if family is None:
        return None
    return rules_lib.get(family, cfg.get("strategy", "dp"))


# Fields a resumed run may change: how long it trains and how often it logs, evaluates and saves.
RESUMABLE_CHANGES = ("train.steps", "train.log_every", "train.eval_every", "train.ckpt_every", "profile.")


def check_workdir(workdir: str) -> str:
    """``workdir`` ready to write into: local paths made absolute and created; one clear error when it is
    empty, lies below a file or cannot be written (checked before any work starts). URLs (gs://...)
    pass unchanged."""
    if not workdir or not workdir.strip():
        raise ConfigError("--workdir is empty; give a directory for checkpoints and metrics (e.g. runs/copy)")
    if "://" in workdir:
        return workdir
    path = os.path.abspath(os.path.expanduser(workdir))
    parent = path
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if parent and not os.path.isdir(parent):
        raise ConfigError(f"--workdir {workdir!r} lies below the file {parent!r}; give a directory path")
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".write-test")
        with open(probe, "w") as f:
            f.write("")
        os.remove(probe)
    except OSError as e:
        raise ConfigError(
            f"--workdir {workdir!r} cannot be written ({e.strerror or e}); choose another directory"
        ) from None
    return path


def check_resume_config(cfg: Any, workdir: str) -> None:
    """Refuses a run whose config differs from the one that wrote the workdir's checkpoints in anything
    but :data:`RESUMABLE_CHANGES` (e.g. another seed or data block would silently resume the old state
    on other data). Nothing in the workdir is touched when it refuses."""
    from etils import epath

    saved_path = epath.Path(workdir) / "config.json"
    ckpts = epath.Path(workdir) / "checkpoints"
    if not saved_path.exists() or not ckpts.exists() or not any(p.name.isdigit() for p in ckpts.iterdir()):
        return
    try:
        saved = json.loads(saved_path.read_text())["config"]
    except (ValueError, KeyError):
        return  # an unreadable config.json is rewritten; the checkpoint fingerprint still guards the model
    new = json.loads(json.dumps(cfg.to_dict(), default=str))
    changed = [k for k in _diff_keys(saved, new) if not k.startswith(RESUMABLE_CHANGES)]
    if changed:
        first = changed[0]
        raise ConfigError(
            f"workdir {workdir} holds checkpoints of another config ({first}: "
            f"{_lookup(saved, first)!r} there, {_lookup(new, first)!r} now"
            + (f"; and {len(changed) - 1} more" if len(changed) > 1 else "")
            + "); a resumed run may change only "
            + ", ".join(k + "*" if k.endswith(".") else k for k in RESUMABLE_CHANGES)
            + "; use a new --workdir"
        )


def run(spec: str, workdir: str, overrides: Sequence[str] = (), *, topology: str | None = None) -> Any:
    """Loads ``spec``, builds the mesh and trains into ``workdir``; returns the paper's FitResult.

    Everything that can be checked before training is (config, workdir, topology, resume config);
    training runs as a job (:mod:`jaxpapers.core.train.job`): SIGTERM saves and returns, a start-up
    summary is printed and, off a terminal, one line per ``log_every`` steps.
    """
    from jaxpapers.core.train import job as job_lib
    from jaxpapers.launch import mesh as mesh_lib
    from jaxpapers.launch import topologies

    topo = topologies.get(topology) if topology is not None else None
    mesh_lib.initialize_distributed(platform=topo and topo.platform, hosts=topo.hosts if topo else 1)
    mesh_sizes, overrides = split_mesh_overrides(overrides)
    profile_steps, overrides = split_profile_overrides(overrides)
    cfg = config_lib.load(spec, overrides=overrides)
    if "mesh" in cfg:
        raise ConfigError(
            f"config {spec!r} sets a mesh; configs do not: the topology decides it (--topology), "
            "and --config.mesh.<axis>=N overrides it for one run"
        )
    entry = resolve_entry(cfg, spec)
    check_paper_config(entry, cfg)
    workdir = check_workdir(workdir)
    mesh = build_mesh(topology, mesh_sizes)
    rules = pick_rules(cfg)
    check_resume_config(cfg, workdir)
    config_lib.save(cfg, workdir, config=spec, overrides=list(overrides), topology=topology)
    info = job_lib.JobInfo(
        topology=topology,
        strategy=cfg.get("strategy", None),
        peak_flops_per_device=topo.peak_flops if topo else None,
        handle_sigterm=True,
        summary=True,
        profile_steps=profile_steps,
    )
    with job_lib.job(info):
        return entry(cfg, workdir, mesh=mesh, rules=rules)


def _diff_keys(a: Any, b: Any, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _diff_keys(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{prefix}{k}.")
        return out
    return [] if a == b else [prefix.rstrip(".")]


def _lookup(d: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        d = d.get(part, "<absent>") if isinstance(d, dict) else "<absent>"
    return d


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="configs/<paper>/<experiment>.py[:preset=...,variant=...]")
    parser.add_argument("--workdir", required=True, help="directory for checkpoints, metrics.jsonl and config.json")
    parser.add_argument(
        "--topology", default=None, help="named target (cpu-8, h200-8, v5p-128, ...): checks the device count"
    )


def main(argv: Sequence[str] | None = None) -> Any:
    """``python -m jaxpapers.launch.train --config ... --workdir ... [--config.a.b=v ...]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    args, rest = parser.parse_known_args(argv)
    overrides = [r for r in rest if r.startswith("--config.")]
    unknown = [r for r in rest if not r.startswith("--config.")]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return run(args.config, args.workdir, overrides, topology=args.topology)


if __name__ == "__main__":
    main()
