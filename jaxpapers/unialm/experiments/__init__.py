"""One module per claim group: ``reconstruction`` (U1, U2), ``analysis`` (U3, U4) and ``lm`` (U6, U7, U9)."""

from jaxpapers.unialm.experiments import analysis, lm, reconstruction

__all__ = ["analysis", "lm", "reconstruction"]
