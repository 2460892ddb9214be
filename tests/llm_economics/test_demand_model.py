"""Adoption laws, the firm's profit and its pytree against NumPy, plus input validation."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.llm_economics import closed_form, demand, model, reference, solve
from jaxpapers.llm_economics import config as settings
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.model import FirmParams


def test_shares_against_formulas(x64):
    ell = np.array([1e-4, 1e-3, 0.01, 0.1, 1.0, 20.0])
    g, l0, lmax = 2.5, 1e-3, 10.0
    np.testing.assert_allclose(demand.pareto_share(ell, g, l0), np.minimum(1, (ell / l0) ** -g), rtol=1e-12)
    np.testing.assert_allclose(demand.loglogistic_share(ell, g, l0), 1 / (1 + (ell / l0) ** g), rtol=1e-12)
    want = np.clip(np.log(lmax / ell) / np.log(lmax / l0), 0, 1)
    np.testing.assert_allclose(demand.loguniform_share(ell, l0, lmax), want, rtol=1e-12, atol=1e-15)


def test_revenue_is_r0_ell_power_when_unsaturated(x64):
    p = FirmParams()
    ell = jnp.array([0.005, 0.08, 2.0])
    np.testing.assert_allclose(demand.revenue(ell, p), p.R0 * np.asarray(ell) ** -p.gamma, rtol=1e-12)
    # Log-logistic approaches it for ℓ ≫ ℓ0; log-uniform is bounded by p·M = R0·ℓ0^{-γ}.
    ll = np.asarray(demand.revenue(ell, p.replace(demand="loglogistic")))
    x = np.asarray(ell) / p.ell0
    np.testing.assert_allclose(ll, p.R0 * p.ell0**-p.gamma / (1 + x**p.gamma), rtol=1e-12)
    np.testing.assert_allclose(ll[1:], p.R0 * np.asarray(ell[1:]) ** -p.gamma, rtol=1e-4)
    lu = demand.revenue(jnp.array([1e-6, 100.0]), p.replace(demand="loguniform"))
    np.testing.assert_allclose(lu, [p.R0 * p.ell0**-p.gamma, 0.0], rtol=1e-12)


def test_pitfall_saturation_never_binds_in_presets(x64):
    """The ℓ ≤ ℓ0 kink stays out of every preset: the smallest ℓ* over the full grid is 0.0052 ≫ ℓ0 = 1e-3."""
    ells = []
    for law in ("besiroglu", "hoffmann_rounded"):
        for gamma in (2.0, 2.5, 2.7):
            for E in (1e15, 1e21):
                p = FirmParams.from_config(settings.FirmConfig(law=law, gamma=gamma, E=E))
                cf = closed_form.pareto_closed_form(p)
                ells.append(float(sl.reducible_loss(p.law, cf.N, cf.D)))
    assert min(ells) == pytest.approx(0.0052, abs=1e-4)
    assert min(ells) > 5 * settings.FirmConfig().ell0
    # ℓ0 = 0.02 would bind at E = 1e21 (spec): the Pareto closed form then lies inside the kinked region.
    p = FirmParams(gamma=2.7, E=1e21)
    cf = closed_form.pareto_closed_form(p)
    assert float(sl.reducible_loss(p.law, cf.N, cf.D)) < 0.02


def test_profit_against_numpy(x64):
    for rho in (0.0, 2e5):
        p = FirmParams(rho=rho, E=3e18)
        f = reference.NpFirm.from_params(p)
        for z in ([24.0, 28.0], [27.5, 30.1]):
            j = float(model.scaled_profit(jnp.array(z), p))
            assert j == pytest.approx(reference.scaled_profit(np.array(z), f), rel=1e-12)
            n, d = math.exp(z[0]), math.exp(z[1])
            ell = p.law.A * n**-p.law.alpha + p.law.B * d**-p.law.beta
            want = p.R0 * ell**-p.gamma * (1 - rho * n / p.E) - 6 * n * d / p.E
            assert float(model.profit(jnp.array(z), p)) == pytest.approx(want, rel=1e-12)


def test_autodiff_matches_hand_derived_derivatives(x64):
    p = FirmParams(rho=2e5, E=2e18)
    f = reference.NpFirm.from_params(p)
    z = jnp.array([26.0, 29.5])
    _, g, h = reference.grad_hess(np.asarray(z), f)
    np.testing.assert_allclose(jax.jit(jax.grad(model.scaled_profit))(z, p), g, rtol=1e-10)
    np.testing.assert_allclose(jax.jit(jax.hessian(model.scaled_profit))(z, p), h, rtol=1e-10)


def test_firm_params_is_a_pytree_with_static_choices(x64):
    p = FirmParams(demand="loglogistic", cap_kind="soft")
    leaves, treedef = jax.tree.flatten(p)
    assert len(leaves) == 15  # 10 firm numbers + 5 law constants; demand, cap_kind and law.name are static
    assert jax.tree.unflatten(treedef, leaves).demand == "loglogistic"
    batch, shape = model.param_grid(FirmParams(), {"gamma": [2.0, 2.5], "law.A": [400.0, 480.0, 500.0]})
    assert shape == (2, 3) and batch.gamma.shape == (6,)
    np.testing.assert_allclose(batch.gamma, [2.0, 2.0, 2.0, 2.5, 2.5, 2.5])  # first axis slowest
    np.testing.assert_allclose(batch.law.A, [400.0, 480.0, 500.0] * 2)
    # vmap over the numeric leaves evaluates every firm; a plain loop agrees.
    z = jnp.array([26.0, 29.0])
    got = jax.jit(jax.vmap(model.scaled_profit, in_axes=(None, 0)))(z, batch)
    want = [model.scaled_profit(z, jax.tree.map(lambda x, i=i: x[i], batch)) for i in range(6)]
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_concat_params_mixes_laws(x64):
    a = model.param_grid(FirmParams(), {"E": [1e17, 1e18]})[0]
    b = FirmParams(law=sl.HOFFMANN_ROUNDED)
    both = model.concat_params([a, b])
    assert both.law.name == "mixed" and both.E.shape == (3,)
    np.testing.assert_allclose(both.law.alpha, [0.3478, 0.3478, 0.34])


def test_pitfall_gamma_lambda_at_least_one_raises_on_concrete_params(x64):
    lam = float(sl.frontier_constants(sl.BESIROGLU).lam)
    p = FirmParams(gamma=1.0 / lam + 0.1)
    with pytest.raises(ConfigError, match=r"gamma=.* gives gamma\*lambda = .* >= 1.*allowed gamma < 1/lambda = 5.6089"):
        model.check_bounded(p)
    batch = model.param_grid(FirmParams(), {"gamma": [2.5, 6.0]})[0]
    with pytest.raises(ConfigError, match=r"gamma\[1\]=6.0"):
        model.check_bounded(batch)
    # An inference cost or a saturating demand law keeps the problem bounded.
    model.check_bounded(p.replace(rho=2e5))
    model.check_bounded(p.replace(demand="loglogistic"))
    assert not bool(model.is_bounded(p)) and bool(model.is_bounded(p.replace(rho=1.0)))


def test_bad_inputs_name_argument_value_and_range(x64):
    with pytest.raises(ConfigError, match="demand='logit' is not allowed; choose 'pareto', 'loglogistic' or"):
        FirmParams(demand="logit")
    with pytest.raises(ConfigError, match="cap_kind='none' is not allowed"):
        FirmParams(cap_kind="none")
    with pytest.raises(ConfigError, match=r"R0=-1.0 is out of range; allowed \(0.0, inf\)"):
        model.validate_params(FirmParams(R0=-1.0))
    with pytest.raises(ConfigError, match=r"rho=-5.0 is out of range"):
        model.validate_params(FirmParams(rho=-5.0))
    with pytest.raises(ConfigError, match=r"E\[2\]=0.0 is out of range"):
        model.validate_params(model.param_grid(FirmParams(), {"E": [1e17, 1e18, 0.0]})[0])
    with pytest.raises(ConfigError, match="ell_max=.* must exceed ell0"):
        model.validate_params(FirmParams(demand="loguniform", ell_max=1e-4))
    with pytest.raises(ConfigError, match="param_grid axis='law.K' is not allowed"):
        model.param_grid(FirmParams(), {"law.K": [1.0]})
    with pytest.raises(ConfigError, match="firm.law='gpt' is not allowed"):
        settings.FirmConfig(law="gpt")
    with pytest.raises(ConfigError, match=r"firm.gamma=0.0 is out of range"):
        settings.FirmConfig(gamma=0.0)
    with pytest.raises(ConfigError, match=r"solver.newton_iters=-1 is out of range"):
        settings.SolverOptions(newton_iters=-1)


def test_firm_config_builds_params(x64):
    p = FirmParams.from_config(settings.FirmConfig(law="hoffmann_rounded", rho=2e5), E=1e19)
    assert p.law is sl.HOFFMANN_ROUNDED and p.rho == 2e5 and p.E == 1e19
    assert settings.LAW_NAMES == tuple(sl.LAWS)


def test_fast_row_check_agrees_with_named_validation(x64):
    """The sweeps' one-shot range test (``rows_in_range``) accepts exactly what ``validate_params`` accepts.

    Random valid batches, then single adversarial entries (0, -0.0, negative, tiny, NaN, ±inf) in every
    field, including the two fields that may be 0 (law.E0, rho).
    """
    rng = np.random.default_rng(0)
    base, _ = model.param_grid(FirmParams(), {"E": np.logspace(17, 19, 5), "rho": [0.0, 2e5]})
    leaves, treedef = jax.tree.flatten(base)
    rows = np.stack([np.asarray(x, np.float64) for x in leaves], axis=1) * rng.uniform(0.5, 2.0, (10, len(leaves)))
    for value in (None, 0.0, -0.0, -1e-300, 5e-324, np.nan, np.inf, -np.inf):
        for column in range(len(leaves)) if value is not None else [0]:
            bad = rows.copy()
            if value is not None:
                bad[int(rng.integers(10)), column] = value
            params = jax.tree.unflatten(treedef, list(bad.T))
            try:
                model.validate_params(params)
                valid = True
            except ConfigError:
                valid = False
            assert model.rows_in_range(bad, treedef, "pareto") == valid, (value, column)
            if not valid:  # the sweep reports the named error, not a NaN solution
                with pytest.raises(ConfigError, match=r"\[\d\]=.* is out of range"):
                    solve.sweep_compute_bound(params)
