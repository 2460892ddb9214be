"""Solvers against closed forms, the NumPy/SciPy reference, brute force and a plain loop of single solves."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import sim
from jaxpapers.core.errors import ConfigError, PrecisionError
from jaxpapers.llm_economics import closed_form, model, reference, solve
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.model import FirmParams

TINY_E = np.array([1e17, 1e18, 1e19])


def test_calibration_point_matches_closed_form(x64):
    sol = solve.solve_compute_bound(FirmParams())
    cf = closed_form.pareto_closed_form(FirmParams())
    for k in ("N", "D", "C", "spend", "revenue"):
        assert float(getattr(sol, k)) == pytest.approx(float(getattr(cf, k)), rel=1e-9), k
    assert float(sol.N) == pytest.approx(4.000e11, rel=1e-6)  # the spec's calibration
    assert float(sol.spend / sol.revenue) == pytest.approx(0.445716, abs=1e-6)
    assert bool(sol.hessian_nd) and not bool(sol.used_fallback)


def test_sweep_equals_plain_loop_of_single_solves(x64):
    """The jitted, vmapped sweep vs one call per firm (tiny size), with and without inference cost."""
    batch, _ = model.param_grid(FirmParams(), {"rho": [0.0, 2e5], "E": TINY_E})
    swept = solve.sweep_compute_bound(batch)
    for i in range(6):
        one = solve.solve_compute_bound(jax.tree.map(lambda x, i=i: x[i], batch))
        for k in ("N", "D", "spend", "profit"):
            assert float(getattr(swept, k)[i]) == pytest.approx(float(getattr(one, k)), rel=1e-10)


def test_sweep_matches_numpy_reference_with_analytic_derivatives(x64):
    batch, _ = model.param_grid(FirmParams(), {"rho": [0.0, 2e5], "gamma": [2.0, 2.7], "E": TINY_E})
    swept = jax.tree.map(np.asarray, solve.sweep_compute_bound(batch))
    firms = [reference.NpFirm.from_params(jax.tree.map(lambda x, i=i: x[i], batch)) for i in range(12)]
    ref = reference.sweep_compute_bound(firms)
    for k in ("N", "D", "spend"):
        np.testing.assert_allclose(getattr(swept, k), ref[k], rtol=1e-8)
    # SciPy's trust-region Newton lands on the same optimum.
    scipy_ref = reference.solve_compute_bound_scipy(firms[5])
    assert swept.N[5] == pytest.approx(scipy_ref["N"], rel=1e-7)


def test_jax_vmap_of_solve_matches_sweep(x64):
    batch, _ = model.param_grid(FirmParams(), {"E": TINY_E})
    via_vmap = jax.vmap(solve.solve_compute_bound)(batch)
    swept = solve.sweep_compute_bound(batch)
    np.testing.assert_allclose(via_vmap.N, swept.N, rtol=1e-10)


def test_chunked_sweep_equals_unchunked(x64):
    batch, _ = model.param_grid(FirmParams(), {"E": np.logspace(17, 19, 10)})
    whole = solve.sweep_compute_bound(batch)  # default chunk_size (4096): one chunk
    chunked = solve.sweep_compute_bound(batch, solve.SolverOptions(chunk_size=4))
    np.testing.assert_allclose(chunked.N, whole.N, rtol=1e-12)
    assert sim.bucket_size(10, 4) == 12 and sim.bucket_size(1, None) == 32 and sim.bucket_size(33, 4096) == 64


def test_small_sweeps_share_one_compilation(x64):
    """Batches of 1, 5 and 21 firms are padded to 32 rows: at most one new compiled program for all of them."""
    before = solve._compute_bound_jit._cache_size()
    for n in (1, 5, 21):
        solve.sweep_compute_bound(model.param_grid(FirmParams(), {"E": np.logspace(17, 19, n)})[0])
    assert solve._compute_bound_jit._cache_size() - before <= 1


def test_pitfall_unbounded_rows_raise_or_are_nan(x64):
    lam = float(sl.frontier_constants(sl.BESIROGLU).lam)
    batch, _ = model.param_grid(FirmParams(), {"gamma": [2.5, 1.2 / lam, 2.0]})  # 3 rows: shares a compile
    with pytest.raises(ConfigError, match=r"gamma\[1\]=.*gamma\*lambda = 1.2 >= 1"):
        solve.solve_compute_bound(batch)  # concrete parameters: raise before jit
    sol = solve.sweep_compute_bound(batch)  # a sweep: NaN rows, the others intact
    assert np.isnan(np.asarray(sol.N)[1]) and np.isnan(np.asarray(sol.spend)[1])
    assert float(sol.N[0]) == pytest.approx(4e11, rel=1e-6)
    sol = jax.vmap(solve.solve_compute_bound)(batch)  # traced parameters cannot raise: NaN rows
    assert np.isnan(np.asarray(sol.N)[1]) and np.all(np.isfinite(np.asarray(sol.N)[::2]))


def test_newton_converges_on_a_concave_function(x64):
    fun = lambda z, a: -jnp.sum((z - a) ** 2) - 0.1 * jnp.sum((z - a) ** 4)  # noqa: E731
    res = jax.jit(lambda z, a: solve.damped_newton(fun, z, a))(jnp.array([10.0, -7.0]), jnp.array([1.0, 2.0]))
    np.testing.assert_allclose(res.z, [1.0, 2.0], atol=1e-12)
    assert bool(res.hessian_nd) and float(res.grad_norm) < 1e-12


def test_adam_fallback_when_start_hessian_is_not_negative_definite(x64):
    """f(z) = −(z² − 1)² has H = 4 − 12z² > 0 at z = 0.1: Adam moves off, Newton polishes to the maximum at 1."""
    fun = lambda z, a: -((z[0] ** 2 - a) ** 2)  # noqa: E731
    z0 = jnp.array([[0.1], [3.0]])
    res, used = jax.jit(lambda z, a: solve.maximize_batch(fun, z, a))(z0, jnp.array([1.0, 1.0]))
    np.testing.assert_array_equal(used, [True, False])
    np.testing.assert_allclose(jnp.abs(res.z[:, 0]), [1.0, 1.0], atol=1e-12)


def test_fallback_on_the_saturation_kink_matches_brute_force(x64):
    """ℓ0 = 0.02 binds at E = 1e21 (spec Pitfall): the start Hessian is singular, Adam + Newton reach the kink."""
    p = FirmParams(gamma=2.7, E=1e21, ell0=0.02)
    sol = solve.solve_compute_bound(p)
    assert bool(sol.used_fallback)
    assert float(sol.ell) == pytest.approx(0.02, rel=1e-6)
    zn = np.linspace(np.log(float(sol.N)) - 0.5, np.log(float(sol.N)) + 0.5, 301)
    zd = np.linspace(np.log(float(sol.D)) - 0.5, np.log(float(sol.D)) + 0.5, 301)
    z = jnp.asarray(np.stack(np.meshgrid(zn, zd, indexing="ij"), -1).reshape(-1, 2))
    brute = float(jnp.max(jax.jit(jax.vmap(model.profit, in_axes=(0, None)))(z, p)))
    assert float(sol.profit) >= brute * (1 - 1e-9)


def test_frontier_solver_recovers_the_closed_form(x64):
    c = np.logspace(21, 25, 5)
    for law in (sl.BESIROGLU, sl.HOFFMANN_ROUNDED):
        n, d, ell, _ = solve.solve_frontier(law, c)
        n_cf, d_cf, ell_cf = sl.frontier(law, jnp.asarray(c))
        np.testing.assert_allclose(n, n_cf, rtol=1e-9)
        np.testing.assert_allclose(ell, ell_cf, rtol=1e-12)


def test_hard_cap_binds_and_matches_reference(x64):
    batch, _ = model.param_grid(FirmParams(E=1e19), {"D_max": [10**11.5, 1e12, 10**12.5]})
    sol = solve.sweep_data_bound(batch)
    np.testing.assert_array_equal(sol.cap_ratio, 1.0)  # exactly: the cap is returned in log space
    assert bool(jnp.all(sol.at_cap))
    np.testing.assert_allclose(sol.spend, closed_form.hard_cap_spend(batch.D_max, 1e19), rtol=1e-12)
    tpp = solve.sweep_data_bound(batch.replace(cap_kind="tpp"))
    np.testing.assert_allclose(tpp.spend, 0.3 * batch.D_max**2 / 1e19, rtol=1e-12)  # spend = 0.3 D²/E


def test_pitfall_hard_cap_that_does_not_bind_is_detected(x64):
    """Small E with plenty of data: the optimum is interior, cap_ratio < 1 and the bisection matches brentq."""
    for E, D in ((1e16, 1e13), (1e17, 3e12)):
        p = FirmParams(E=E, D_max=D)
        sol = solve.solve_data_bound(p)
        assert not bool(sol.at_cap) and float(sol.cap_ratio) < 0.5 and bool(sol.bracketed)
        want = reference.solve_hard_cap(reference.NpFirm.from_params(p))
        assert float(sol.N) == pytest.approx(want, rel=1e-10)


def testhard_cap_derivative_crosses_zero_once_on_the_bracket(x64):
    """Bisection finds the maximum because dJ/dlog N changes sign at most once, from + to −, below the cap.

    (The spec says "decreasing"; it is not at tiny N, where the derivative first rises, but it stays positive
    there, which is all bisection needs.)
    """
    for E, D in ((1e16, 1e13), (1e17, 3e12), (1e19, 1e12)):
        p = FirmParams(E=E, D_max=D)
        cap = model.log_n_cap(p)
        z = jnp.linspace(cap - 20, cap, 4001)
        d = np.asarray(jax.jit(jax.vmap(solve.hard_cap_derivative, in_axes=(0, None)))(z, p))
        changes = np.flatnonzero(np.diff(np.sign(d)) != 0)
        assert d[0] > 0 and len(changes) <= 1
        if len(changes):
            assert np.all(np.diff(d[changes[0] - 5 :]) < 0)  # decreasing through and after the crossing


def test_soft_cap_matches_scipy_reference(x64):
    p = FirmParams(E=1e19, D_max=1e12, cap_kind="soft")
    sol = solve.solve_data_bound(p)
    f = reference.NpFirm.from_params(p)
    z = reference.solve_soft_cap(f, np.array([np.log(float(sol.N)) + 0.2, np.log(float(sol.epochs) - 1) - 0.2]))
    assert float(sol.N) == pytest.approx(np.exp(z[0]), rel=1e-5)
    assert float(sol.epochs) - 1 == pytest.approx(np.exp(z[1]), rel=1e-5)
    j = float(model.data_bound_scaled_profit(jnp.array([np.log(float(sol.N)), np.log(float(sol.epochs) - 1)]), p))
    assert j == pytest.approx(reference.soft_cap_profit(z, f), rel=1e-12)
    assert j >= reference.soft_cap_profit(z, f) - 1e-12


def test_float64_is_required():
    with pytest.raises(PrecisionError, match="needs float64.*jax.enable_x64"):
        solve.solve_compute_bound(FirmParams())


def test_pitfall_log_space_and_scaling_over_ten_decades(x64):
    """C* spans more than ten decades over E ∈ [1e15, 1e21]; the log-space, R0-scaled solver stays exact."""
    batch, _ = model.param_grid(FirmParams(gamma=2.7), {"E": np.logspace(15, 21, 13)})
    sol = solve.sweep_compute_bound(batch)
    cf = closed_form.pareto_closed_form(batch)
    assert float(jnp.log10(sol.C[-1] / sol.C[0])) > 10
    np.testing.assert_allclose(sol.N, cf.N, rtol=1e-9)
    np.testing.assert_allclose(sol.spend, cf.spend, rtol=1e-9)
    assert bool(jnp.all(sol.hessian_nd)) and not bool(jnp.any(sol.used_fallback))
