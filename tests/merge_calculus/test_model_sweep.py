"""Model, init, the vmapped sweep against a plain loop, scoring, η* refinement, Ĉ against finite differences."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.merge_calculus as mc
from jaxpapers.core.errors import ConfigError
from jaxpapers.merge_calculus.calculus import propagate
from jaxpapers.merge_calculus.model import apply_graph, cross_entropy, init_std
from jaxpapers.merge_calculus.sweep import data_order, one_step_change, pick_eta, run_scores, sweep_fn, sweep_program

GRAPHS = ["chain:2", "res:3", "concat:1,2:1:lin", "fusion:2,2", "cell:1_21_121"]


@pytest.mark.parametrize("name", GRAPHS)
def test_dagnet_matches_host_init_and_apply_graph(name):
    g = mc.from_name(name)
    model = mc.DagNet(g, 8, 3)
    x = jax.random.normal(jax.random.key(0), (5, 4))
    flax_params = model.init(jax.random.key(1), x)["params"]
    host = mc.init_params(g, 8, 3, 4, seed=0)
    assert jax.tree.structure(flax_params) == jax.tree.structure(host)
    assert jax.tree.map(jnp.shape, flax_params) == jax.tree.map(np.shape, host)
    np.testing.assert_allclose(model.apply({"params": host}, x), apply_graph(g, host, x), rtol=1e-5, atol=1e-6)
    _, outs = model.apply({"params": host}, x, edges=True)
    _, outs2 = apply_graph(g, host, x, edges=True)
    assert set(outs) == set(outs2) and "h_F" in outs


def test_init_variances_match_flax_and_spec():
    g = mc.from_name("concat:1,2:1:lin")
    flax_params = mc.DagNet(g, 256, 10).init(jax.random.key(0), jnp.zeros((1, 64)))["params"]
    host = mc.init_params(g, 256, 10, 64, seed=0)
    for name, (fan_in, _, std) in init_std(g, 256, 64).items():
        assert np.std(host[name]["kernel"]) == pytest.approx(std, rel=0.05)
        assert np.std(np.asarray(flax_params[name]["kernel"])) == pytest.approx(std, rel=0.05)
        assert host[name]["kernel"].shape[0] == fan_in
    (after,) = [e for e in g.edges if g.merges[e.src] == "concat"]
    assert host[f"edge_{after.src}_{after.dst}"]["kernel"].shape[0] == 2 * 256  # concat: full fan-in
    assert np.std(host["readout"]["kernel"]) == pytest.approx(1 / 256, rel=0.1)  # μP readout Var 1/fan_in²
    m = mc.lr_multipliers(g, 256)
    assert m["edge_0_1"]["kernel"] == 256 and m["edge_1_2"]["kernel"] == 1 and m["readout"]["kernel"] == 1 / 256
    assert set(jax.tree.leaves(mc.lr_multipliers(g, 256, "sp"))) == {1.0}
    with pytest.raises(ConfigError, match="param='ntk' is not allowed"):
        mc.lr_multipliers(g, 256, "ntk")


def numpy_forward(g, params, x):
    """Every node's activation by a plain NumPy walk (independent of apply_graph)."""
    h = [x]
    for v in range(1, g.n_nodes):
        parts = []
        for e in g.edges:
            if e.dst != v:
                continue
            hu = h[e.src]
            if e.kind == "id":
                parts.append(e.a * hu)
            else:
                parts.append(
                    e.a * ((hu if e.src == 0 else np.maximum(hu, 0)) @ params[f"edge_{e.src}_{e.dst}"]["kernel"])
                )
        h.append(np.sum(parts, 0) if g.merges[v] == "sum" else np.concatenate(parts, -1))
    return h


@pytest.mark.parametrize(
    "name", ["res:4", "concat:2,2", "sum:3,3", "fusion:1,2:1:lin", "hybrid:2:1,2", "cell:2_12_112"]
)
def test_forward_second_moments_match_q(name):
    """Pitfall: q_v of the calculus ≈ measured mean h_v² at init (no forward blow-up of uniform sums)."""
    g = mc.from_name(name)
    params = mc.init_params(g, 1024, 10, 256, seed=0)
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    h = numpy_forward(g, params, x)
    measured = np.array([np.mean(hv**2) for hv in h])
    np.testing.assert_allclose(measured, propagate(g).q, rtol=0.12)
    np.testing.assert_allclose(
        np.asarray(apply_graph(g, params, jnp.asarray(x), edges=True)[1]["h_F"]), h[-1], rtol=2e-3, atol=2e-3
    )


def test_correlated_identity_paths_break_q():
    """Known limit of the calculus: two id paths from one node into a sum add coherently (cell 1_21_121)."""
    g = mc.chen_cell("1_21_121")
    params = mc.init_params(g, 1024, 10, 256, seed=0)
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    measured = np.mean(numpy_forward(g, params, x)[-1] ** 2)
    assert measured > 1.3 * propagate(g).q[-1]


def test_sweep_program_matches_plain_loop():
    g = mc.chain(1)
    d = mc.synthetic(n=64, d=6, classes=3)
    seeds, lrs, steps, batch = (0, 1), np.array([0.05, 0.3, 2.0]), 5, 8
    params0 = [mc.init_params(g, 8, 3, 6, s) for s in seeds]
    idx = data_order(64, seeds, steps, batch)
    stacked = jax.tree.map(lambda *p: jnp.stack(p), *params0)
    got = np.asarray(
        sweep_program(g, 8, 3)(
            stacked, jnp.asarray(lrs, jnp.float32), jnp.asarray(idx), jnp.asarray(d["x"]), jnp.asarray(d["y"])
        )
    )
    mult = mc.lr_multipliers(g, 8)
    loss = jax.jit(lambda p, x, y: cross_entropy(apply_graph(g, p, x), y))
    grad = jax.jit(jax.grad(lambda p, x, y: cross_entropy(apply_graph(g, p, x), y)))
    for i in range(len(seeds)):
        for j, lr in enumerate(lrs):
            p = jax.tree.map(np.array, params0[i])
            for t in range(steps):
                x, y = d["x"][idx[i, t]], d["y"][idx[i, t]]
                assert got[i, j, t] == pytest.approx(float(loss(p, x, y)), rel=1e-4, abs=1e-5)
                gr = grad(p, x, y)
                p = jax.tree.map(lambda w, m, gg, lr=lr: w - lr * m * np.asarray(gg), p, mult, gr)


def test_sweep_jaxpr_has_no_random_draw():
    g = mc.residual(2)
    params = jax.tree.map(lambda a: jnp.stack([a]), mc.init_params(g, 8, 3, 6, 0))
    jaxpr = jax.make_jaxpr(sweep_fn(g, 8, 3))(
        params, jnp.ones(2), jnp.zeros((1, 3, 4), jnp.int32), jnp.zeros((10, 6)), jnp.zeros(10, jnp.int32)
    )
    text = str(jaxpr)
    assert "random_bits" not in text and "random_wrap" not in text.replace("random_wrap[impl=fry]", "")


def test_scores_and_refinement():
    losses = np.ones((1, 4, 10))
    losses[0, 1] = np.linspace(2, 0, 10)
    losses[0, 2, 3] = np.nan
    losses[0, 3, 8:] = 5.0  # last 20% above twice the initial loss: diverged
    s = run_scores(losses)
    assert s[0, 0] == 1.0 and s[0, 1] == pytest.approx(1.0) and np.isinf(s[0, 2]) and np.isinf(s[0, 3])
    assert run_scores(losses, "tail")[0, 1] == pytest.approx(np.linspace(2, 0, 10)[8:].mean())
    lrs = np.geomspace(0.01, 1, 9)
    true = np.log(0.123)
    score = ((np.log(lrs) - true) ** 2)[None]
    eta, refined, edge = pick_eta(lrs, score)
    assert refined == pytest.approx(0.123, rel=1e-9) and not edge
    assert pick_eta(lrs, ((np.log(lrs) - np.log(5.0)) ** 2)[None])[2]  # optimum beyond the grid: flagged
    with pytest.raises(ConfigError, match="score='last' is not allowed"):
        run_scores(losses, "last")


def test_data_order():
    idx = data_order(100, (0, 1), 7, 30)
    assert idx.shape == (2, 7, 30) and idx.min() >= 0 and idx.max() < 100
    assert not np.array_equal(idx[0], idx[1])
    assert len(set(idx[0].ravel()[:100])) == 100  # epochs are permutations
    with pytest.raises(ConfigError, match="batch=200 is out of range"):
        data_order(100, (0,), 3, 200)


def test_lr_sweep_bad_inputs():
    d = mc.synthetic(n=32, d=4, classes=3)
    with pytest.raises(ConfigError, match="lrs\\[1\\]=-0.1 is out of range"):
        mc.lr_sweep(mc.chain(1), d, [0.1, -0.1, 1.0], (0,), 3, 8, 4)
    with pytest.raises(ConfigError, match="data\\['y'\\] has shape"):
        mc.lr_sweep(mc.chain(1), {"x": d["x"], "y": d["y"][:5]}, [0.1, 1.0, 2.0], (0,), 3, 8, 4)


def test_one_step_change_matches_finite_difference():
    g = mc.from_name("concat:1,2")
    d = mc.synthetic(n=32, d=6, classes=3)
    p = mc.init_params(g, 16, 3, 6, 0)
    x, y = jnp.asarray(d["x"]), jnp.asarray(d["y"])
    got = float(jax.jit(functools.partial(one_step_change, spec=g, width=16, n_out=3))(p, x, y))
    gr = jax.jit(jax.grad(lambda q: cross_entropy(apply_graph(g, q, x), y)))(p)
    m = mc.lr_multipliers(g, 16)
    eps = 1e-3

    @jax.jit
    def change(eps):  # central differences of every lin-edge output and h_F along −(m ⊙ g)
        plus = jax.tree.map(lambda w, mm, gg: w - eps * mm * gg, p, m, gr)
        minus = jax.tree.map(lambda w, mm, gg: w + eps * mm * gg, p, m, gr)
        a, b = apply_graph(g, plus, x, edges=True)[1], apply_graph(g, minus, x, edges=True)[1]
        return sum(jnp.mean(((a[k] - b[k]) / (2 * eps)) ** 2) for k in a)

    assert got == pytest.approx(float(change(eps)), rel=1e-2)
