"""Shared machinery used by every paper: configs, claims, trainer, data, layers, simulations, plots.

Submodules are imported explicitly (``from jaxpapers.core import claims``); this file imports nothing
heavy so that ``jaxpapers list`` stays fast.
"""
