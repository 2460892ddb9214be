"""XLA flags that work around known XLA:CPU runtime defects, set before JAX starts its backend.

``import jaxpapers`` calls :func:`apply`, which only edits the ``XLA_FLAGS`` environment variable
(read once, when the first JAX computation starts the backend): it imports nothing and changes no
``jax.config``. A flag the user already set in ``XLA_FLAGS`` is left as the user set it.

* ``--xla_cpu_enable_concurrency_optimized_scheduler=false``. With jaxlib 0.10 on the CPU, a jitted
  ``vmap`` whose program runs two LAPACK custom calls that XLA may schedule concurrently (for example
  two batched QR decompositions with the sign fix of a Haar rotation, :func:`jaxpapers.vlm_objectives.
  latent_model.haar_orthogonal` for ``Qx`` and ``Qy``) intermittently never completes: every worker
  thread idles and the caller waits forever on the result. On this 2-core machine 2 of 2 runs of ten
  calls hung without the flag, 0 of 5 with it (``tests/core/test_xla_flags.py``);
  ``--xla_cpu_multi_thread_eigen=false`` does not help. Only the CPU backend reads the flag.
"""

from __future__ import annotations

import os

CPU_FLAGS: tuple[str, ...] = ("--xla_cpu_enable_concurrency_optimized_scheduler=false",)


def with_flags(xla_flags: str, flags: tuple[str, ...] = CPU_FLAGS) -> str:
    """``xla_flags`` with each of ``flags`` appended unless a flag of the same name is already set."""
    present = {f.split("=", 1)[0] for f in xla_flags.split()}
    extra = [f for f in flags if f.split("=", 1)[0] not in present]
    return " ".join([*xla_flags.split(), *extra])


def apply() -> None:
    """Adds :data:`CPU_FLAGS` to ``os.environ["XLA_FLAGS"]`` (effective if no JAX backend has started)."""
    os.environ["XLA_FLAGS"] = with_flags(os.environ.get("XLA_FLAGS", ""))
