"""SEAL's experiments, one module per claim group: ``descent`` (S1), ``manifold`` (S2, S3, S7),
``torus`` (S4), ``transport`` (S5, S6), ``grid`` (S8). Each ``measure*(cfg, key) -> Measurement`` measures;
``claims.py`` judges."""

from jaxpapers.seal.experiments import descent, grid, manifold, torus, transport

__all__ = ["descent", "grid", "manifold", "torus", "transport"]
