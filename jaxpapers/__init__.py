"""jaxpapers: reference JAX/Flax reimplementations of NeurIPS 2026 papers with checkable claims.

Importing this package imports no JAX and changes no ``jax.config``. Its one side effect is to add
the XLA:CPU workaround flags of :mod:`jaxpapers.xla_workarounds` to ``XLA_FLAGS`` (a deadlock in the
CPU runtime; import jaxpapers before running any JAX computation for it to take effect). Use the
subpackages (``jaxpapers.core``, ``jaxpapers.<paper>``) or the ``jaxpapers`` command line.
"""

from jaxpapers import xla_workarounds as _xla_workarounds

__version__ = "0.1.0"

_xla_workarounds.apply()
