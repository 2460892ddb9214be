"""Simulation runners vs plain loops, power-law fits on exact power laws, grain pipelines."""

import grain
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import sim, stats
from jaxpapers.core.data import ArraySource, train_batches
from jaxpapers.core.errors import ConfigError


def trial(x, y):
    return {"sum": jnp.sum(x) * y, "max": jnp.max(x)}


@pytest.mark.parametrize("chunk", [None, 1, 3, 4, 10])
def test_vmap_chunked_equals_a_python_loop(chunk):
    xs = jax.random.normal(jax.random.key(0), (10, 5))
    ys = jnp.arange(10.0)
    got = sim.jit_vmap_chunked(trial, chunk_size=chunk)(xs, ys)
    for i in range(10):
        want = trial(xs[i], ys[i])
        np.testing.assert_allclose(got["sum"][i], want["sum"], rtol=1e-6)
        np.testing.assert_allclose(got["max"][i], want["max"], rtol=1e-6)


def test_run_trials_uses_independent_keys():
    out = sim.run_trials(lambda k: jax.random.normal(k, ()), jax.random.key(0), 64, chunk_size=16)
    keys = jax.random.split(jax.random.key(0), 64)
    np.testing.assert_allclose(out, [jax.random.normal(k, ()) for k in keys], rtol=1e-6)
    assert len(np.unique(np.asarray(out))) == 64


def test_grid_matches_nested_loops():
    out = sim.grid(lambda a, b, c: a * 10 + b + c, {"a": [1.0, 2.0, 3.0], "b": [0.5, 0.25]}, c=100.0, chunk_size=4)
    assert out.shape == (3, 2)
    for i, a in enumerate([1.0, 2.0, 3.0]):
        for j, b in enumerate([0.5, 0.25]):
            assert out[i, j] == pytest.approx(a * 10 + b + 100)


def test_fit_loglog_recovers_exponents():
    x = np.logspace(0, 3, 21)
    fit = stats.fit_loglog(x, 3.0 * x**1.8)
    assert fit.slope == pytest.approx(1.8, abs=1e-12) and fit.r2 == pytest.approx(1.0)
    assert fit.ci95[0] <= 1.8 <= fit.ci95[1]
    noisy = stats.fit_loglog(x, 3.0 * x**1.8 * np.exp(np.random.default_rng(0).normal(0, 0.05, x.size)))
    assert noisy.ci95[0] < noisy.slope < noisy.ci95[1] and abs(noisy.slope - 1.8) < 0.05
    with pytest.raises(ValueError, match="positive, finite"):
        stats.fit_loglog([1, 2], [0, 1])


def test_mean_se():
    mean, se = stats.mean_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and se == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)


def test_train_batches_reshuffle_every_epoch_and_restore_exactly():
    src = ArraySource({"i": np.arange(12), "x": np.arange(24).reshape(12, 2)})
    ds = train_batches(src, 4, seed=0)
    it = iter(ds.to_iter_dataset())
    epoch1 = np.concatenate([next(it)["i"] for _ in range(3)])
    epoch2 = np.concatenate([next(it)["i"] for _ in range(3)])
    assert sorted(epoch1) == sorted(epoch2) == list(range(12)) and not np.array_equal(epoch1, epoch2)
    state = it.get_state()
    after = [next(it)["i"] for _ in range(2)]
    it2 = iter(ds.to_iter_dataset())
    it2.set_state(state)
    np.testing.assert_array_equal(np.stack([next(it2)["i"] for _ in range(2)]), np.stack(after))
    batch = next(it)
    assert batch["x"].shape == (4, 2) and np.array_equal(batch["x"][:, 0], 2 * batch["i"])


def test_data_errors_are_clear():
    with pytest.raises(ConfigError, match=r"one length; got \{'a': 3, 'b': 2\}"):
        ArraySource({"a": np.zeros(3), "b": np.zeros(2)})
    with pytest.raises(ConfigError, match="fewer than one batch of 8"):
        train_batches(ArraySource({"a": np.zeros(3)}), 8, seed=0)
    assert isinstance(train_batches(grain.MapDataset.range(8), 4, seed=0), grain.MapDataset)


def test_map_chunks_sees_whole_chunks_and_drops_padding():
    seen = []

    def batch_fn(chunk):
        seen.append(chunk["x"].shape)
        return {"y": chunk["x"] * 2 + jnp.max(chunk["x"]) * 0, "n": jnp.full(chunk["x"].shape[:1], chunk["x"].shape[0])}

    out = jax.jit(lambda t: sim.map_chunks(batch_fn, t, 4))({"x": jnp.arange(10.0)})
    np.testing.assert_array_equal(out["y"], 2 * np.arange(10.0))
    assert seen == [(4,)] and np.all(out["n"] == 4)  # traced once, on a chunk of 4 rows


def test_sweep_is_parameters_outside_instances_inside():
    params = jnp.array([1.0, 2.0, 3.0])
    xs, ys = jnp.arange(5.0), jnp.arange(5.0) * 10
    out = jax.jit(lambda p, x, y: sim.sweep(lambda a, xi, yi: a * xi + yi, p, x, y, chunk_size=2))(params, xs, ys)
    assert out.shape == (3, 5)
    for i, a in enumerate([1.0, 2.0, 3.0]):
        np.testing.assert_allclose(out[i], a * np.arange(5.0) + np.arange(5.0) * 10)


def test_grid_fixed_arrays_are_arguments_not_constants():
    def f(a, scale, power):
        return scale * a**power

    first = sim.grid(f, {"a": [1.0, 2.0]}, scale=3.0, static={"power": 2})
    second = sim.grid(f, {"a": [1.0, 2.0]}, scale=5.0, static={"power": 2})
    np.testing.assert_allclose(first, [3.0, 12.0])
    np.testing.assert_allclose(second, [5.0, 20.0])
    assert sim._grid_program.cache_info().hits >= 1  # the second call reused the compiled program


def test_bucket_size_and_pad_rows():
    assert [sim.bucket_size(n) for n in (1, 6, 32, 33)] == [32, 32, 32, 64]
    assert sim.bucket_size(100, chunk_size=16) == 112
    padded = sim.pad_rows({"a": np.arange(3), "b": jnp.ones((3, 2))}, 5)
    np.testing.assert_array_equal(padded["a"], [0, 1, 2, 2, 2])
    assert isinstance(padded["a"], np.ndarray) and padded["b"].shape == (5, 2)


def test_jit_vmap_chunked_is_cached():
    assert sim.jit_vmap_chunked(trial, 3) is sim.jit_vmap_chunked(trial, 3)


def test_check_range_arrays_nan_and_tracers():
    from jaxpapers.core.checks import check_range, require_x64
    from jaxpapers.core.errors import PrecisionError

    check_range("x", np.array([0.0, 0.5, 1.0]), 0, 1)
    with pytest.raises(ConfigError, match=r"x\[1, 0\]=2.0 is out of range; allowed \[0, 1\]"):
        check_range("x", np.array([[0.5], [2.0]]), 0, 1)
    with pytest.raises(ConfigError, match="x=nan is out of range"):
        check_range("x", float("nan"), 0, 1)
    with pytest.raises(ConfigError, match=r"alpha=0 is out of range; allowed \(0, 1\]"):
        check_range("alpha", 0, 0, 1, lo_open=True)
    jax.jit(lambda v: check_range("v", v, 0, 1) or v)(5.0)  # traced: not inspectable, passes
    with pytest.raises(PrecisionError, match="needs float64"):
        require_x64("the solver")
    with jax.enable_x64(True):
        require_x64("the solver")


def test_memo_shared_runs_a_study_once_per_inputs_and_precision():
    from jaxpapers.core import config, memo

    memo.clear()
    calls = []

    def study(tag):
        calls.append(tag)
        return jnp.ones(()) * len(calls)

    cfg = config.load("example/copy:tiny")
    key = jax.random.key(0)
    a = memo.shared("s", cfg, key, fn=lambda: study("a"))
    b = memo.shared("s", config.load("example/copy:tiny"), jax.random.key(0), fn=lambda: study("b"))
    c = memo.shared("s", cfg, jax.random.key(1), fn=lambda: study("c"))
    with jax.enable_x64(True):
        d = memo.shared("s", cfg, key, fn=lambda: study("d"))
    assert calls == ["a", "c", "d"] and a is b and c is not a and d is not a
    memo.clear()


def test_check_fits_in_memory_names_the_need_and_what_is_available():
    from jaxpapers.core import checks

    available = checks.available_memory_bytes()
    assert 0 < available < 1 << 50  # read from /proc/meminfo: a real figure, not a default
    checks.check_fits_in_memory("a small array", 1 << 20)  # 1 MiB fits anywhere this runs
    with pytest.raises(ConfigError, match=r"the table needs 1024\.0 TiB but this machine has .* available; shrink it"):
        checks.check_fits_in_memory("the table", 1 << 50, hint="shrink it")
