"""COMONet against a float64 NumPy re-implementation of the spec's layer equations, plus structure tests."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.comonet.layers import PosDense, concave_act, convex_act, sigma_m
from jaxpapers.comonet.model import COMONet, count_params, random_params
from jaxpapers.comonet.regimes import parse_regimes
from jaxpapers.core.errors import ConfigError

NINE = ("free", "inc", "dec", "cvx", "ccv", "cvx_inc", "cvx_dec", "ccv_inc", "ccv_dec")


def draw_params(model, x, scale=0.5, seed=0):
    """Parameters of the model's shapes with every leaf ~ N(0, scale²) (no init compile)."""
    template = jax.eval_shape(model.init, jax.random.key(0), x)["params"]
    return jax.tree.map(lambda a: jnp.asarray(a[0]), random_params(template, jax.random.key(seed), 1, scale))


def numpy_comonet(params, regimes, x, depth, act):
    """The spec's equations 1-6 written directly in float64 NumPy (independent of the Linen code)."""
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), params)
    spec = parse_regimes(regimes)
    x = np.asarray(x, np.float64) * np.asarray(spec.flip)
    g = spec.groups
    cols = {k: (x[:, list(v)] if v else None) for k, v in g.items()}
    e = lambda raw: np.exp(np.minimum(raw, 8.0))
    sm = lambda z: 0.99 * np.clip(z, 0, 1) + 0.01 * z
    sp = (lambda z: np.logaddexp(0.0, z)) if act == "softplus" else (lambda z: np.maximum(z, 0.0))
    sv = lambda z: -sp(-z)
    r, m, hc, hv = cols["U"], cols["M"], None, None
    has_c, has_v = bool(g["C"] or g["CM"]), bool(g["V"] or g["VM"])
    for l in range(depth):
        conf = {}
        if r is not None:
            for s, present in (("mono", m is not None), ("convex", has_c), ("concave", has_v)):
                if present:
                    q = p[f"conf_{s}_{l}"]["dense"]
                    conf[s] = sm(r @ q["kernel"] + q["bias"])
            r_next = np.maximum(r @ p[f"free_{l}"]["kernel"] + p[f"free_{l}"]["bias"], 0.0)
        if m is not None:
            inp = m if "mono" not in conf else np.concatenate([m, conf["mono"]], axis=1)
            q = p[f"mono_{l}"]["dense"]
            m = sm(inp @ e(q["raw_kernel"]) + q["bias"])
        for s, h_prev, x_lin, x_pos, act_fn in (
            ("convex", hc, cols["C"], cols["CM"], sp),
            ("concave", hv, cols["V"], cols["VM"], sv),
        ):
            if (s == "convex" and not has_c) or (s == "concave" and not has_v):
                continue
            q = p[f"{s}_{l}"]
            z = q["bias"].copy()
            if h_prev is not None:
                z = z + h_prev @ e(q["hidden"]["raw_kernel"])
            if x_lin is not None:
                z = z + x_lin @ q["x_lin"]["kernel"]
            if x_pos is not None:
                z = z + x_pos @ e(q["x_pos"]["raw_kernel"])
            if m is not None:
                z = z + m @ e(q["mono"]["raw_kernel"])
            if s in conf:
                z = z + conf[s] @ e(q["conf"]["raw_kernel"])
            if s == "convex":
                hc = act_fn(z)
            else:
                hv = act_fn(z)
        if r is not None:
            r = r_next
    y = p["bias"] + 0.0
    for name, v in (("out_convex", hc), ("out_concave", hv), ("skip_cm", cols["CM"]), ("skip_vm", cols["VM"])):
        if v is not None:
            y = y + v @ e(p[name]["raw_kernel"])
    if m is not None:
        y = y + m @ e(p["out_mono"]["raw_kernel"])
    for name, v in (("out_free", r), ("skip_c", cols["C"]), ("skip_v", cols["V"])):
        if v is not None:
            y = y + v @ p[name]["kernel"]
    return y


@pytest.mark.parametrize("act", ["softplus", "relu"])
@pytest.mark.parametrize(
    "regimes",
    [NINE, ("inc", "free", "dec"), ("cvx",), ("cvx", "free"), ("ccv_dec", "inc"), ("free", "free"), ("cvx_inc",)],
)
def test_matches_numpy_reference_in_float64(x64, regimes, act):
    model = COMONet(regimes, hidden=3, depth=2, act=act)
    x = jax.random.normal(jax.random.key(1), (7, len(regimes)), jnp.float64)
    params = jax.tree.map(lambda a: a.astype(jnp.float64), draw_params(model, x, scale=1.0))
    got = np.asarray(model.apply({"params": params}, x))
    np.testing.assert_allclose(got, numpy_comonet(params, regimes, x, 2, act), rtol=1e-12, atol=1e-12)


def test_param_paths_are_pinned():
    model = COMONet(NINE, hidden=4, depth=1)
    params = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, 9)))["params"]
    paths = sorted("/".join(str(k.key) for k in path) for path, _ in jax.tree_util.tree_flatten_with_path(params)[0])
    assert paths == sorted(
        [
            "bias",
            "conf_concave_0/dense/bias",
            "conf_concave_0/dense/kernel",
            "conf_convex_0/dense/bias",
            "conf_convex_0/dense/kernel",
            "conf_mono_0/dense/bias",
            "conf_mono_0/dense/kernel",
            "concave_0/bias",
            "concave_0/conf/raw_kernel",
            "concave_0/mono/raw_kernel",
            "concave_0/x_lin/kernel",
            "concave_0/x_pos/raw_kernel",
            "convex_0/bias",
            "convex_0/conf/raw_kernel",
            "convex_0/mono/raw_kernel",
            "convex_0/x_lin/kernel",
            "convex_0/x_pos/raw_kernel",
            "free_0/bias",
            "free_0/kernel",
            "mono_0/dense/bias",
            "mono_0/dense/raw_kernel",
            "out_concave/raw_kernel",
            "out_convex/raw_kernel",
            "out_free/kernel",
            "out_mono/raw_kernel",
            "skip_c/kernel",
            "skip_cm/raw_kernel",
            "skip_v/kernel",
            "skip_vm/raw_kernel",
        ]
    )
    full = jax.eval_shape(COMONet(NINE).init, jax.random.key(0), jnp.zeros((1, 9)))["params"]
    assert count_params(full) == 4935  # the 9-regime model at widths 16, depth 2


@pytest.mark.parametrize("regimes", [("inc",), ("cvx",), ("ccv_inc",), ("free",), ("dec", "dec"), ("cvx", "ccv")])
def test_partial_configurations_build_no_empty_layers(regimes):
    """Empty groups create no zero-size Dense layer (pitfall), and absent streams are not built."""
    model = COMONet(regimes, hidden=3, depth=2)
    params = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((2, len(regimes))))["params"]
    assert all(0 not in a.shape for a in jax.tree.leaves(params))
    names = set(params)
    spec = parse_regimes(regimes)
    assert ("mono_0" in names) == bool(spec.group("M"))
    assert ("convex_0" in names) == bool(spec.group("C") or spec.group("CM"))
    assert ("free_0" in names) == bool(spec.group("U"))
    assert not any(k.startswith("conf_") for k in names) or spec.group("U")


@pytest.mark.parametrize("inc, dec", [("inc", "dec"), ("cvx_inc", "cvx_dec"), ("ccv_inc", "ccv_dec")])
def test_flip_lives_in_call(inc, dec):
    """dec with params P on x equals inc with the same P on the negated column (pitfall: flip in __call__)."""
    regimes_dec = ("free", dec, "cvx")
    regimes_inc = ("free", inc, "cvx")
    m_dec, m_inc = COMONet(regimes_dec, hidden=4), COMONet(regimes_inc, hidden=4)
    x = jax.random.normal(jax.random.key(3), (16, 3))
    params = draw_params(m_dec, x)
    neg = x.at[:, 1].multiply(-1.0)
    np.testing.assert_allclose(m_dec.apply({"params": params}, x), m_inc.apply({"params": params}, neg), rtol=1e-6)


def test_outputs_shapes_dtypes_and_jit_variants():
    model = COMONet(("cvx_inc", "free", "dec"), hidden=4, n_out=3)
    x = jax.random.normal(jax.random.key(0), (5, 3))
    params = draw_params(model, x)

    eager = model.apply({"params": params}, x)
    jitted = jax.jit(model.apply)({"params": params}, x)
    chex.assert_shape(eager, (5, 3))
    chex.assert_trees_all_close(eager, jitted, rtol=1e-6)
    assert eager.dtype == jnp.float32
    with jax.enable_x64(True):
        p64 = jax.tree.map(lambda a: a.astype(jnp.float64), params)
        assert model.apply({"params": p64}, x.astype(jnp.float64)).dtype == jnp.float64


def test_exp_clamp_keeps_outputs_finite():
    """Raw weights far above the clamp (as training can push them) give finite outputs (pitfall)."""
    model = COMONet(NINE, hidden=4)
    x = jnp.ones((3, 9))
    params = draw_params(model, x)
    huge = jax.tree_util.tree_map_with_path(  # every raw weight 1e4
        lambda path, a: jnp.full_like(a, 1e4) if path[-1].key == "raw_kernel" else a, params
    )
    assert np.all(np.isfinite(model.apply({"params": huge}, x)))
    y = PosDense(2).apply({"params": {"raw_kernel": jnp.array([[1e4, -1e4]])}}, jnp.ones((1, 1)))
    np.testing.assert_allclose(y, [[np.exp(8.0), np.exp(-1e4)]], rtol=1e-6)


def test_activations_closed_forms():
    z = jnp.linspace(-3, 3, 13)
    np.testing.assert_allclose(sigma_m(z), 0.99 * np.clip(z, 0, 1) + 0.01 * z, rtol=1e-6)
    np.testing.assert_allclose(convex_act(z), np.log1p(np.exp(z)), rtol=1e-6)
    np.testing.assert_allclose(convex_act(z, beta=2.0), np.log1p(np.exp(2 * z)) / 2, rtol=1e-6)
    np.testing.assert_allclose(concave_act(z, "relu"), np.minimum(z, 0.0))
    assert np.all(np.diff(sigma_m(z)) > 0)
    with pytest.raises(ConfigError, match="act='tanh'"):
        convex_act(z, "tanh")


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        (dict(regimes=("inc", "up")), r"regime 'up' \(position 1\)"),
        (dict(regimes=("inc",), act="tanh"), r"act='tanh' is not allowed; choose 'softplus' or 'relu'"),
        (dict(regimes=("inc",), depth=0), r"depth=0 is out of range"),
        (dict(regimes=("inc",), hidden={"mono": 4, "attention": 2}), r"stream 'attention'"),
        (dict(regimes=("inc",), hidden=0), r"hidden\['free'\]=0"),
        (dict(regimes=("inc",), control="flip"), r"control='flip'"),
        (dict(regimes=("inc",), control="convex_identity"), r"needs a convex variable"),
        (dict(regimes=("inc",), control="confluence_leak"), r"needs at least one free"),
    ],
)
def test_bad_model_arguments(kwargs, pattern):
    with pytest.raises(ConfigError, match=pattern):
        COMONet(**kwargs)


def test_wrong_input_width_names_x():
    model = COMONet(("inc", "free"))
    with pytest.raises(ConfigError, match=r"x has shape \(4, 3\); expected \(\*, 2\)"):
        model.init(jax.random.key(0), jnp.zeros((4, 3)))


def test_hidden_per_stream():
    model = COMONet(NINE, hidden={"free": 2, "mono": 3, "convex": 4, "concave": 5, "confluence": 6}, depth=1)
    params = jax.eval_shape(model.init, jax.random.key(0), jnp.zeros((1, 9)))["params"]
    assert params["free_0"]["kernel"].shape == (1, 2)
    assert params["mono_0"]["dense"]["raw_kernel"].shape == (2 + 6, 3)
    assert params["convex_0"]["bias"].shape == (4,)
    assert params["concave_0"]["bias"].shape == (5,)
