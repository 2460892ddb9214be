"""One module per claim group: ``descriptor`` (T1, T2), ``forecasting`` (T8), ``study`` (T3–T7)."""

from jaxpapers.topoged.experiments import descriptor, forecasting, study

__all__ = ["descriptor", "forecasting", "study"]
