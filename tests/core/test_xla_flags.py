"""The XLA:CPU deadlock workaround: flags merged into XLA_FLAGS, and the program that hung completes."""

import os
import subprocess
import sys

from jaxpapers.core import xla_flags

# Ten calls of a vmapped program with two concurrent batched QRs (Haar rotations with the sign fix):
# without the workaround this hung in 2 of 2 runs on a 2-core machine (jaxlib 0.10).
_TWO_QR = r"""
import jaxpapers  # applies the workaround before the backend starts
import jax, jax.numpy as jnp, numpy as np
jax.config.update("jax_enable_x64", True)

def haar(key, d):
    q, r = jnp.linalg.qr(jax.random.normal(key, (d, d), jnp.float64))
    return q * jnp.sign(jnp.diagonal(r))[None, :]

def pair(key):
    kx, ky = jax.random.split(key)
    return haar(kx, 12), haar(ky, 10)

f = jax.jit(jax.vmap(pair))
for i in range(10):
    qx, qy = jax.tree.map(np.asarray, f(jax.random.split(jax.random.key(i), 550)))
    assert np.allclose(qx @ qx.transpose(0, 2, 1), np.eye(12), atol=1e-12)
print("done")
"""


def test_flags_are_appended_once_and_user_settings_win():
    flag = xla_flags.CPU_FLAGS[0]
    name = flag.split("=")[0]
    assert xla_flags.with_flags("") == flag
    assert xla_flags.with_flags("--a=1") == f"--a=1 {flag}"
    assert xla_flags.with_flags(xla_flags.with_flags("--a=1")) == f"--a=1 {flag}"
    assert xla_flags.with_flags(f"{name}=true") == f"{name}=true"  # the user's choice stays


def test_import_sets_the_flag():
    assert xla_flags.CPU_FLAGS[0] in os.environ["XLA_FLAGS"].split()


def test_two_concurrent_qrs_complete():
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, "-c", _TWO_QR], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("done")
