"""Experiment presets, one file per experiment: ``configs/<paper>/<experiment>.py``.

Installed as the package ``jaxpapers.configs`` so that the loader finds them from any directory.
Each file exposes ``get_config(arg=None) -> ml_collections.ConfigDict``; see ``jaxpapers.core.config``.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
