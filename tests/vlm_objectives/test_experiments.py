"""Experiment helpers against plain loops and NumPy, the registry, the configs, and (marked ``claims``)
each claim end to end at its tiny preset."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.core import registry, sim, verify
from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import experiments as ex
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import spectra

from .conftest import preset

SPEC_IDS = [
    "V1-cca-equivalence",
    "V2a-trained-clean",
    "V2b-trained-contaminated",
    "V3-phase-staircase",
    "V4-one-sided-condition",
    "V5-retrieval-jepa",
    "V6-nonlinear-real",
]
CONFIGS = ["closed_forms", "train_linear", "staircase", "one_sided", "retrieval", "nonlinear"]


def test_claim_ids_are_the_spec_rows():
    claims = registry.claims_of("vlm_objectives")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.budget_s["quick"] <= 60 for c in claims)
    assert sum(c.budget_s["quick"] for c in claims) <= 240


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load_for_every_preset(name, preset):
    cfg = config_lib.load(f"vlm_objectives/{name}", f"preset={preset}")
    assert cfg.preset == preset


def test_bad_config_arguments():
    with pytest.raises(ConfigError, match=r"variant='dirty' is not allowed; choose 'clean' or 'contaminated'"):
        config_lib.load("vlm_objectives/train_linear", "variant=dirty")
    with pytest.raises(ConfigError, match=r"preset='huge' is not allowed"):
        config_lib.load("vlm_objectives/staircase", "preset=huge")
    with pytest.raises(ConfigError, match=r"config field 'staircase.num_points' does not exist"):
        config_lib.load("vlm_objectives/staircase", overrides=["staircase.num_points=3"])


def test_first_crossings():
    nu = np.linspace(0, 1, 11)
    d = np.array([0, 0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1, 1, 1])
    np.testing.assert_allclose(ex.first_crossings(nu, d, 3), [0.3, 0.5, 0.8])
    assert np.isnan(ex.first_crossings(nu, np.zeros(11), 2)).all()


def test_staircase_sweep_equals_a_loop(contaminated):
    """The vmapped, jitted sweep against a plain loop over nu of the closed forms and distances."""
    nus = np.array([0.2, 0.3, 0.75, 0.95])
    (pop, smp), thresholds = ex._staircase_runner(3, 500, None)(contaminated, jnp.asarray(nus), jax.random.key(0))
    k_rot, k_sample = jax.random.split(jax.random.key(0))
    czz = lm.base_moments(contaminated, k_sample, 500)

    @jax.jit
    def point(v):  # one grid point, called in a plain Python loop
        p = spectra.with_common_nu(contaminated, v)
        cov = lm.planted_covariances(p, k_rot)
        return ex.staircase_distances(cov, 3), ex.staircase_distances(lm.cov_from_moments(p, cov, czz), 3)

    for i, v in enumerate(nus):
        want_pop, want_smp = point(v)
        for name in want_pop:
            np.testing.assert_allclose(pop[name][i], want_pop[name], atol=1e-10)
            np.testing.assert_allclose(smp[name][i], want_smp[name], atol=1e-10)
    np.testing.assert_allclose(pop["cca"], [0, 0, 1 / 3, 1], atol=1e-10)
    np.testing.assert_allclose(pop["gen_t2i"], [0, 1 / 3, 1, 1], atol=1e-10)
    np.testing.assert_allclose(thresholds["cca"], spectra.staircase_thresholds(contaminated, "cca"))


def test_one_sided_checks_vmapped_equal_a_loop_and_numpy(x64):
    runner = ex._one_sided_runner(
        2, 3, 2, (("kappa2_range", (0.5, 10.0)), ("gs_range", (0.05, 4.0)), ("gn_range", (0.02, 10.0))), None
    )
    kp, kr = jax.random.split(jax.random.key(1), 2), jax.random.split(jax.random.key(2), 2)
    uniform = jnp.array([False, True])
    out = runner(kp, kr, uniform)
    for i in range(2):
        p = lm.random_planted_params(kp[i], 2, 3, 2, gn_range=(0.02, 10.0))
        if i == 1:
            p = ex.uniform_planted_params(kp[i], 2, 3, 2)
        one = jax.jit(ex.one_sided_checks)(p, kr[i])
        for name, v in one.items():
            np.testing.assert_allclose(out[name][i], v, rtol=1e-10, atol=1e-14)
        r = spectra.separation_ratios(p)
        np.testing.assert_allclose(out["delta_cca"][i], r["cca"], rtol=1e-9)
        np.testing.assert_allclose(out["delta_gen"][i], r["gen_x2y"], rtol=1e-9)
    assert float(out["uniform_ratio_err"][1]) < 1e-10


@pytest.mark.slow
def test_closed_form_checks_vmapped_equal_a_loop(x64):
    grid = ex.AlignmentGrid(k=2, clip_taus=(1.0,), siglip_ts=(10.0,), siglip_ns=(64,), siglip_bs=(None,))
    out = ex._closed_form_runner(grid, 2, 4, 5, None)(jax.random.key(3))
    covs = jax.vmap(lambda kk: lm.random_joint_cov(kk, 4, 5))(jax.random.split(jax.random.key(3), 2))
    for i in range(2):
        one = ex.closed_form_checks(jax.tree.map(lambda a, i=i: a[i], covs), grid)
        np.testing.assert_allclose(out["gen"][0][i], one["gen"][0], rtol=1e-9)
        assert float(jnp.max(out["clip"][0][i])) < 1e-9 and float(jnp.max(one["siglip"][1])) < 1e-9


def test_trained_evaluator_on_exact_closed_forms(x64):
    """Feeding the closed forms themselves as 'trained' encoders gives zero distance and zero JEPA gap."""
    p = preset("clean", k=2, d_x=5, d_y=4, kappa=(2.0, 1.5))
    cov = lm.planted_covariances(p, jax.random.key(0))
    sol = cf.jepa_l2(cov, 2, "x2y")
    params = {  # Dense kernels are (in, out): W = kernel^T; context W with identity predictor
        "img": {"proj": {"kernel": sol.W_img.T[None]}},
        "txt": {"proj": {"kernel": sol.W_txt.T[None]}},
        "predictor": {"P": {"kernel": jnp.eye(2)[None]}},
    }
    batch = jax.tree.map(lambda a: a[None], params)
    covs = jax.tree.map(lambda a: a[None], lm.Cov(Sxx=cov.Sxx, Syy=cov.Syy, Sxy=cov.Sxy))
    ev = ex._snapshot_evaluator("jepa_x2y", 2)(batch, covs, cov.Ux, cov.Uy)
    assert float(ev["distance_img"][0, 0]) < 1e-12 and abs(float(ev["jepa_gap"][0, 0])) < 1e-12


@pytest.mark.claims
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_runs_at_its_tiny_preset(name):
    (claim,) = registry.select([f"vlm_objectives/{name}"])
    result = verify.run_claim(claim, "tiny")
    assert result.verdict in ("pass", "fail", "report"), result.error or result.reason
    assert isinstance(result.measured, str) and result.measured


def test_measurement_shapes_of_a_tiny_experiment():
    cfg = config_lib.load("vlm_objectives/one_sided", "preset=tiny")
    with jax.enable_x64(True):
        m = ex.one_sided_condition(cfg, jax.random.key(0))
    assert isinstance(m, Measurement)
    assert m.measured["bound_violations"] == 0 and m.measured["spectrum_max_abs_err"] < 1e-8


def test_sweeps_compile_once_per_shape(contaminated):
    """Spec Pitfalls (CPU timing): a sweep is one compiled computation, reused for new values."""
    runner = ex._staircase_runner(3, 200, None)
    for nus in ([0.1, 0.5], [0.2, 0.6]):
        runner(contaminated, jnp.asarray(nus), jax.random.key(0))
    assert runner._cache_size() == 1
    assert sim.fast_compile_options()["xla_backend_optimization_level"] == 0  # CPU: compile-time tuned
