"""Run a function in a fresh Python process that sees N emulated CPU devices.

The device count is fixed when JAX starts, so a claim or test that needs 8 devices while the
current process has 1 runs its body in a subprocess::

    result = run_with_devices("jaxpapers.fuxvit.sharded:compare_steps", num_devices=8, kwargs={"preset": "tiny"})

The target is ``"module:function"``; it receives ``**kwargs`` (JSON-serialisable) and returns a
JSON-serialisable value (numbers, lists, dicts), which is returned here. Errors in the child are
re-raised here as ``RuntimeError`` with the child's last traceback line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

_CHILD = r"""
import json, os, sys, importlib
import jax
jax.config.update("jax_num_cpu_devices", {num_devices})
target, kwargs = sys.argv[1], json.loads(sys.argv[2])
module, _, name = target.partition(":")
result = getattr(importlib.import_module(module), name)(**kwargs)
sys.stdout.write("\n__RESULT__" + json.dumps(result))
"""


def run_with_devices(
    target: str,
    *,
    num_devices: int = 8,
    kwargs: dict[str, Any] | None = None,
    timeout_s: float = 600,
    x64: bool = False,
) -> Any:
    """Calls ``target(**kwargs)`` in a child process with ``num_devices`` CPU devices."""
    env = dict(os.environ)
    flags = [f for f in env.get("XLA_FLAGS", "").split() if not f.startswith("--xla_force_host_platform_device_count")]
    env["XLA_FLAGS"] = " ".join(flags + [f"--xla_force_host_platform_device_count={num_devices}"])
    env["JAX_PLATFORMS"] = "cpu"
    if x64:
        env["JAX_ENABLE_X64"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD.format(num_devices=num_devices), target, json.dumps(kwargs or {})],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout_s,
    )
    if proc.returncode != 0 or "__RESULT__" not in proc.stdout:
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        raise RuntimeError(
            f"{target} failed in a {num_devices}-device subprocess: {lines[-1] if lines else 'no output'}"
        )
    return json.loads(proc.stdout.rsplit("__RESULT__", 1)[1])
