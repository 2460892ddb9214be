"""Loss laws, frontier and data-constrained effective sizes against the spec's numbers and brute force."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.llm_economics import scaling_laws as sl


def test_constant_sets_are_the_published_ones():
    assert (sl.BESIROGLU.E0, sl.BESIROGLU.A, sl.BESIROGLU.B) == (1.8172, 482.01, 2085.43)
    assert (sl.BESIROGLU.alpha, sl.BESIROGLU.beta) == (0.3478, 0.3658)
    assert (sl.HOFFMANN_ROUNDED.alpha, sl.HOFFMANN_ROUNDED.beta) == (0.34, 0.28)
    assert (sl.HOFFMANN_UNROUNDED.alpha, sl.HOFFMANN_UNROUNDED.beta) == (0.3392, 0.2849)
    for law in (sl.HOFFMANN_ROUNDED, sl.HOFFMANN_UNROUNDED):
        assert (law.E0, law.A, law.B) == (1.69, 406.4, 410.7)
    assert set(sl.LAWS) == {"besiroglu", "hoffmann_rounded", "hoffmann_unrounded"}


def test_loss_sanity_values(x64):
    # Spec: L(70e9, 1.4e12) = 1.93665 (Hoffmann rounded), 1.97388 (Besiroglu).
    assert float(sl.loss(sl.HOFFMANN_ROUNDED, 70e9, 1.4e12)) == pytest.approx(1.93665, abs=1e-5)
    assert float(sl.loss(sl.BESIROGLU, 70e9, 1.4e12)) == pytest.approx(1.97388, abs=1e-5)
    # Independent: the formula in plain Python.
    law = sl.BESIROGLU
    assert float(sl.loss(law, 1e9, 2e10)) == pytest.approx(law.E0 + law.A / 1e9**law.alpha + law.B / 2e10**law.beta)


def test_frontier_constants_match_spec(x64):
    fc = sl.frontier_constants(sl.BESIROGLU)
    assert float(fc.a) == pytest.approx(0.512612, abs=1e-6)
    assert float(fc.lam) == pytest.approx(0.178286, abs=1e-6)
    assert float(fc.G) == pytest.approx(0.119630, abs=1e-6)
    assert float(fc.K) == pytest.approx(2708.50, abs=0.01)
    fc = sl.frontier_constants(sl.HOFFMANN_ROUNDED)
    assert float(fc.a) == pytest.approx(0.451613, abs=1e-6)
    assert float(fc.lam) == pytest.approx(0.153548, abs=1e-6)


def test_pitfall_rounded_constants_bias_the_allocation(x64):
    """Hoffmann et al. report a = 0.46 for Approach 3: only the unrounded exponents give it (Besiroglu et al.).

    Mixing sets (rounded exponents with another set's A, B) moves the allocation again, so each set ships whole.
    """
    a_rounded = float(sl.frontier_constants(sl.HOFFMANN_ROUNDED).a)
    a_unrounded = float(sl.frontier_constants(sl.HOFFMANN_UNROUNDED).a)
    assert round(a_unrounded, 2) == 0.46
    assert round(a_rounded, 2) == 0.45
    n_r, _, _ = sl.frontier(sl.HOFFMANN_ROUNDED, 1e25)
    n_u, _, _ = sl.frontier(sl.HOFFMANN_UNROUNDED, 1e25)
    assert abs(float(n_r / n_u) - 1) > 0.1  # rounding alone shifts N_opt at 1e25 FLOPs by more than 10%
    mixed = sl.HOFFMANN_UNROUNDED.replace(A=sl.BESIROGLU.A, B=sl.BESIROGLU.B)
    n_m, _, _ = sl.frontier(mixed, 1e25)
    assert abs(float(n_m / n_u) - 1) > 0.1


def test_frontier_matches_brute_force_isoflop(x64):
    """N_opt(C) from the closed form vs the minimum of ℓ over a dense grid of N at fixed C (NumPy)."""
    law = sl.BESIROGLU
    for c in (1e21, 1e24):
        n_cf, d_cf, ell_cf = (float(x) for x in sl.frontier(law, c))
        n = np.exp(np.linspace(np.log(n_cf) - 1, np.log(n_cf) + 1, 200001))
        ell = law.A * n**-law.alpha + law.B * (c / (6 * n)) ** -law.beta
        i = np.argmin(ell)
        assert n[i] == pytest.approx(n_cf, rel=1e-4)
        assert ell[i] == pytest.approx(ell_cf, rel=1e-9)
        assert 6 * n_cf * d_cf == pytest.approx(c, rel=1e-12)
        # ℓ*(C) = K·C^{-λ}
        fc = sl.frontier_constants(law)
        assert ell_cf == pytest.approx(float(fc.K) * c ** -float(fc.lam), rel=1e-12)


def test_n_opt_for_data_inverts_the_frontier(x64):
    law = sl.BESIROGLU
    c = jnp.logspace(20, 26, 7)
    n, d, _ = sl.frontier(law, c)
    np.testing.assert_allclose(np.asarray(sl.n_opt_for_data(law, d)), np.asarray(n), rtol=1e-12)
    assert 1e12 / float(sl.n_opt_for_data(law, 1e12)) == pytest.approx(18.7, abs=0.05)  # spec: ≈ D/18.7


def test_muennighoff_limits(x64):
    law = sl.BESIROGLU
    u = 1e12
    n_cap = float(sl.n_opt_for_data(law, u))
    # One epoch and N below the cap: nothing is discounted.
    n_eff, d_eff = sl.muennighoff_effective(law, 0.5 * n_cap, 1.0, u)
    assert float(n_eff) == pytest.approx(0.5 * n_cap, rel=1e-12)
    assert float(d_eff) == pytest.approx(u, rel=1e-12)
    # Many epochs / huge N saturate at U·(1 + R_D*) and U_N·(1 + R_N*).
    n_eff, d_eff = sl.muennighoff_effective(law, 1e6 * n_cap, 1e6, u)
    assert float(d_eff) == pytest.approx(u * (1 + sl.MUENNIGHOFF_R_D_STAR), rel=1e-9)
    assert float(n_eff) == pytest.approx(n_cap * (1 + sl.MUENNIGHOFF_R_N_STAR), rel=1e-9)
    # A middle value against the formula written out.
    epochs, n = 5.0, 3 * n_cap
    n_eff, d_eff = sl.muennighoff_effective(law, n, epochs, u)
    r_d, r_n = epochs - 1, n / n_cap - 1
    assert float(d_eff) == pytest.approx(u + u * 15.4 * (1 - math.exp(-r_d / 15.4)), rel=1e-12)
    assert float(n_eff) == pytest.approx(n_cap + n_cap * 5.3 * (1 - math.exp(-r_n / 5.3)), rel=1e-12)


def test_muennighoff_is_c1_at_the_parameter_cap(x64):
    """N′ is continuous with a continuous slope where N crosses N_opt(U) (the solver relies on it)."""
    law = sl.BESIROGLU
    log_u = jnp.log(1e12)
    cap = sl.log_n_opt_for_data(law, log_u)
    f = lambda z: sl.muennighoff_effective_log(law, z, 0.0, log_u)[0]  # noqa: E731
    left, right = jax.grad(f)(cap - 1e-7), jax.grad(f)(cap + 1e-7)
    assert float(left) == pytest.approx(1.0, abs=1e-6)
    assert float(right) == pytest.approx(1.0, abs=1e-6)


def test_bad_law_inputs():
    with pytest.raises(ConfigError, match="law='chinchilla' is not allowed; choose 'besiroglu'"):
        sl.get_law("chinchilla")
    with pytest.raises(ConfigError, match=r"law.alpha=-0.3 is out of range"):
        sl.validate_law(sl.BESIROGLU.replace(alpha=-0.3))
    with pytest.raises(ConfigError, match=r"law.B\[1\]=nan is out of range"):
        sl.validate_law(sl.BESIROGLU.replace(B=np.array([1.0, np.nan])))
