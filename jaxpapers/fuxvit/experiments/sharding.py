"""F9: one sharded train step equals the single-device step (``fuxvit/sharded.py`` runs both steps).

On a CPU the 8 devices are emulated in a child process (``core.multidevice.run_with_devices``) that
sets the device count before JAX starts; with ``emulate_devices=False`` (full preset) the step runs
here on real devices. The rule table is the config's ``rules`` (``launch/rules/fuxvit.py``'s
``fsdp_tp_cp``, written out in ``configs/fuxvit/sharded_step.py``).
"""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ClaimSkipped
from jaxpapers.core.multidevice import run_with_devices
from jaxpapers.fuxvit import sharded


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """Relative differences of the loss, the gradients and the updated params (global norms)."""
    del key
    if cfg.emulate_devices:
        res = run_with_devices(
            "jaxpapers.fuxvit.sharded:compare_steps", num_devices=cfg.num_devices, kwargs={"preset": cfg.preset}
        )
    else:
        if jax.device_count() < cfg.num_devices:
            raise ClaimSkipped(f"needs {cfg.num_devices} devices; found {jax.device_count()}")
        res = sharded.compare_steps(cfg.preset)
    return Measurement(
        measured={
            "loss_rel": res["loss_rel"],
            "grad_rel": res["grad_rel"],
            "param_rel": res["param_rel"],
            "shard_map_regions": res["manual_regions"],  # > 0: the FSA layers ran the context-parallel path
        },
        details={
            "mesh": res["mesh"],
            "loss": res["loss"],
            "param_specs": res["param_specs"],
            "param_change": res["param_change"],
        },
    )
