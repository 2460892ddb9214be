"""Training: losses, the kernel decay mask, the vmapped trial grid against a plain loop, fit and the CLI entry."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.comonet import data
from jaxpapers.comonet.baselines import MLP, PenaltyMLP
from jaxpapers.comonet.config import EarlyStopConfig
from jaxpapers.comonet.train import fit, make_loss_fn, make_trial_trainer, trial_data
from jaxpapers.core import config as config_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import LoopConfig, OptimConfig, TrainState, make_optimizer, make_train_step, read_metrics


def test_losses_closed_form():
    model = MLP((4,))
    params = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, 2)))["params"]
    params = jax.tree.map(lambda a: jnp.zeros(a.shape), params) | {
        "out": {"kernel": jnp.zeros((4, 1)), "bias": jnp.array([0.5])}
    }
    batch = {"x": jnp.zeros((3, 2)), "y": jnp.array([0.0, 1.0, 2.0])}
    loss, aux = make_loss_fn(model)(params, batch, jax.random.key(0), train=True)
    np.testing.assert_allclose(loss, np.mean((0.5 - np.array([0, 1, 2])) ** 2), rtol=1e-6)
    loss, aux = make_loss_fn(model, "binary")(
        params, {"x": batch["x"], "y": jnp.array([0.0, 1.0, 1.0])}, jax.random.key(0), train=True
    )
    p = 1 / (1 + np.exp(-0.5))
    np.testing.assert_allclose(loss, -np.mean([np.log(1 - p), np.log(p), np.log(p)]), rtol=1e-6)
    assert float(aux["accuracy"]) == pytest.approx(2 / 3)


def test_penalty_enters_the_training_loss_only():
    model = PenaltyMLP(hidden=(8,), regimes=("inc", "cvx"), n_points=16)
    shapes = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, 2)))["params"]
    params = jax.tree.map(lambda a: jax.random.normal(jax.random.key(1), a.shape), shapes)
    batch = {"x": jnp.zeros((4, 2)), "y": jnp.zeros(4)}
    fn = make_loss_fn(model)
    train_loss, aux = fn(params, batch, jax.random.key(1), train=True)
    eval_loss, _ = fn(params, batch, jax.random.key(1), train=False)
    np.testing.assert_allclose(train_loss - eval_loss, model.lam * aux["penalty"], rtol=1e-4, atol=1e-6)


def test_weight_decay_touches_normal_kernels_only():
    """COMONet's log-weights are ``raw_kernel``: decay on them would pull exp(Ŵ) to 1, so decay_mask="kernels"."""
    params = {"dense": {"kernel": jnp.ones((2, 2)), "bias": jnp.ones(2)}, "pos": {"raw_kernel": jnp.ones((2, 2))}}
    tx = make_optimizer(OptimConfig(lr=0.1, schedule="constant", weight_decay=0.5, decay_mask="kernels"), 10)
    zeros = jax.tree.map(jnp.zeros_like, params)
    updates, _ = tx.update(zeros, tx.init(params), params)
    np.testing.assert_allclose(updates["dense"]["kernel"], -0.1 * 0.5)
    np.testing.assert_allclose(updates["dense"]["bias"], 0.0)
    np.testing.assert_allclose(updates["pos"]["raw_kernel"], 0.0)


def test_trial_trainer_equals_a_plain_loop():
    """The vmapped lax.scan over trials reproduces a Python loop of the same step, trial by trial."""
    model = MLP((3,))  # the grid machinery is model-agnostic; COMONet trains through it in the claims
    loss_fn, tx = make_loss_fn(model), make_optimizer(OptimConfig(lr=1e-2, schedule="cosine"), 4)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 12, 3)).astype(np.float32)
    y = rng.normal(size=(2, 12)).astype(np.float32)
    keys = jax.random.split(jax.random.key(3), 2)
    n_valid = np.array([12, 9])
    result = make_trial_trainer(model, tx, steps=4, batch_size=5)(keys, trial_data(x, y, n_valid))
    step = jax.jit(make_train_step(loss_fn, tx))
    for t in range(2):
        init_key, state_key, data_key = jax.random.split(keys[t], 3)
        p = jax.jit(model.init)(init_key, jnp.asarray(x[t, :1]))["params"]
        state = TrainState(
            step=jnp.zeros((), jnp.int32), params=p, opt_state=tx.init(p), rng=jax.random.key_data(state_key)
        )
        for s in range(4):
            idx = jax.random.randint(jax.random.fold_in(data_key, s), (5,), 0, n_valid[t])
            state, metrics = step(state, {"x": jnp.asarray(x[t])[idx], "y": jnp.asarray(y[t])[idx]})
            np.testing.assert_allclose(result.losses[t, s], metrics["loss"], rtol=1e-5)
        jax.tree.map(
            lambda a, b, t=t: np.testing.assert_allclose(a[t], b, rtol=1e-5, atol=1e-6), result.params, state.params
        )


def test_trial_trainer_never_reads_padding():
    model = MLP((4,))
    x = np.zeros((1, 10, 2), np.float32)
    y = np.zeros((1, 10), np.float32)
    x[0, 6:] = np.nan  # padding beyond n_valid
    run = make_trial_trainer(model, make_optimizer(OptimConfig(), 20), steps=20, batch_size=8)
    result = run(jax.random.key(0)[None], trial_data(x, y, np.array([6])))
    assert np.all(np.isfinite(np.asarray(result.losses)))
    with pytest.raises(ConfigError, match=r"expected \[T, n, d\]"):
        trial_data(x[0], y[0])


@pytest.mark.slow
def test_fit_learns_and_writes_metrics(tmp_path):
    d = data.synthetic_nine(256, noise=0.0, seed=0)
    model = MLP((16,))
    loop = LoopConfig(steps=60, batch_size=64, log_every=20)
    result = fit(model, d, loop=loop, workdir=str(tmp_path))
    steps, losses = result.series("loss")
    assert list(steps) == [20, 40, 60] and losses[-1] < losses[0]
    assert read_metrics(tmp_path)[-1]["step"] == 60
    again = fit(model, d, loop=loop, workdir=str(tmp_path))
    assert again.resumed_from == 60  # the shared trainer's auto-resume


def test_fit_early_stopping_returns_the_best_parameters():
    d = data.synthetic_nine(200, noise=1.0, seed=1)
    model = MLP((32,))
    result = fit(
        model,
        d,
        optim=OptimConfig(lr=0.3),
        loop=LoopConfig(steps=400, batch_size=32, eval_every=5),
        early_stop=EarlyStopConfig(val_fraction=0.25, patience=2),
    )
    assert result.stopped_early and int(result.state.step) < 400
    _, val = result.series("eval/loss")
    tr, va = data.split(200, 0.25, 0)
    best = make_loss_fn(model)(result.state.params, {"x": jnp.asarray(d["x"][va]), "y": jnp.asarray(d["y"][va])},
                               jax.random.key(0), train=False)[0]  # fmt: skip
    assert float(best) == pytest.approx(val.min(), rel=1e-5)


def test_training_config_validation():
    with pytest.raises(ConfigError, match="needs early_stop.val_fraction > 0"):
        EarlyStopConfig(patience=3)
    with pytest.raises(ConfigError, match="needs train.eval_every"):
        fit(MLP(), data.synthetic_nine(16), early_stop=EarlyStopConfig(val_fraction=0.5))
    cfg = config_lib.load("comonet/synthetic", "preset=tiny")
    with pytest.raises(ConfigError, match="OptimConfig has no field 'learning_rate'"):
        config_lib.to_dataclass(OptimConfig, cfg.optim.to_dict() | {"learning_rate": 1.0})


@pytest.mark.slow
def test_cli_entry_point(tmp_path):
    from jaxpapers.launch import train as launch

    result = launch.run("comonet/synthetic:preset=tiny", str(tmp_path / "run"))
    assert result.history[-1]["step"] == 20 and (tmp_path / "run" / "config.json").exists()
    with pytest.raises(ConfigError, match="configures claims only"):
        launch.run("comonet/smnn:preset=tiny", str(tmp_path / "other"))
    cfg = config_lib.load("comonet/diabetes", "preset=tiny")
    pytest.importorskip("sklearn")
    assert launch.resolve_entry(cfg, "comonet/diabetes").__name__ == "train"
