"""Metric sinks: JSON lines (always, on process 0) and TensorBoard (optional, via tensorboardX)."""

from __future__ import annotations

import json
import math
import os
from typing import Any

import jax
from etils import epath


class MetricWriter:
    """Appends ``{"step": s, name: value, ...}`` records to ``workdir/metrics.jsonl``.

    Only process 0 writes. With ``tensorboard=True`` scalars also go to TensorBoard event files in
    ``workdir/tb`` (needs the ``tensorboard`` extra).
    """

    def __init__(self, workdir: str | os.PathLike | None, *, tensorboard: bool = False):
        self.path = None if workdir is None else epath.Path(workdir) / "metrics.jsonl"
        self.enabled = self.path is not None and jax.process_index() == 0
        self._tb = None
        if self.enabled:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if tensorboard:
                from tensorboardX import SummaryWriter

                self._tb = SummaryWriter(str(self.path.parent / "tb"))  # epath: gs:// stays gs://

    def truncate_after(self, step: int) -> list[dict[str, Any]]:
        """Drops records after ``step`` (written after the checkpoint a run resumes from); returns the rest."""
        if not self.enabled or not self.path.exists():
            return read_metrics(self.path) if self.path and self.path.exists() else []
        kept = [r for r in read_metrics(self.path) if r["step"] <= step]
        self.path.write_text("".join(json.dumps(r) + "\n" for r in kept))
        return kept

    def write(self, record: dict[str, Any]) -> None:
        if not self.enabled:
            return
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        if self._tb is not None:
            for k, v in record.items():
                if k != "step" and isinstance(v, (int, float)) and math.isfinite(v):
                    self._tb.add_scalar(k, v, record["step"])
            self._tb.flush()

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()


def read_metrics(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Reads a metrics.jsonl file into a list of records."""
    path = epath.Path(path)
    if path.is_dir():
        path = path / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
