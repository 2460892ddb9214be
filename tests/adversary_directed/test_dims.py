"""Dimensions: PLdim tested on multiclass classes (binary cannot tell it from VC), LCdim ≠ PLdim, Natarajan."""

import itertools

import numpy as np
import pytest

from jaxpapers.adversary_directed import classes as C
from jaxpapers.adversary_directed import dims as D
from jaxpapers.core.errors import ConfigError


def _natarajan_naive(H):
    """All pairs of label vectors over the observed labels (exponential; tiny classes only)."""
    H = np.asarray(H)
    rows = {tuple(r) for r in H.tolist()}
    best = 0
    for k in range(1, H.shape[1] + 1):
        found = False
        for S in itertools.combinations(range(H.shape[1]), k):
            labs = [sorted(set(H[:, x].tolist())) for x in S]
            for f0 in itertools.product(*labs):
                for f1 in itertools.product(*labs):
                    if any(a == b for a, b in zip(f0, f1, strict=True)):
                        continue
                    mixes = {
                        tuple((f1 if bit else f0)[i] for i, bit in enumerate(bits))
                        for bits in itertools.product((0, 1), repeat=k)
                    }
                    proj = {tuple(r[x] for x in S) for r in rows}
                    if mixes <= proj:
                        found = True
        if not found:
            break
        best = k
    return best


def test_perfect_ldim_is_not_vc_on_multiclass():
    """Spec pitfall: PLdim must be tested on the prefix and adaptive-order classes."""
    for T in (3, 5):
        assert D.perfect_ldim(C.prefix_class(T)) == T and D.natarajan_dim(C.prefix_class(T)) == 1
    assert D.perfect_ldim(C.adaptive_order_class(6)) == 6


def test_level_constrained_differs_from_perfect():
    """Fixing the instance per level computes LCdim, not PLdim: 4 vs 6 at T = 6 (spec pitfall)."""
    H = C.adaptive_order_class(6)
    assert D.lc_ldim(H) == 4 and D.perfect_ldim(H) == 6 and D.ldim(H) == 6


def test_pldim_equals_vc_on_binary_classes():
    rng = np.random.default_rng(0)
    for _ in range(15):
        H = C.random_class(int(rng.integers(1000)), 5, int(rng.integers(2, 20)), 2)
        d = D.dimensions(H)
        assert d["pldim"] == d["vc"] == d["natarajan"] == d["lcdim"] and d["pldim"] <= d["ldim"]


def test_natarajan_rectangle_matches_naive_search():
    rng = np.random.default_rng(3)
    for _ in range(10):
        H = C.random_class(int(rng.integers(1000)), 3, int(rng.integers(2, 12)), 3)
        assert D.natarajan_dim(H) == _natarajan_naive(H)


def test_known_dimensions():
    assert D.dimensions(C.thresholds(7)) == {"ldim": 3, "natarajan": 1, "lcdim": 1, "pldim": 1, "vc": 1}
    assert D.vc_dim(C.intervals(6)) == 2 and D.vc_dim(C.k_sparse(6, 3)) == 3
    with pytest.raises(ConfigError, match="binary"):
        D.vc_dim(C.prefix_class(3))


def test_regime_rules():
    assert D.predict_regime({"ldim": [1, 1, 1, 1], "pldim": [1, 1, 1, 1]}) == "Theta(1)"
    assert D.predict_regime({"ldim": [1, 1, 2, 2, 2, 2, 3, 3], "pldim": [1] * 8}) == "Theta(log T)"
    assert D.predict_regime({"ldim": [1, 2, 3, 4], "pldim": [1, 2, 3, 4]}) == "Theta(T)"
    assert D.regime_of_values([1, 2, 3], [1, 2, 3]) == "Theta(T)"
