"""Closed forms (first-order conditions, spec values), exponent fits and the E9 trend CSV loader."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError
from jaxpapers.llm_economics import closed_form, experiments, model, trends
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.model import FirmParams


@pytest.mark.parametrize(
    "gamma, want",
    [(2.0, (0.7967, 0.7575, 1.5542)), (2.5, (0.92482, 0.87931, 1.80413)), (2.7, (0.98840, 0.93977, 1.92817))],
)
def test_exponents_match_spec(x64, gamma, want):
    e = closed_form.compute_bound_exponents(sl.BESIROGLU, gamma)
    np.testing.assert_allclose([e.e_N, e.e_D, e.e_C], want, atol=6e-5)
    assert float(e.e_spend) == pytest.approx(float(e.e_C) - 1, abs=1e-12)  # spend = C/E


def test_closed_form_calibration_numbers(x64):
    cf = closed_form.pareto_closed_form(FirmParams())
    assert float(cf.N) == pytest.approx(4.000e11, rel=1e-8)
    assert float(cf.D) == pytest.approx(6.7624e12, abs=0.00005e12)  # the spec prints 5 digits
    assert float(cf.C) == pytest.approx(1.6230e25, abs=0.00005e25)
    assert float(cf.spend) == pytest.approx(3.2459e7, abs=0.00005e7)
    assert float(cf.revenue) == pytest.approx(7.2825e7, abs=0.00005e7)
    assert float(cf.spend_over_revenue) == pytest.approx(0.445716, abs=1e-6)
    assert float(cf.spend / cf.revenue) == pytest.approx(float(cf.spend_over_revenue), rel=1e-12)


def test_closed_form_satisfies_first_order_conditions(x64):
    """∇J = 0 and ∇²J ≺ 0 at the closed-form optimum, by autodiff of the model (independent of the derivation)."""
    for gamma, E in ((2.0, 1e16), (2.7, 1e20)):
        p = FirmParams(gamma=gamma, E=E)
        cf = closed_form.pareto_closed_form(p)
        z = np.log([float(cf.N), float(cf.D)])
        j = float(model.scaled_profit(jnp.asarray(z), p))
        g = jax.jit(jax.grad(model.scaled_profit))(z, p)
        h = np.asarray(jax.jit(jax.hessian(model.scaled_profit))(z, p))
        assert float(jnp.max(jnp.abs(g))) < 1e-9 * j + 1e-12
        assert h[0, 0] < 0 and np.linalg.det(h) > 0


def test_closed_form_is_nan_without_interior_optimum(x64):
    cf = closed_form.pareto_closed_form(FirmParams(gamma=6.0))
    assert np.isnan(float(cf.C)) and np.isnan(float(cf.exponents.e_N))


def test_hard_cap_closed_forms(x64):
    s_d, s_e = closed_form.hard_cap_exponents(sl.BESIROGLU)
    assert float(s_d) == pytest.approx(2.05175, abs=5e-6) and s_e == -1.0
    d, e = 1e12, 1e19
    assert float(closed_form.tpp_spend(d, e)) == pytest.approx(0.3 * d**2 / e, rel=1e-12)
    n_opt = float(sl.n_opt_for_data(sl.BESIROGLU, d))
    assert float(closed_form.hard_cap_spend(d, e)) == pytest.approx(6 * n_opt * d / e, rel=1e-12)


def test_gamma_for_spend_exponent_inverts_the_exponent(x64):
    for gamma in (2.0, 2.5, 4.0):
        e = closed_form.compute_bound_exponents(sl.BESIROGLU, gamma).e_spend
        assert float(closed_form.gamma_for_spend_exponent(e)) == pytest.approx(gamma, rel=1e-12)


def _write_csv(path, years, e_growth, cost_growth, header="year,flop_per_dollar,train_cost_usd"):
    lines = [header] + [
        f"{y},{1e17 * e_growth ** (y - 2015):.10e},{1e6 * cost_growth ** (y - 2015):.10e}" for y in years
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_trend_csv_with_known_exponent(tmp_path):
    """Generated data: FLOP/$ ×1.4/yr and cost ×2.4/yr, so e_$ = ln 2.4 / ln 1.4 exactly."""
    path = _write_csv(tmp_path / "t.csv", range(2015, 2025), 1.4, 2.4)
    got = trends.fit_trend(trends.load_trend_csv(path))
    assert got.spend_exponent == pytest.approx(math.log(2.4) / math.log(1.4), rel=1e-9)
    assert got.flop_per_dollar_growth == pytest.approx(1.4, rel=1e-9)
    assert got.cost_growth == pytest.approx(2.4, rel=1e-9)
    assert got.n == 10


def test_trend_csv_errors(tmp_path):
    with pytest.raises(ConfigError, match="trend_csv='.*missing.csv' does not exist; give a CSV with columns year"):
        trends.load_trend_csv(tmp_path / "missing.csv")
    bad = _write_csv(tmp_path / "b.csv", range(2015, 2020), 1.4, 2.4, header="year,flops,train_cost_usd")
    with pytest.raises(ConfigError, match="lacks column\\(s\\) flop_per_dollar; has year, flops, train_cost_usd"):
        trends.load_trend_csv(bad)
    neg = tmp_path / "n.csv"
    neg.write_text("year,flop_per_dollar,train_cost_usd\n2020,1e17,1e6\n2021,-1,1e6\n2022,1e18,1e7\n")
    with pytest.raises(ConfigError, match="line 3: flop_per_dollar=-1.0 is not allowed; expected a positive"):
        trends.load_trend_csv(neg)
    txt = tmp_path / "x.csv"
    txt.write_text("year,flop_per_dollar,train_cost_usd\n2020,abc,1e6\n")
    with pytest.raises(ConfigError, match="line 2: flop_per_dollar='abc' is not a number"):
        trends.load_trend_csv(txt)
    few = _write_csv(tmp_path / "f.csv", range(2015, 2017), 1.4, 2.4)
    with pytest.raises(ConfigError, match="has 2 data rows; need at least 3"):
        trends.load_trend_csv(few)


def test_e9_experiment_reads_the_csv_and_the_published_rates(tmp_path, x64):
    cfg = config.load("llm_economics/trends")
    m = experiments.trends.measure(cfg, None)
    assert m.measured["e_spend_model"] == pytest.approx(0.80413, abs=1e-5)
    # by hand: λ = αβ/(α+β), e_$ = γλ/(1−γλ), observed e = ln 2.4 / ln 2^(1/T), γ needed = e/((1+e)·λ)
    a, b = 0.3478, 0.3658
    lam = a * b / (a + b)
    assert m.measured["e_spend_model"] == pytest.approx(2.5 * lam / (1 - 2.5 * lam), rel=1e-12)
    e_obs = [math.log(2.4) / (math.log(2) / t) for t in (2.0, 2.5)]
    np.testing.assert_allclose(m.measured["e_spend_observed"], e_obs, rtol=1e-12)
    np.testing.assert_allclose(m.measured["gamma_needed"], [e / ((1 + e) * lam) for e in e_obs], rtol=1e-12)
    np.testing.assert_allclose(m.measured["e_spend_observed"], [2.526, 3.158], atol=1e-3)
    np.testing.assert_allclose(m.measured["gamma_needed"], [4.018, 4.260], atol=1e-3)
    path = _write_csv(tmp_path / "t.csv", range(2015, 2025), 1.4, 2.4)
    cfg = config.load("llm_economics/trends", overrides={"trend_csv": str(path)})
    m = experiments.trends.measure(cfg, None)
    assert m.measured["e_spend_observed"] == pytest.approx(math.log(2.4) / math.log(1.4), rel=1e-9)
    assert trends.spend_exponent_from_growth(2.4, 2.0) == pytest.approx(math.log(2.4) / (0.5 * math.log(2)))
