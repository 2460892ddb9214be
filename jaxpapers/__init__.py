"""jaxpapers: reference JAX/Flax reimplementations of NeurIPS 2026 papers with checkable claims.

Importing this package has no side effects: no jax configuration, no heavy imports. Use the
subpackages (``jaxpapers.core``, ``jaxpapers.<paper>``) or the ``jaxpapers`` command line.
"""

__version__ = "0.1.0"
