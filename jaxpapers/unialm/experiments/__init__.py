"""One module per claim group: ``reconstruction`` (U1, U2) and ``analysis`` (U3, U4)."""

from jaxpapers.unialm.experiments import analysis, reconstruction

__all__ = ["analysis", "reconstruction"]
