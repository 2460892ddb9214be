"""Claims registry and configs; the claim experiments at tiny size against independent recomputations."""

import numpy as np
import pytest
from scipy.optimize import minimize

from jaxpapers.cltr import DigitsConfig, experiments, load_digits_split
from jaxpapers.core import config, registry
from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError

IDS = [
    "C1-radius-law",
    "C2-subsampled-law",
    "C3-nonconvex-near-head",
    "C4-cl-upper-bound",
    "C5a-cltr-beats-erm",
    "C5b-weak-regularisation",
    "C6-cifar-lt-resnet32",
]


def _claim(name):
    return next(c for c in registry.claims_of("cltr") if c.id == f"cltr/{name}")


def test_every_spec_claim_is_registered_and_configs_load():
    assert [c.id for c in registry.claims_of("cltr")] == [f"cltr/{i}" for i in IDS]
    for c in registry.claims_of("cltr"):
        for preset in ("tiny", "quick", "full"):
            config.load_preset(c.config, preset)
    with pytest.raises(ConfigError, match="variant"):
        config.load("cltr/methods", "variant=strong")


def _np_loss(theta, x, y1h, w, mu):
    z = x @ theta.reshape(x.shape[1], y1h.shape[1])
    m = z.max(1, keepdims=True)
    return float(np.sum(w * (m[:, 0] + np.log(np.exp(z - m).sum(1)) - (z * y1h).sum(1))) + 0.5 * mu * theta @ theta)


@pytest.mark.slow
def test_c1_tiny_distance_matches_scipy_minimizers(x64):
    cfg = config.load("cltr/theory", "preset=tiny")
    m = experiments.theory.measure_radius(cfg, None)
    d = load_digits_split(DigitsConfig(**cfg.digits.to_dict()))
    y1h = np.eye(10)[d.y_pool]
    head = d.y_pool < 5
    wh, wt = head / head.sum(), ~head / (~head).sum()
    p = d.x_pool.shape[1] * 10

    def argmin(w):
        return minimize(
            _np_loss, np.zeros(p), args=(d.x_pool, y1h, w, cfg.theory.mu), method="BFGS", options={"gtol": 1e-10}
        ).x

    th_h = argmin(wh)
    r = 1 / cfg.theory.if_parts[0]
    th = argmin((wh + r * wt) / (1 + r))
    assert m.details["dist"][0] == pytest.approx(np.linalg.norm(th - th_h), rel=1e-4)
    assert m.measured["bound_violations"] == 0 and m.details["bound_fixed_numerator_slope"] == pytest.approx(-0.5)


def test_c2_tiny_runs_and_bound_holds(x64):
    m = experiments.theory.measure_subsample(config.load("cltr/theory", "preset=tiny"), None)
    assert m.measured["bound_violations"] == 0 and m.details["max_grad_norm"] < 1e-8
    assert m.details["unique_solves"] < 2 * m.n  # the step profile's Head solve is shared across IFs


def test_c4_tiny_bound_and_probe_points(x64):
    m = experiments.theory.measure_cl_bound(config.load("cltr/theory", "preset=tiny"), None)
    assert m.measured["violations"] == 0
    assert 0 < m.measured["tightness"] <= 1 + 1e-9
    assert m.details["beta_local_power_iteration"] <= m.details["beta_global"] + 1e-9


def test_c5a_predicate_judges_each_part():
    pred = _claim("C5a-cltr-beats-erm").predicate
    good = dict(gain_mean=0.07, gain_min=0.03, tail_gain_mean=0.2, forgetting_mean=0.07, ft_head_acc_max=0.0)
    m = Measurement(measured=good, preset="quick")
    assert pred(m).verdict == "pass"
    for key, bad in (
        ("gain_min", 0.0),
        ("gain_mean", 0.02),
        ("tail_gain_mean", 0.05),
        ("forgetting_mean", 0.2),
        ("ft_head_acc_max", 0.5),
    ):
        m = Measurement(measured={**good, key: bad}, preset="quick")
        assert pred(m).verdict == "fail", key


@pytest.mark.slow
def test_c5_tiny_accuracies_equal_a_recount(monkeypatch):
    cfg = config.load("cltr/methods", "preset=tiny")
    captured = {}
    real = experiments.cl.run_methods

    def spy(*a):
        captured["res"] = real(*a)
        return captured["res"]

    monkeypatch.setattr(experiments.cl, "run_methods", spy)
    m = experiments.cl.measure_methods(cfg, None)
    acc = captured["res"]["acc"]
    gain = acc["replay"]["balanced"] - acc["erm"]["balanced"]
    assert m.measured["gain_mean"] == pytest.approx(gain.mean()) and m.measured["gain_min"] == pytest.approx(gain.min())
    for meth in acc:
        bal = acc[meth]["balanced"]
        np.testing.assert_allclose(bal, (acc[meth]["head"] + acc[meth]["tail"]) / 2, atol=1e-12)  # balanced test set
    np.testing.assert_allclose(acc["ft"]["forgetting"], acc["head"]["head"] - acc["ft"]["head"])


@pytest.mark.slow
def test_c3_tiny_distances_equal_one_masked_run_per_subset():
    """C3 trains each distinct (seed, subset) once on its selected samples; one (seed, profile, IF) cell
    recomputed with 0/1 weights over the whole pool gives the same distance."""
    import jax
    import jax.numpy as jnp

    from jaxpapers.cltr import lt_counts, make_long_tailed, mlp_init, train_stage
    from jaxpapers.cltr.cltr import init_opt_state, make_spec, stack

    cfg = config.load("cltr/nonconvex", "preset=tiny")
    m = experiments.cl.measure_nonconvex(cfg, None)
    net = cfg.net
    assert m.details["distinct_runs"] == net.seeds * (len(net.class_ifs) + 1)  # step: one Head-only run per seed
    d = load_digits_split(DigitsConfig(**cfg.digits.to_dict()))
    n, dim = d.x_pool.shape
    p = dim * net.hidden + net.hidden + net.hidden * 10 + 10
    k = len(net.class_ifs) - 1
    sel = np.zeros(n, bool)
    sel[make_long_tailed(d.y_pool, lt_counts(10, cfg.digits.n_pool, net.class_ifs[k], "step"), 0)] = True
    head = sel & (d.y_pool < 5)
    specs = stack([make_spec(n, 10, p, sel / sel.sum()), make_spec(n, 10, p, head / head.sum())])
    t0 = jnp.stack([mlp_init(jax.random.key(0), dim, net.hidden, 10)] * 2)
    th, _ = train_stage(
        t0,
        init_opt_state(t0, net.lr, net.weight_decay),
        specs,
        jnp.asarray(d.x_pool, jnp.float32),
        jnp.asarray(d.y_pool, jnp.int32),
        hidden=net.hidden,
        c=10,
        steps=net.steps,
        mu=net.mu,
        temperature=1.0,
        lr=net.lr,
        weight_decay=net.weight_decay,
    )
    ref = float(np.linalg.norm(np.asarray(th[0]) - np.asarray(th[1])))
    assert m.details["dist"][0][0][k] == pytest.approx(ref, rel=1e-3)
    assert m.measured["spearman_max"] <= 1.0


@pytest.mark.slow
def test_c6_tiny_runs_on_binary_files_and_skips_without_them(tmp_path):
    from jaxpapers.core.errors import ClaimSkipped

    rng = np.random.default_rng(0)
    root = tmp_path / "cifar-10-batches-bin"
    root.mkdir()
    for name, per_class in [(f"data_batch_{i}.bin", 4) for i in range(1, 6)] + [("test_batch.bin", 2)]:
        labels = np.repeat(np.arange(10), per_class).astype(np.uint8)
        pixels = (rng.integers(0, 60, (len(labels), 3072)) + 19 * labels[:, None]).astype(np.uint8)
        np.concatenate([labels[:, None], pixels], 1).tofile(root / name)
    cfg = config.load("cltr/cifar_lt", "preset=tiny")
    with pytest.raises(ClaimSkipped, match="data.root"):
        experiments.deep.measure_cifar_lt(cfg, None)
    cfg.data.root = str(tmp_path)
    m = experiments.deep.measure_cifar_lt(cfg, None)
    per_seed = m.details["per_seed"]
    assert m.details["lt_size"] == sum(m.details["counts"]) and m.details["counts"][0] == 20
    for row in per_seed["erm"] + per_seed["cltr_replay"]:
        assert 0.0 <= row["overall"] <= 1.0
        assert row["overall"] == pytest.approx((row["head"] + row["tail"]) / 2)  # balanced test set
    gain = 100 * (per_seed["cltr_replay"][0]["overall"] - per_seed["erm"][0]["overall"])
    assert m.measured["gain_points"] == pytest.approx(gain)
