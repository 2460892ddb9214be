"""The shared trainer: exact resume, NaN guard, refusal of foreign checkpoints, determinism."""

import json
import os
import signal
import threading
import warnings

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core import axes
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.errors import CheckpointDamagedError, CheckpointMismatchError, NonFiniteError
from jaxpapers.core.train import fit, init_state, make_train_step, read_metrics
from jaxpapers.core.train import job as job_lib

TIMING = ("step_time", "examples_per_s", "tokens_per_s", "mfu")  # wall-clock rates differ between runs


def untimed(history):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in history]


class Regressor(nn.Module):
    width: int = 16

    @nn.compact
    def __call__(self, x):
        init = nn.initializers.lecun_normal()
        h = nn.Dense(self.width, kernel_init=nn.with_logical_partitioning(init, (axes.EMBED, axes.MLP)))(x)
        return nn.Dense(1, kernel_init=nn.with_logical_partitioning(init, (axes.MLP, axes.EMBED)))(nn.tanh(h))[:, 0]


def make_run(width=16, lr=1e-2, poison_at=None):
    """A tiny regression problem; ``poison_at`` makes the loss NaN from that step on."""
    model = Regressor(width)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 4)).astype(np.float32)
    data = {"x": x, "y": np.sin(x.sum(1)).astype(np.float32), "i": np.arange(256, dtype=np.int32)}
    batches = train_batches(ArraySource(data), 16, seed=3)
    tx = optax.adam(lr)

    def loss_fn(params, batch, key, *, train):
        noise = 1e-3 * jax.random.normal(key, batch["y"].shape)  # exercises the per-step key
        loss = jnp.mean((model.apply({"params": params}, batch["x"]) - batch["y"] - noise) ** 2)
        if poison_at is not None:
            loss = jnp.where(batch["step_marker"] >= poison_at, jnp.nan, loss)
        return loss, {"batch_sum": jnp.sum(batch["i"]).astype(jnp.float32)}

    def init():
        return init_state(lambda k: model.init(k, x[:1])["params"], tx, jax.random.key(0))[0]

    return init, make_train_step(loss_fn, tx), batches, {"width": width}


def run(workdir, num_steps, *, width=16, hooks=(), ckpt_every=4):
    init, step, batches, model_cfg = make_run(width)
    return fit(
        init(),
        step,
        batches,
        num_steps=num_steps,
        workdir=workdir,
        log_every=2,
        ckpt_every=ckpt_every,
        eval_every=5,
        eval_fn=lambda s: {"norm": optax.tree.norm(s.params)},
        model_config=model_cfg,
        hooks=hooks,
        progress=False,
    )


def assert_same(a, b):
    jax.tree.map(lambda x, y: np.testing.assert_array_equal(np.asarray(x), np.asarray(y)), a.state, b.state)
    assert untimed(a.history) == untimed(b.history)


def test_resume_after_requested_stop_is_bit_identical(tmp_path):
    """A hook asks to stop at step 7 (a preemption notice): checkpoint there, resume, same end."""
    full = run(tmp_path / "full", 12)
    first = run(tmp_path / "resumed", 12, hooks=[lambda step, state, metrics: step == 7])
    assert first.stopped_early and int(first.state.step) == 7 and first.resumed_from is None
    resumed = run(tmp_path / "resumed", 12)
    assert resumed.resumed_from == 7
    assert_same(full, resumed)
    assert untimed(read_metrics(tmp_path / "resumed")) == untimed(full.history)


def test_extending_a_finished_run_matches_the_longer_run(tmp_path):
    full = run(tmp_path / "full", 12)
    run(tmp_path / "short", 7)  # a complete 7-step run (its final record at step 7 is kept)
    longer = run(tmp_path / "short", 12)
    assert longer.resumed_from == 7
    jax.tree.map(lambda x, y: np.testing.assert_array_equal(np.asarray(x), np.asarray(y)), full.state, longer.state)
    assert untimed(r for r in longer.history if r["step"] != 7) == untimed(r for r in full.history if r["step"] != 7)


def test_resume_after_crash_is_bit_identical(tmp_path):
    """A crash during step 11 loses steps 9-11; resuming from the step-8 checkpoint replays them exactly."""
    full = run(tmp_path / "full", 12)

    def crash(step, state, metrics):
        if step == 11:
            raise KeyboardInterrupt("simulated preemption")

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "crashed", 12, hooks=[crash])
    assert max(r["step"] for r in read_metrics(tmp_path / "crashed")) == 10  # metrics past the checkpoint exist
    resumed = run(tmp_path / "crashed", 12)
    assert resumed.resumed_from == 8
    assert_same(full, resumed)
    assert untimed(read_metrics(tmp_path / "crashed")) == untimed(full.history)  # lost steps' records replaced


def test_same_config_and_seed_give_identical_runs(tmp_path):
    assert_same(run(tmp_path / "a", 6), run(tmp_path / "b", 6))
    assert_same(run(None, 6), run(tmp_path / "c", 6))


def test_nan_stops_training_and_never_checkpoints_nan(tmp_path):
    init, step, batches, cfg = make_run()
    batches = batches.map_with_index(lambda i, b: {**b, "step_marker": np.int32(i + 1)})  # batch i feeds step i+1
    init, step, _, cfg = make_run(poison_at=6)
    with pytest.raises(NonFiniteError, match=r"step 6; last good checkpoint: .*checkpoints/4"):
        fit(
            init(),
            step,
            batches,
            num_steps=12,
            workdir=tmp_path,
            log_every=5,
            ckpt_every=2,
            model_config=cfg,
            progress=False,
        )
    saved = sorted(int(p.name) for p in (tmp_path / "checkpoints").iterdir() if p.name.isdigit())
    assert saved == [2, 4]  # step 6 was not saved although ckpt_every divides it


def test_foreign_checkpoint_is_refused_and_kept(tmp_path):
    run(tmp_path, 4, width=16)
    before = (tmp_path / "metrics.jsonl").read_text()
    with pytest.raises(
        CheckpointMismatchError,
        match=r"different model \(param Dense_0/bias: checkpoint has float32\[16\], model has float32\[32\]\)",
    ):
        run(tmp_path, 8, width=32)
    assert (tmp_path / "metrics.jsonl").read_text() == before
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir() if p.name.isdigit()) == ["4"]


def test_metrics_are_json_lines_with_eval(tmp_path):
    result = run(tmp_path, 10)
    lines = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [2, 4, 5, 6, 8, 10]
    assert "eval/norm" in lines[2] and "loss" not in lines[2]
    assert {"loss", "grad_norm", "batch_sum", "eval/norm"} <= set(lines[-1])
    assert lines == result.history


def test_data_exhaustion_is_a_clear_error(tmp_path):
    init, step, _, cfg = make_run()
    finite = [{"x": np.zeros((2, 4), np.float32), "y": np.zeros(2, np.float32), "i": np.zeros(2, np.int32)}] * 3
    with pytest.raises(ValueError, match="ran out at step 3 of 5"):
        fit(init(), step, finite, num_steps=5, progress=False)


def test_tensorboard_event_files_are_written(tmp_path):
    pytest.importorskip("tensorboardX")
    init, step, batches, cfg = make_run()
    fit(
        init(),
        step,
        batches,
        num_steps=4,
        workdir=tmp_path,
        log_every=2,
        model_config=cfg,
        progress=False,
        tensorboard=True,
    )
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_sigterm_inside_a_job_saves_the_current_step_and_resumes_exactly(tmp_path):
    """SIGTERM (a preemption notice) at step 7 saves step 7 with its data iterator and returns;
    the next run resumes there, bit-identical to an uninterrupted run. Outside a job SIGTERM is untouched."""
    full = run(tmp_path / "full", 12)
    term = lambda step, state, metrics: os.kill(os.getpid(), signal.SIGTERM) if step == 7 else None  # noqa: E731
    before = signal.getsignal(signal.SIGTERM)
    with job_lib.job(job_lib.JobInfo(handle_sigterm=True)):
        first = run(tmp_path / "pre", 12, hooks=[term])
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is removed again
    assert first.preempted == "SIGTERM" and int(first.state.step) == 7
    ckpts = sorted(p.name for p in (tmp_path / "pre" / "checkpoints").iterdir())
    assert ckpts == ["4", "7"]  # the current step saved; no unfinished temporary folder left
    resumed = run(tmp_path / "pre", 12)
    assert resumed.resumed_from == 7
    assert_same(full, resumed)


def _truncate_manifest(step_dir):
    (step_dir / "state" / "manifest.ocdbt").write_bytes(b"")


def _delete_iterator_state(step_dir):
    import shutil

    shutil.rmtree(step_dir / "data")


def _rewind_iterator(step_dir):
    (path,) = (step_dir / "data").glob("*.json")
    path.write_text(json.dumps({"next_index": 3}))


@pytest.mark.parametrize("damage", [_truncate_manifest, _delete_iterator_state, _rewind_iterator])
def test_a_damaged_newest_checkpoint_falls_back_to_the_newest_intact_one(tmp_path, damage):
    """Truncated files, a missing data-iterator state or one that disagrees with the copy saved
    beside it make the step unusable: the run warns, naming the step, and resumes from the one before --
    never with the data silently restarted. The result equals an uninterrupted run."""
    full = run(tmp_path / "full", 16)
    run(tmp_path / "w", 12)  # checkpoints 4, 8, 12
    damage(tmp_path / "w" / "checkpoints" / "12")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = run(tmp_path / "w", 16)
    assert resumed.resumed_from == 8
    assert any("checkpoints/12 is damaged" in str(w.message) for w in caught), [str(w.message) for w in caught]
    jax.tree.map(lambda x, y: np.testing.assert_array_equal(np.asarray(x), np.asarray(y)), full.state, resumed.state)


def test_no_intact_checkpoint_is_one_clear_error(tmp_path):
    run(tmp_path / "w", 8, ckpt_every=4)  # checkpoints 4, 8
    for step in ("4", "8"):
        _truncate_manifest(tmp_path / "w" / "checkpoints" / step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CheckpointDamagedError, match=r"no intact checkpoint .*step 8: .*step 4: "):
            run(tmp_path / "w", 12)


def test_a_relative_workdir_saves_and_resumes(tmp_path, monkeypatch):
    """Orbax needs absolute paths; a relative --workdir used to crash at the first save."""
    monkeypatch.chdir(tmp_path)
    run("runs/rel", 6)
    assert run("runs/rel", 8).resumed_from == 6


def test_logged_rows_carry_throughput_and_learning_rate(tmp_path):
    init, step, batches, model_cfg = make_run()
    schedule = optax.linear_schedule(1e-2, 0.0, 10)
    result = fit(
        init(),
        step,
        batches,
        num_steps=10,
        workdir=tmp_path,
        log_every=2,
        progress=False,
        learning_rate=schedule,
        tokens_per_example=4,
    )
    rows = read_metrics(tmp_path)
    assert [r["lr"] for r in rows] == pytest.approx([float(schedule(s - 1)) for s in (2, 4, 6, 8, 10)])
    timed = [r for r in rows if "step_time" in r]
    assert len(timed) >= 3 and all(r["step_time"] > 0 for r in timed)
    for r in timed:  # global batch of 16 examples of 4 tokens
        assert r["examples_per_s"] == pytest.approx(16 / r["step_time"])
        assert r["tokens_per_s"] == pytest.approx(64 / r["step_time"])
    assert result.preempted is None


def test_gradient_accumulation_equals_the_larger_batch(tmp_path):
    """grad_accum=2 over batches of 8 makes the same updates as one batch of 16 (the mean of two
    micro-batch means is the mean of the batch; the records arrive in the same order)."""
    from jaxpapers.core.train import LoopConfig, train_model

    model = Regressor(8)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    data = {"x": x, "y": np.cos(x.sum(1)).astype(np.float32)}

    def loss_fn(params, batch, key, *, train):
        return jnp.mean((model.apply({"params": params}, batch["x"]) - batch["y"]) ** 2), {}

    def train(batch, accum):
        return train_model(
            lambda k: model.init(k, x[:1])["params"],
            loss_fn,
            optax.adam(1e-2),
            train_batches(ArraySource(data), batch, seed=5),
            loop=LoopConfig(steps=6, batch_size=batch, log_every=2, grad_accum=accum),
            key=jax.random.key(0),
            progress=False,
        )

    big, accumulated = train(16, 1), train(8, 2)
    assert int(accumulated.state.step) == 12  # micro-steps
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6),
        big.state.params,
        accumulated.state.params,
    )


def test_profile_window_writes_a_trace(tmp_path):
    with job_lib.job(job_lib.JobInfo(profile_steps=(2, 4))):
        run(tmp_path / "w", 6)
    assert list((tmp_path / "w" / "profile").rglob("*.xplane.pb"))


def test_train_step_can_return_the_gradients_it_used():
    """``return_grads=True``: same new state and metrics as the plain step, plus gradients equal to an
    independent ``jax.grad`` of the loss at the step's key (fold_in(key, step))."""
    model = Regressor(8)
    x = np.random.default_rng(1).normal(size=(16, 4)).astype(np.float32)
    batch = {"x": x, "y": np.cos(x.sum(1)).astype(np.float32)}
    tx = optax.sgd(0.1)

    def loss_fn(params, batch, key, *, train):
        noise = 1e-2 * jax.random.normal(key, batch["y"].shape)
        return jnp.mean((model.apply({"params": params}, batch["x"]) - batch["y"] - noise) ** 2), {}

    state = init_state(lambda k: model.init(k, x[:1])["params"], tx, jax.random.key(0))[0]
    plain_state, plain_metrics = jax.jit(make_train_step(loss_fn, tx))(state, batch)
    new_state, metrics, grads = jax.jit(make_train_step(loss_fn, tx, return_grads=True))(state, batch)
    key = jax.random.fold_in(state.key, state.step)
    want = jax.grad(lambda p: loss_fn(p, batch, key, train=True)[0])(state.params)
    chex.assert_trees_all_close(grads, want, rtol=1e-5, atol=1e-8)  # jitted vs eager: float32 reassociation
    chex.assert_trees_all_close(new_state.params, plain_state.params, rtol=1e-6)
    assert float(metrics["loss"]) == pytest.approx(float(plain_metrics["loss"]), rel=1e-6)
    # SGD: the update is -lr * grads exactly
    chex.assert_trees_all_close(
        new_state.params, jax.tree.map(lambda p, g: p - 0.1 * g, state.params, grads), rtol=1e-6, atol=1e-7
    )
