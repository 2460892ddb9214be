"""Orbax checkpoints of the train state together with the data iterator and a model fingerprint.

Each checkpoint step holds three items: ``state`` (the TrainState pytree), ``data`` (the grain
iterator state, when the input pipeline is a grain dataset) and ``meta`` (a JSON fingerprint of the
parameter shapes and the model config). A workdir whose fingerprint differs from the model being
trained is refused, never silently restored or overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import jax
import orbax.checkpoint as ocp
from etils import epath

from jaxpapers.core.errors import CheckpointMismatchError

try:  # grain's orbax integration (grain >= 0.2)
    import grain

    _GrainSave = grain.checkpoint.CheckpointSave
    _GrainRestore = grain.checkpoint.CheckpointRestore
    _GrainHandler = grain.checkpoint.CheckpointHandler
except (ImportError, AttributeError):  # pragma: no cover - grain is a hard dependency
    _GrainSave = _GrainRestore = _GrainHandler = None


def fingerprint(params: Any, model_config: Any = None) -> dict[str, Any]:
    """Identifies a model: every parameter path with its shape and dtype, plus its config."""
    leaves = jax.tree_util.tree_flatten_with_path(params)[0]
    shapes = {_path_str(path): f"{x.dtype}{list(x.shape)}" for path, x in leaves}
    cfg = json.loads(json.dumps(_to_plain(model_config), sort_keys=True, default=str))
    digest = hashlib.sha256(json.dumps({"params": shapes, "config": cfg}, sort_keys=True).encode()).hexdigest()
    return {"digest": digest, "params": shapes, "config": cfg}


def describe_mismatch(saved: dict[str, Any], current: dict[str, Any]) -> str:
    """One phrase naming the first difference between two fingerprints."""
    for path in sorted(set(saved["params"]) | set(current["params"])):
        a, b = saved["params"].get(path), current["params"].get(path)
        if a != b:
            return f"param {path}: checkpoint has {a or 'nothing'}, model has {b or 'nothing'}"
    sc, cc = saved.get("config") or {}, current.get("config") or {}
    if isinstance(sc, dict) and isinstance(cc, dict):
        for key in sorted(set(sc) | set(cc)):
            if sc.get(key) != cc.get(key):
                return f"config field {key!r}: checkpoint has {sc.get(key)!r}, model has {cc.get(key)!r}"
    return "model config differs"


class Checkpointer:
    """A small wrapper over ``ocp.CheckpointManager`` for the trainer (keep ``keep`` newest)."""

    def __init__(self, directory: str | os.PathLike, *, keep: int = 3, fingerprint: dict[str, Any] | None = None):
        self.directory = epath.Path(directory)  # local paths and gs:// alike
        self.fingerprint = fingerprint
        handlers = {"state": ocp.StandardCheckpointHandler(), "meta": ocp.JsonCheckpointHandler()}
        if _GrainHandler is not None:
            handlers["data"] = _GrainHandler()
        self.manager = ocp.CheckpointManager(
            self.directory,
            options=ocp.CheckpointManagerOptions(max_to_keep=keep, create=True),
            item_handlers=handlers,
        )

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def path(self, step: int | None) -> str:
        return "none" if step is None else str(self.directory / str(step))

    def check_compatible(self) -> None:
        """Raises CheckpointMismatchError if the newest checkpoint belongs to another model."""
        step = self.latest_step()
        if step is None or self.fingerprint is None:
            return
        meta = self.manager.restore(step, args=ocp.args.Composite(meta=ocp.args.JsonRestore()))["meta"]
        saved = meta.get("fingerprint")
        if saved is None or saved["digest"] != self.fingerprint["digest"]:
            why = describe_mismatch(saved, self.fingerprint) if saved else "it has no fingerprint"
            raise CheckpointMismatchError(
                f"workdir {self.directory.parent} holds a checkpoint of a different model ({why}); "
                f"use a new --workdir or delete {self.directory}"
            )

    def save(self, step: int, state: Any, data_iter: Any = None) -> None:
        items = {
            "state": ocp.args.StandardSave(state),
            "meta": ocp.args.JsonSave({"step": step, "fingerprint": self.fingerprint}),
        }
        if _has_state(data_iter):
            items["data"] = _GrainSave(data_iter)
        self.manager.save(step, args=ocp.args.Composite(**items), force=True)

    def restore(self, abstract_state: Any, data_iter: Any = None, step: int | None = None) -> Any:
        """Restores the state (into ``abstract_state``'s shapes and shardings) and the iterator in place."""
        step = self.latest_step() if step is None else step
        items = {"state": ocp.args.StandardRestore(abstract_state)}
        has_data = "data" in (self.manager.item_metadata(step) or {}) if _has_state(data_iter) else False
        if has_data:
            items["data"] = _GrainRestore(data_iter)
        return self.manager.restore(step, args=ocp.args.Composite(**items))["state"]

    def wait(self) -> None:
        self.manager.wait_until_finished()

    def close(self) -> None:
        self.manager.wait_until_finished()
        self.manager.close()


def _path_str(path: tuple[Any, ...]) -> str:
    return "/".join(str(getattr(k, "key", getattr(k, "idx", getattr(k, "name", k)))) for k in path)


def _has_state(it: Any) -> bool:
    return _GrainSave is not None and it is not None and hasattr(it, "get_state") and hasattr(it, "set_state")


def _to_plain(x: Any) -> Any:
    if x is None:
        return None
    if hasattr(x, "to_dict"):
        return x.to_dict()
    import dataclasses

    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.asdict(x)
    return x
