"""Config loading: ``configs/<paper>/<experiment>.py:preset=quick,variant=b16`` plus overrides.

Conventions (big_vision style):

* A config file exposes ``get_config(arg: str | None = None) -> ConfigDict``. ``arg`` is the text
  after the colon; :func:`parse_arg` turns it into a small ConfigDict (``preset`` defaults to
  ``"quick"``) and rejects unknown keys.
* Presets are ``tiny`` (unit tests), ``quick`` (2-core CPU, the default) and ``full`` (paper scale).
* Field overrides are ``a.b=value`` strings (``--config.a.b=value`` on the command line); the value is
  parsed to the type of the existing field. Unknown fields fail with one line naming the field and
  the fields that exist.
* Models never see a ConfigDict: entry points convert sub-configs with :func:`to_dataclass`.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import ml_collections
from etils import epath

from jaxpapers.core.checks import check_choice, choices_text
from jaxpapers.core.errors import ConfigError, UnknownNameError

PRESETS: tuple[str, ...] = ("tiny", "quick", "full")
T = TypeVar("T")


def config_root() -> Path:
    """Directory holding ``<paper>/<experiment>.py`` files (the repository's ``configs/``)."""
    from jaxpapers.configs import ROOT

    return ROOT


def list_configs() -> dict[str, list[str]]:
    """Maps each paper slug to its experiment names, e.g. ``{"example": ["copy"]}``."""
    out: dict[str, list[str]] = {}
    for path in sorted(config_root().glob("*/*.py")):
        if path.name.startswith("_"):
            continue
        out.setdefault(path.parent.name, []).append(path.stem)
    return out


def split_name(spec: str) -> tuple[str, str | None]:
    """Splits ``"configs/x/y.py:preset=full"`` into the path part and the argument (or None)."""
    if ":" in spec:
        name, arg = spec.split(":", 1)
        return name, arg
    return spec, None


def resolve_config_path(name: str) -> Path:
    """Finds a config file from ``configs/<paper>/<exp>.py``, ``<paper>/<exp>`` or a path on disk."""
    candidate = Path(name)
    if candidate.suffix == ".py" and candidate.is_file():
        return candidate.resolve()
    rel = name.removeprefix("configs/").removesuffix(".py")
    parts = rel.split("/")
    if len(parts) == 2:
        path = config_root() / parts[0] / f"{parts[1]}.py"
        if path.is_file():
            return path
    known = [f"{slug}/{exp}" for slug, exps in list_configs().items() for exp in exps]
    raise UnknownNameError(f"config {name!r} does not exist; known configs: {', '.join(known) or '(none)'}")


def parse_arg(
    arg: str | None,
    *,
    presets: Sequence[str] = PRESETS,
    variants: Sequence[str] | None = None,
    default_preset: str = "quick",
    default_variant: str | None = None,
    **extra_defaults: Any,
) -> ml_collections.ConfigDict:
    """Parses ``"preset=full,variant=b16"`` (or just ``"full"``) into a ConfigDict.

    Keys other than ``preset``, ``variant`` and those in ``extra_defaults`` are rejected. Values of
    ``extra_defaults`` keys are converted to the type of their default.
    """
    out: dict[str, Any] = {"preset": default_preset, "variant": default_variant, **extra_defaults}
    for item in filter(None, (arg or "").split(",")):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:  # a bare word is the preset
            key, value = "preset", key
        if key not in out:
            raise ConfigError(f"config argument {key!r} is unknown; allowed keys: {choices_text(out)}")
        out[key] = _coerce(value.strip(), out[key], key)
    check_choice("preset", out["preset"], presets)
    if variants is not None:
        check_choice("variant", out["variant"], variants)
    elif out["variant"] is not None:
        raise ConfigError(f"config argument variant={out['variant']!r}: this config has no variants")
    return ml_collections.ConfigDict(out)


def load(
    spec: str, arg: str | None = None, overrides: Mapping[str, Any] | Iterable[str] = ()
) -> ml_collections.ConfigDict:
    """Loads a config file, calls ``get_config(arg)``, applies overrides and locks the result.

    ``spec`` may carry the argument after a colon (``"fuxvit/pretrain:preset=full"``); an explicit
    ``arg`` wins. The returned ConfigDict is locked: assigning a new field raises.
    """
    name, spec_arg = split_name(spec)
    arg = arg if arg is not None else spec_arg
    path = resolve_config_path(name)
    module = _import_file(path)
    if not hasattr(module, "get_config"):
        raise ConfigError(f"config file {path} defines no get_config(arg=None)")
    cfg = module.get_config(arg)
    if not isinstance(cfg, ml_collections.ConfigDict):
        raise ConfigError(f"{path}: get_config must return an ml_collections.ConfigDict, got {type(cfg).__name__}")
    cfg = apply_overrides(cfg, overrides)
    cfg.lock()
    return cfg


def load_preset(spec: str, preset: str, overrides: Mapping[str, Any] | Iterable[str] = ()) -> ml_collections.ConfigDict:
    """Loads ``spec`` (which may fix a variant, ``"x/y:variant=a"``) at ``preset``, keeping its other arguments."""
    name, arg = split_name(spec)
    return load(name, f"{arg},preset={preset}" if arg else f"preset={preset}", overrides)


def apply_overrides(
    cfg: ml_collections.ConfigDict, overrides: Mapping[str, Any] | Iterable[str]
) -> ml_collections.ConfigDict:
    """Returns a copy of ``cfg`` with ``{"a.b": value}`` or ``["a.b=value"]`` overrides applied.

    String values are parsed to the type of the field they replace; unknown fields raise ConfigError.
    """
    cfg = ml_collections.ConfigDict(cfg.to_dict())  # deep copy, unlocked
    items = overrides.items() if isinstance(overrides, Mapping) else (_split_override(o) for o in overrides)
    for dotted, value in items:
        parent, leaf = _walk(cfg, dotted)
        old = parent[leaf]
        if isinstance(value, str):
            value = _coerce(value, old, dotted)
        elif isinstance(old, ml_collections.ConfigDict):
            raise ConfigError(f"config field {dotted!r} is a group; override its fields instead")
        parent[leaf] = value
    return cfg


def save(cfg: ml_collections.ConfigDict, workdir: str | os.PathLike, **meta: Any) -> epath.Path:
    """Writes the resolved config (and ``meta``, e.g. the config name) to ``workdir/config.json``."""
    path = epath.Path(workdir) / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "config": cfg.to_dict()}, indent=2, default=str, sort_keys=True))
    return path


def to_dataclass(cls: type[T], cfg: ml_collections.ConfigDict | Mapping[str, Any], **extra: Any) -> T:
    """Builds the frozen dataclass ``cls`` from a (sub-)config; unknown fields raise ConfigError."""
    data = dict(cfg.to_dict() if isinstance(cfg, ml_collections.ConfigDict) else cfg)
    data.update(extra)
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"{cls.__name__} has no field {unknown[0]!r}; fields: {', '.join(sorted(names))}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(**values)


# --------------------------------------------------------------------------------------------------


def _import_file(path: Path):
    spec = importlib.util.spec_from_file_location(f"jaxpapers_config_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _split_override(text: str) -> tuple[str, str]:
    text = text.removeprefix("--config.").removeprefix("config.")
    key, sep, value = text.partition("=")
    if not sep:
        raise ConfigError(f"override {text!r} must look like field.sub=value")
    return key, value


def _walk(cfg: ml_collections.ConfigDict, dotted: str) -> tuple[ml_collections.ConfigDict, str]:
    node = cfg
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if not isinstance(node, ml_collections.ConfigDict) or part not in node:
            where = ".".join(parts[:i]) or "the config"
            fields = sorted(node.keys()) if isinstance(node, ml_collections.ConfigDict) else []
            raise ConfigError(
                f"config field {dotted!r} does not exist ({part!r} not in {where}); "
                f"fields there: {', '.join(fields) or '(none)'}"
            )
        if i < len(parts) - 1:
            node = node[part]
    return node, parts[-1]


def _coerce(text: str, like: Any, name: str) -> Any:
    """Parses ``text`` to the type of ``like`` (the field's current value)."""
    if isinstance(like, ml_collections.ConfigDict):
        raise ConfigError(f"config field {name!r} is a group; override its fields instead")
    try:
        if isinstance(like, bool):
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if isinstance(like, int):
            number = float(text)
            if not number.is_integer():
                raise ValueError(text)
            return int(number)
        if isinstance(like, float):
            return float(text)
        if isinstance(like, (tuple, list)):
            value = ast.literal_eval(text) if text[:1] in "([" else [_literal(t) for t in text.split(",") if t]
            return type(like)(value)
        if isinstance(like, str):
            return text
        return _literal(text)  # the field is None or another type: take a Python literal or a string
    except (ValueError, SyntaxError, TypeError):
        raise ConfigError(f"config value {name}={text!r} is not a valid {type(like).__name__}") from None


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
