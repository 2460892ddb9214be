"""Towers and objective models (outputs, pinned parameter paths, logical axes), the loss functions for
the trainer, the seed trainer (core.train.make_seed_trainer) against a plain loop, convergence of a
small linear run to its closed form, the shared trainer path (core.train.train_model) and the
`jaxpapers train` entry."""

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core import axes
from jaxpapers.core import config as config_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import LoopConfig, OptimConfig, TrainState, make_train_step
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import losses, metrics
from jaxpapers.vlm_objectives import train as train_lib
from jaxpapers.vlm_objectives.config import OBJECTIVES, LossConfig, ModelConfig, SeedTrainConfig
from jaxpapers.vlm_objectives.models import ObjectiveModel

X = jnp.asarray(np.random.default_rng(0).normal(size=(8, 5)), jnp.float32)
Y = jnp.asarray(np.random.default_rng(1).normal(size=(8, 4)), jnp.float32)
PARAM_PATHS = {
    "clip": ["img/proj/kernel", "txt/proj/kernel"],
    "siglip": ["b", "img/proj/kernel", "log_t", "txt/proj/kernel"],
    "jepa_x2y": ["img/proj/kernel", "predictor/P/kernel", "txt/proj/kernel"],
    "jepa_y2x": ["img/proj/kernel", "predictor/P/kernel", "txt/proj/kernel"],
    "gen_x2y": ["decoder/D/kernel", "img/proj/kernel"],
    "gen_y2x": ["decoder/D/kernel", "txt/proj/kernel"],
}


def model(objective, **kw):
    return ObjectiveModel(ModelConfig(objective=objective, k=2, d_x=5, d_y=4, **kw))


def paths(tree):
    return sorted("/".join(str(k.key) for k in p) for p, _ in jax.tree_util.tree_flatten_with_path(tree)[0])


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_param_paths_outputs_and_losses(objective):
    m = model(objective)
    params = train_lib.init_params(m, jax.random.key(0), 5, 4)
    assert paths(params) == PARAM_PATHS[objective]  # the checkpoint format
    out = m.apply({"params": params}, X, Y)
    loss, _ = train_lib.make_loss_fn(m, LossConfig(tau=2.0, whiten_coef=3.0))(
        params, {"x": X, "y": Y}, jax.random.key(0), train=True
    )
    enc = train_lib.linear_encoders(params, objective)
    if objective == "clip":
        np.testing.assert_allclose(out["zx"], X @ enc["W_img"].T, rtol=1e-5)
        np.testing.assert_allclose(loss, losses.infonce(out["zx"], out["zy"], 0.5), rtol=1e-6)
    elif objective == "siglip":
        assert float(out["t"]) == pytest.approx(10.0) and float(out["b"]) == -10.0
        np.testing.assert_allclose(loss, losses.sigmoid_pairwise(out["zx"], out["zy"], 10.0, -10.0), rtol=1e-6)
    elif objective.startswith("jepa"):
        ctx, tgt = ("W_img", "W_txt") if objective == "jepa_x2y" else ("W_txt", "W_img")
        np.testing.assert_allclose(out["pred"], (X if ctx == "W_img" else Y) @ enc[ctx].T, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(loss, losses.jepa_l2(out["pred"], out["target"], 3.0)[0], rtol=1e-6)
    else:
        target = Y if objective == "gen_x2y" else X
        np.testing.assert_allclose(loss, losses.token_generation_mse(out["recon"], target), rtol=1e-6)
        assert enc["decoder"].shape == (target.shape[1], 2)  # direction conventions: captioning decodes text


def test_mlp_towers_and_logical_axis_names():
    m = model("clip", tower="mlp", hidden=6)
    boxed = m.init(jax.random.key(0), X, Y)["params"]
    names = set()
    for leaf in jax.tree.leaves(boxed, is_leaf=lambda a: isinstance(a, nn.Partitioned)):
        names |= {n for n in leaf.names if n is not None}
    assert names <= set(axes.ALL)
    out = m.apply({"params": nn.unbox(boxed)}, X, Y)
    assert out["zx"].shape == (8, 2)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(objective="vicreg"), r"model.objective='vicreg' is not allowed"),
        (dict(tower="cnn"), r"model.tower='cnn' is not allowed; choose 'linear' or 'mlp'"),
        (dict(k=0), r"model.k=0 is out of range"),
    ],
)
def test_bad_model_config(kw, match):
    with pytest.raises(ConfigError, match=match):
        ModelConfig(**{"objective": "clip", **kw})


def test_bad_trainer_config():
    x, y = planted_data(1, 8)
    with pytest.raises(ConfigError, match=r"steps=10 is not a multiple of snapshots=3"):
        train_lib.train_seeds(
            model("clip"),
            LossConfig(),
            OptimConfig(),
            SeedTrainConfig(batch_size=4, snapshots=3),
            10,
            jax.random.split(jax.random.key(0), 1),
            x,
            y,
        )
    with pytest.raises(ConfigError, match=r"batch_size=2 is out of range|batch_size"):
        SeedTrainConfig(batch_size=1)


def planted_data(seeds, n, key=0):
    from .conftest import preset

    p = preset("clean", d_x=5, d_y=4, k=2, kappa=(2.0, 1.5))
    p = jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), p)
    cov = jax.jit(lm.planted_covariances)(p, jax.random.key(key))
    x, y, _ = jax.jit(jax.vmap(lambda k: lm.sample_pairs(p, cov, k, n)))(
        jax.random.split(jax.random.key(key + 1), seeds)
    )
    return x - x.mean(1, keepdims=True), y - y.mean(1, keepdims=True)


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def test_seed_trainer_vmapped_over_seeds_equals_a_plain_loop():
    """Plain Adam (optax.adam, the stable-decay schedule written out) in a Python loop over steps."""
    m = model("siglip", init_std=0.05)
    lc, oc = LossConfig(), OptimConfig(lr=1e-2, schedule="stable_decay", decay_frac=0.5)
    x, y = planted_data(2, 64)
    keys = jax.random.split(jax.random.key(3), 2)
    result = train_lib.train_seeds(m, lc, oc, SeedTrainConfig(batch_size=16, snapshots=2), 6, keys, x, y)
    assert result.losses.shape == (2, 6) and jax.tree.leaves(result.snapshots)[0].shape[:2] == (2, 2)
    schedule = optax.join_schedules([optax.constant_schedule(1e-2), optax.cosine_decay_schedule(1e-2, 3)], [3])
    tx = optax.adam(schedule)
    step = jax.jit(make_train_step(train_lib.make_loss_fn(m, lc), tx))
    for s in range(2):
        k_init, k_state, k_data = jax.random.split(keys[s], 3)
        params = train_lib.init_params(m, k_init, 5, 4)
        state = TrainState(
            step=jnp.zeros((), jnp.int32), params=params, opt_state=tx.init(params), rng=jax.random.key_data(k_state)
        )
        for _ in range(6):
            idx = jax.random.randint(jax.random.fold_in(k_data, state.step), (16,), 0, 64)
            state, _ = step(state, {"x": x[s][idx], "y": y[s][idx]})
        looped = state.params
        jax.tree.map(lambda a, b, s=s: _close(a[s], b), result.params, looped)
        jax.tree.map(lambda a, b, s=s: _close(a[s, -1], b), result.snapshots, looped)


def test_seed_trainer_reaches_the_rrr_closed_form():
    m = model("gen_x2y", init_std=0.1)
    x, y = planted_data(1, 2000, key=5)
    oc = OptimConfig(lr=1e-2, schedule="stable_decay", decay_frac=0.3)
    result = train_lib.train_seeds(
        m, LossConfig(), oc, SeedTrainConfig(batch_size=128), 600, jax.random.split(jax.random.key(0), 1), x, y
    )
    enc = train_lib.linear_encoders(jax.tree.map(lambda a: a[0], result.params), "gen_x2y")
    with jax.enable_x64(True):
        cov = lm.empirical_cov(jnp.asarray(np.asarray(x[0], np.float64)), jnp.asarray(np.asarray(y[0], np.float64)))
        ref = cf.generation_rrr(cov, 2, "x2y")
        assert float(metrics.subspace_distance(ref.W_img, jnp.asarray(np.asarray(enc["W_img"], np.float64)))) < 0.01


def test_train_seeds_rejects_bad_shapes():
    m = model("clip")
    with pytest.raises(ConfigError, match="train_seeds needs keys"):
        train_lib.train_seeds(
            m,
            LossConfig(),
            OptimConfig(),
            SeedTrainConfig(batch_size=4),
            2,
            jax.random.split(jax.random.key(0), 2),
            jnp.zeros((3, 8, 5)),
            jnp.zeros((3, 8, 4)),
        )


def test_fit_objective_through_the_shared_trainer_and_resume(tmp_path):
    m = model("jepa_x2y")
    x, y = planted_data(1, 64)
    arrays = {"x": np.asarray(x[0]), "y": np.asarray(y[0])}
    loop = LoopConfig(steps=4, batch_size=16, log_every=2)
    a = train_lib.fit_objective(m, LossConfig(), OptimConfig(), loop, arrays, seed=0, workdir=str(tmp_path))
    assert int(a.state.step) == 4 and {"loss", "mse", "whiten"} <= set(a.history[-1])
    b = train_lib.fit_objective(m, LossConfig(), OptimConfig(), loop, arrays, seed=0, workdir=str(tmp_path))
    assert b.resumed_from == 4


def test_train_entry_and_claims_only_configs(tmp_path):
    cfg = config_lib.load(
        "vlm_objectives/nonlinear",
        "preset=tiny",
        ["task.data=shapes", "task.objective=gen_x2y", "nonlinear.shapes.loss.gen_loss=ce"],
    )
    result = train_lib.train(cfg, str(tmp_path), progress=False)
    assert int(result.state.step) == 4
    with pytest.raises(ConfigError, match="configures claims only"):
        train_lib.train(config_lib.load("vlm_objectives/closed_forms", "preset=tiny"), str(tmp_path))
    with pytest.raises(ConfigError, match=r"task.data='web' is not allowed"):
        train_lib.train(config_lib.load("vlm_objectives/nonlinear", "preset=tiny", ["task.data=web"]), None)
    assert config_lib.load("vlm_objectives/nonlinear", "preset=tiny").rules_family == "transformer"


def test_loss_config_defaults_keep_the_linearised_regime():
    """Spec Pitfalls: the exact checks use unnormalised InfoNCE at large tau (normalised is opt-in)."""
    lc = LossConfig()
    assert lc.normalize is False and lc.tau >= 1
    assert dataclasses.replace(lc, normalize=True).normalize


def test_siglip_bias_drifts_toward_logit_one_over_n():
    """Spec Pitfalls: with the sum over negatives, the learned b moves from -10 toward logit(1/N)."""
    m = model("siglip", init_std=0.01)
    x, y = planted_data(1, 512, key=7)
    oc = OptimConfig(lr=1e-2, schedule="stable_decay", decay_frac=0.3)
    result = train_lib.train_seeds(
        m, LossConfig(), oc, SeedTrainConfig(batch_size=64), 300, jax.random.split(jax.random.key(0), 1), x, y
    )
    b = float(result.params["b"][0])
    assert -10.0 + 2.0 < b < np.log(1 / 63) + 1.5, b
