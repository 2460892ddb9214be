"""jaxpapers: reference JAX/Flax reimplementations of NeurIPS 2026 papers with checkable claims.

Importing this package imports no JAX and changes no ``jax.config``. Its one side effect is to add
the XLA:CPU workaround flags of :mod:`jaxpapers.core.xla_flags` to ``XLA_FLAGS`` (a deadlock in the
CPU runtime; import jaxpapers before running any JAX computation for it to take effect). Use the
subpackages (``jaxpapers.core``, ``jaxpapers.<paper>``) or the ``jaxpapers`` command line.

``launch/`` and ``configs/`` live at the top of the repository (the project layout) and are the
subpackages ``jaxpapers.launch`` and ``jaxpapers.configs``. In a source checkout they are found next
to this package (the checkout's top folder is on this package's ``__path__``), so an editable
install, ``PYTHONPATH=.`` and another checkout installed elsewhere all resolve them to *this*
checkout; an installed wheel carries them as ordinary subpackages (``setup.py``).
"""

from pathlib import Path as _Path

from jaxpapers.core import xla_flags as _xla_flags

__version__ = "0.1.0"

_xla_flags.apply()

_checkout = _Path(__file__).resolve().parent.parent
if (_checkout / "launch" / "__init__.py").is_file() and (_checkout / "configs" / "__init__.py").is_file():
    __path__.append(str(_checkout))  # noqa: F821 - the package's own module search path
