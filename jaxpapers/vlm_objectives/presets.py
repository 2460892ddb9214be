"""Planted-model presets of the spec (our choice, validated in the spec's NumPy/JAX prototype).

``d = 16, k = 3, kappa = [2.5, 2, 1.5], gxs = 2, gys = 0.25``; **clean**: ``gxn = gyn = 1, nu = 0``;
**contaminated**: the image heavily contaminated (``gxn = 25``), the text clean (``gyn = 0.25``) and
``nu = 0.9`` on k nuisance pairs. Predicted: ``rho = [0.853, 0.792, 0.690]``,
``tau = [2.176, 1.633, 1.091]``, ``xi = 0.5 nu``, ``tau_rev = [2.451, 1.940, 1.423]``, ``xi_rev = 5 nu``.

Plain dicts (no jax import) so that config files can build their ConfigDicts from them.
"""

from __future__ import annotations

from typing import Any

VARIANTS: tuple[str, ...] = ("clean", "contaminated")

_BASE = dict(k=3, d_x=16, d_y=16, kappa=(2.5, 2.0, 1.5), gxs=2.0, gys=0.25)
PLANTED: dict[str, dict[str, Any]] = {
    "clean": {**_BASE, "gxn": 1.0, "gyn": 1.0, "nu": (0.0,)},
    "contaminated": {**_BASE, "gxn": 25.0, "gyn": 0.25, "nu": (0.9, 0.9, 0.9)},
}


def planted_full(variant: str, d: int = 256, k: int = 16) -> dict[str, Any]:
    """The full-preset analogue at ``d``, ``k``: kappa spread over [2.5, 1.5] and, contaminated, nu = 0.9
    on k pairs (so the whole CCA top-k is nuisance, with the same 0.9 vs 0.853 gap as the quick preset)."""
    kappa = tuple(2.5 - i * (1.0 / max(k - 1, 1)) for i in range(k))
    out = {**PLANTED[variant], "k": k, "d_x": d, "d_y": d, "kappa": kappa}
    if variant == "contaminated":
        out["nu"] = (0.9,) * k
    return out
