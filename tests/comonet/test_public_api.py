"""The public surface: what the notebook uses resolves from public modules; layering rules hold."""

from pathlib import Path

import jaxpapers.comonet as comonet

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "comonet"


def test_init_exports_resolve():
    for name in comonet.__all__:
        assert hasattr(comonet, name), name
    assert {"experiments", "figures"} <= set(comonet.__all__)
