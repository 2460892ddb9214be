"""Orbax checkpoints of the train state together with the data iterator and a model fingerprint.

Each checkpoint step holds three items: ``state`` (the TrainState pytree), ``data`` (the grain
iterator state, when the input pipeline is a grain dataset) and ``meta`` (a JSON fingerprint of the
parameter shapes and the model config, plus a copy of the iterator state). A workdir whose
fingerprint differs from the model being trained is refused, never silently restored or overwritten.

Restoring tries the newest step first and falls back to older ones: a step whose files are damaged
(truncated, missing, undecodable), or whose data-iterator state is missing or disagrees with the copy
in ``meta``, is skipped with a warning naming the step and what was wrong, and moved to
``<workdir>/damaged_checkpoints/`` once an older step restored. A run never resumes with
its data silently restarted. Unfinished temporary step folders (a save cut short by a kill) are
removed when the manager opens the directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from typing import Any

import jax
import orbax.checkpoint as ocp
from etils import epath

from jaxpapers.core.errors import CheckpointDamagedError, CheckpointMismatchError

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
        self.directory = absolute_path(directory)  # local paths (made absolute) and gs:// alike
        self.fingerprint = fingerprint
        handlers = {"state": ocp.StandardCheckpointHandler(), "meta": ocp.JsonCheckpointHandler()}
        if _GrainHandler is not None:
            handlers["data"] = _GrainHandler()
        self.manager = ocp.CheckpointManager(
            self.directory,
            options=ocp.CheckpointManagerOptions(max_to_keep=keep, create=True, cleanup_tmp_directories=True),
            item_handlers=handlers,
        )
        self.restored_step: int | None = None  # the step restore() used (after any fallback)
        self.skipped: list[str] = []  # "step N: why" for each damaged step restore() passed over

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def all_steps(self) -> list[int]:
        """Finished checkpoint steps, newest first."""
        return sorted(self.manager.all_steps(), reverse=True)

    def path(self, step: int | None) -> str:
        return "none" if step is None else str(self.directory / str(step))

    def check_compatible(self) -> None:
        """Raises CheckpointMismatchError if the newest readable checkpoint belongs to another model."""
        if self.fingerprint is None:
            return
        for step in self.all_steps():
            try:
                meta = self._meta(step)
            except Exception:  # noqa: BLE001 - a damaged step is reported by restore(), which skips it
                continue
            self._check_fingerprint(meta)
            return

    def _meta(self, step: int) -> dict[str, Any]:
        return self.manager.restore(step, args=ocp.args.Composite(meta=ocp.args.JsonRestore()))["meta"]

    def _check_fingerprint(self, meta: dict[str, Any]) -> None:
        if self.fingerprint is None:
            return
        saved = meta.get("fingerprint")
        if saved is None or saved["digest"] != self.fingerprint["digest"]:
            why = describe_mismatch(saved, self.fingerprint) if saved else "it has no fingerprint"
            raise CheckpointMismatchError(
                f"workdir {self.directory.parent} holds a checkpoint of a different model ({why}); "
                f"use a new --workdir or delete {self.directory}"
            )

    def save(self, step: int, state: Any, data_iter: Any = None) -> None:
        meta = {"step": step, "fingerprint": self.fingerprint}
        items = {"state": ocp.args.StandardSave(state)}
        if _has_state(data_iter):
            items["data"] = _GrainSave(data_iter)
            meta["data_state"] = _plain_state(data_iter.get_state())
        items["meta"] = ocp.args.JsonSave(meta)
        self.manager.save(step, args=ocp.args.Composite(**items), force=True)

    def restore(self, abstract_state: Any, data_iter: Any = None, step: int | None = None) -> Any:
        """Restores the state (into ``abstract_state``'s shapes and shardings) and the iterator in place.

        Without ``step``: the newest intact checkpoint, each damaged newer one skipped with a warning
        (``self.skipped``); raises CheckpointDamagedError when none is intact. ``self.restored_step``
        is the step used. A checkpoint of another model raises CheckpointMismatchError.
        """
        steps = self.all_steps() if step is None else [step]
        self.skipped = []
        for s in steps:
            try:
                state = self._restore_step(s, abstract_state, data_iter)
            except CheckpointMismatchError:
                raise
            except Exception as e:  # noqa: BLE001 - any failure to read a step means it is damaged
                why = f"step {s}: {type(e).__name__}: {_first_line(e)}"
                self.skipped.append(why)
                warnings.warn(f"checkpoint {self.path(s)} is damaged ({why}); trying an older one", stacklevel=2)
                continue
            self.restored_step = s
            self._set_aside(step for step in steps if step > s)
            return state
        raise CheckpointDamagedError(
            f"no intact checkpoint in {self.directory} ({'; '.join(self.skipped) or 'none saved'}); "
            "delete the folder to start afresh"
        )

    def _set_aside(self, steps: Any) -> None:
        """Moves damaged steps newer than the restored one to ``<workdir>/damaged_checkpoints/<step>``
        (kept for inspection, out of the way of the steps this run will save again)."""
        for step in steps:
            target = self.directory.parent / "damaged_checkpoints" / str(step)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                target.rmtree()
            (self.directory / str(step)).rename(target)
        self.manager.reload()

    def _restore_step(self, step: int, abstract_state: Any, data_iter: Any) -> Any:
        meta = self._meta(step)
        self._check_fingerprint(meta)
        items = {"state": ocp.args.StandardRestore(abstract_state)}
        wants_data = _has_state(data_iter)
        if wants_data:
            if "data_state" not in meta:
                raise ValueError("the checkpoint records no data-iterator state (saved without one)")
            if "data" not in (self.manager.item_metadata(step) or {}):
                raise FileNotFoundError("its data-iterator state is missing")
            items["data"] = _GrainRestore(data_iter)
        state = self.manager.restore(step, args=ocp.args.Composite(**items))["state"]
        if wants_data and _plain_state(data_iter.get_state()) != meta["data_state"]:
            raise ValueError(
                f"its data-iterator state {_plain_state(data_iter.get_state())} disagrees with the one recorded "
                f"at save time {meta['data_state']}"
            )
        return state

    def wait(self) -> None:
        self.manager.wait_until_finished()

    def close(self) -> None:
        self.manager.wait_until_finished()
        self.manager.close()


def absolute_path(path: str | os.PathLike) -> epath.Path:
    """``path`` as an epath: local paths made absolute (orbax needs them so), URLs (gs://...) unchanged."""
    text = os.fspath(path)
    if not text:
        raise ValueError("the checkpoint directory is empty")
    if "://" in text:
        return epath.Path(text)
    return epath.Path(os.path.abspath(os.path.expanduser(text)))


def _plain_state(state: Any) -> Any:
    """An iterator state as plain JSON values (bytes decoded), comparable with its saved copy."""
    if isinstance(state, bytes):
        state = state.decode()
    return json.loads(json.dumps(state, sort_keys=True, default=str))


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else "")[:200]


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
