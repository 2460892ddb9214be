"""Shared layers against NumPy references and by-construction properties."""

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import nn as jpnn
from jaxpapers.core.errors import UnknownNameError


def numpy_attention(q, k, v, mask):
    """float64 reference: softmax(q kᵀ/√H) v per batch and head, masked entries excluded."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    logits = np.einsum("bsnh,btnh->bnst", q, k) / np.sqrt(q.shape[-1])
    logits = np.where(mask, logits, -np.inf)
    w = np.exp(logits - logits.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return np.einsum("bnst,btnh->bsnh", w, v)


@pytest.fixture
def qkv():
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    shape = (2, 7, 3, 8)
    return jax.random.normal(k1, shape), jax.random.normal(k2, shape), jax.random.normal(k3, shape)


@pytest.mark.parametrize("impl", ["xla", "dot_product"])
def test_attention_impls_match_numpy(qkv, impl):
    q, k, v = qkv
    fn = jpnn.get_attention(impl)
    full = np.ones((2, 3, 7, 7), bool)
    np.testing.assert_allclose(fn(q, k, v), numpy_attention(q, k, v, full), atol=2e-5)
    causal = np.broadcast_to(np.tril(np.ones((7, 7), bool)), full.shape)
    np.testing.assert_allclose(fn(q, k, v, is_causal=True), numpy_attention(q, k, v, causal), atol=2e-5)
    rng = np.random.default_rng(1)
    mask = rng.random(full.shape) < 0.6
    mask[..., 0] = True  # every row keeps one key
    np.testing.assert_allclose(fn(q, k, v, mask=jnp.asarray(mask)), numpy_attention(q, k, v, mask), atol=2e-5)


def test_fully_masked_rows_give_zero_not_nan(qkv):
    q, k, v = qkv
    mask = jnp.zeros((2, 3, 7, 7), bool).at[:, :, :3].set(True)
    out = jpnn.xla_attention(q, k, v, mask=mask)
    assert np.isfinite(out).all() and np.all(np.asarray(out[:, 3:]) == 0)
    grads = jax.grad(lambda q: jpnn.xla_attention(q, k, v, mask=mask).sum())(q)
    assert np.isfinite(grads).all()


def test_unknown_attention_impl_lists_choices():
    with pytest.raises(UnknownNameError, match="attention impl 'flash' does not exist; choose one of dot_product, xla"):
        jpnn.get_attention("flash")


def test_register_attention_is_used_by_the_module(qkv):
    calls = []

    def spy(q, k, v, *, mask=None, is_causal=False, tag=None):
        calls.append(tag)
        return jpnn.xla_attention(q, k, v, mask=mask, is_causal=is_causal)

    jpnn.register_attention("spy", spy)
    try:
        x = jnp.ones((1, 5, 16))
        mha = jpnn.MultiHeadAttention(num_heads=2, head_dim=8, impl="spy")
        params = mha.init(jax.random.key(0), x, tag="init")
        mha.apply(params, x, tag="apply")
        assert calls == ["init", "apply"]
    finally:
        jpnn.ATTENTION_IMPLS.pop("spy")


def test_rope_preserves_norms_and_depends_on_relative_position():
    rng = np.random.default_rng(0)
    q = jnp.asarray(rng.normal(size=(1, 1, 1, 16)), jnp.float32)
    k = jnp.asarray(rng.normal(size=(1, 1, 1, 16)), jnp.float32)

    def rotated(x, pos):
        return jpnn.apply_rotary(x, jpnn.rope_angles(jnp.array([[pos]]), 16))

    np.testing.assert_allclose(jnp.linalg.norm(rotated(q, 7)), jnp.linalg.norm(q), rtol=1e-6)
    dot = lambda a, b: float(jnp.sum(rotated(q, a) * rotated(k, b)))  # noqa: E731
    assert dot(3, 1) == pytest.approx(dot(12, 10), rel=1e-5)  # only the offset matters
    assert dot(3, 1) != pytest.approx(dot(3, 2), rel=1e-3)
    part = jpnn.apply_rotary(q, jpnn.rope_angles(jnp.array([[5]]), 8))  # rotate 8 of 16 channels
    np.testing.assert_array_equal(part[..., 8:], q[..., 8:])
    with pytest.raises(ValueError, match="must be even"):
        jpnn.rope_angles(jnp.array([[1]]), 7)


@pytest.mark.parametrize("remat", [False, True])
def test_scanned_stack_equals_unrolled_stack(remat):
    """Naming rule: unrolled ``layers_{i}``, scanned ``layers`` = the unrolled params stacked (no wrapper)."""
    kw = dict(depth=2, num_heads=2, head_dim=8, mlp_dim=32, is_causal=True, remat=remat)
    x = jax.random.normal(jax.random.key(1), (2, 6, 16))
    unrolled = jpnn.TransformerStack(**kw)
    scanned = jpnn.TransformerStack(**kw, scan_layers=True)
    p = nn.unbox(unrolled.init(jax.random.key(0), x))["params"]
    assert sorted(p) == ["layers_0", "layers_1"]
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), p["layers_0"], p["layers_1"])
    want = unrolled.apply({"params": p}, x)
    got = scanned.apply({"params": {"layers": stacked}}, x)
    chex.assert_trees_all_close(got, want, atol=1e-5)
    abstract = jax.eval_shape(lambda k: scanned.init(k, x), jax.random.key(0))
    chex.assert_trees_all_equal_shapes(nn.unbox(abstract)["params"], {"layers": stacked})
    spec = nn.get_partition_spec(abstract)
    assert tuple(spec["params"]["layers"]["attn"]["query"]["kernel"]) == ("layers", "embed", "heads", "kv")
    if remat:  # the backward pass of the rematerialised scan (prevent_cse=False) equals the loop's
        g_scan = jax.grad(lambda q: scanned.apply({"params": {"layers": q}}, x).sum())(stacked)
        g_loop = jax.grad(lambda q: unrolled.apply({"params": q}, x).sum())(p)
        chex.assert_trees_all_close(g_scan, jax.tree.map(lambda *xs: jnp.stack(xs), *g_loop.values()), atol=1e-4)


class _CountingBlock(nn.Module):
    """x ← x·w + c_i with a per-layer input c_i and a per-layer output (the running sum)."""

    @nn.compact
    def __call__(self, x, scale, c):
        w = self.param("w", nn.initializers.normal(1.0), (x.shape[-1], x.shape[-1]))
        x = jnp.tanh(x @ w * scale + c)
        return x, x.sum()


@pytest.mark.parametrize("remat", [False, True])
def test_stack_layers_threads_layer_inputs_and_stacks_extras(remat):
    """``stack_layers`` for any block: scanned == unrolled == a plain NumPy loop over the same params."""

    class Net(nn.Module):
        scan: bool

        @nn.compact
        def __call__(self, x, cs):
            return jpnn.stack_layers(
                _CountingBlock, {}, x, 0.5, depth=3, layer_inputs=(cs,), scan_layers=self.scan, remat=remat
            )

    x = jax.random.normal(jax.random.key(2), (4, 5))
    cs = jax.random.normal(jax.random.key(3), (3, 5))
    p = Net(False).init(jax.random.key(0), x, cs)["params"]
    x_loop, (sums_loop,) = Net(False).apply({"params": p}, x, cs)
    stacked = {"layers": jax.tree.map(lambda *a: jnp.stack(a), *(p[f"layers_{i}"] for i in range(3)))}
    x_scan, (sums_scan,) = Net(True).apply({"params": stacked}, x, cs)
    want, sums = np.asarray(x, np.float64), []
    for i in range(3):
        want = np.tanh(want @ np.asarray(p[f"layers_{i}"]["w"], np.float64) * 0.5 + np.asarray(cs[i], np.float64))
        sums.append(want.sum())
    for got_x, got_sums in ((x_loop, sums_loop), (x_scan, sums_scan)):
        np.testing.assert_allclose(got_x, want, atol=1e-5)
        np.testing.assert_allclose(got_sums, sums, rtol=1e-5)


@pytest.mark.parametrize(
    "equation,x_shape,shape,names",
    [
        ("...d,dnh->...nh", (2, 3, 4, 6), (6, 2, 5), ("embed", "heads", "kv")),
        ("...nh,nhd->...d", (2, 3, 2, 5), (2, 5, 6), ("heads", "kv", "embed")),
        ("bsd,df->bsf", (2, 3, 6), (6, 7), ("embed", "mlp")),
    ],
)
def test_einsum_matches_numpy_einsum(equation, x_shape, shape, names):
    x = jax.random.normal(jax.random.key(4), x_shape)
    layer = jpnn.Einsum(shape, names, equation, use_bias=True, bias_init=nn.initializers.normal(1.0))
    variables = layer.init(jax.random.key(0), x)
    p = nn.unbox(variables)["params"]
    want = np.einsum(equation, np.asarray(x, np.float64), np.asarray(p["kernel"], np.float64)) + np.asarray(
        p["bias"], np.float64
    )
    np.testing.assert_allclose(layer.apply(variables, x), want, rtol=1e-5, atol=1e-5)
    spec = nn.get_partition_spec(variables)["params"]
    assert tuple(spec["kernel"]) == names
    w_spec, out = equation.split(",")[1].split("->")
    assert tuple(spec["bias"]) == tuple(n for n, c in zip(names, w_spec, strict=True) if c in out)  # the output axes


def test_einsum_default_init_uses_the_contracted_axes_as_fan_in():
    """LeCun normal: Var(w) = 1/fan_in with fan_in = the contracted kernel axes (D=64 here, not N·D or N·H)."""
    for shape, equation, fan_in in (((64, 8, 16), "...d,dnh->...nh", 64), ((8, 16, 64), "...nh,nhd->...d", 128)):
        layer = jpnn.Einsum(shape, (None, None, None), equation)
        w = nn.unbox(layer.init(jax.random.key(0), jnp.ones((1, *shape[: 1 if fan_in == 64 else 2]))))["params"]
        var = float(np.var(np.asarray(w["kernel"], np.float64)))
        assert var == pytest.approx(1 / fan_in, rel=0.1)  # 8192 samples: the sd of the estimate is ~2 %


def test_einsum_errors_name_the_problem():
    x = jnp.ones((2, 6))
    with pytest.raises(ValueError, match="has 3 axes but shape=\\(6, 2\\)"):
        jpnn.Einsum((6, 2), ("embed", "heads"), "...d,dnh->...nh").init(jax.random.key(0), x)
    with pytest.raises(ValueError, match="letters-only kernel spec"):
        jpnn.Einsum((6, 2), ("embed", "heads"), "...d->...n").init(jax.random.key(0), x)
    with pytest.raises(ValueError, match="to end the output"):
        jpnn.Einsum((6, 2), ("embed", "heads"), "bd,dn->nb", use_bias=True).init(jax.random.key(0), x)


FRAME_ACT = ("batch", "frames", "length", "embed")
RULES = (("batch", "data"), ("frames", "sequence"), ("length", None), ("embed", None), ("mlp", "tensor"),
         ("heads", "tensor"), ("kv", None))  # fmt: skip


def _frame_attention(q, k, v, *, mask=None, is_causal=False):
    """q/k/v [B, T, P, N, H]: attention over all T·P tokens (a 4-D activation impl for the core MHA)."""
    b, t, p, n, h = q.shape
    flat = lambda a: a.reshape(b, t * p, n, h)  # noqa: E731
    return jpnn.xla_attention(flat(q), flat(k), flat(v), mask=mask, is_causal=is_causal).reshape(q.shape)


def _activation_specs(fn, *args):
    """The PartitionSpecs of the sharding constraints on rank ≥ 4 arrays (activations here; the params,
    constrained when unboxed, have rank ≤ 3) in the jaxpr of ``fn``, nested jaxprs included."""
    specs = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "sharding_constraint" and eqn.invars[0].aval.ndim >= 4:
                specs.append(tuple(eqn.params["sharding"].spec))
            for sub in jax.extend.core.jaxprs_in_params(eqn.params):
                walk(sub)

    walk(jax.make_jaxpr(fn)(*args).jaxpr)
    return specs


def test_act_axes_constrain_four_dimensional_activations():
    """MlpBlock / MultiHeadAttention / TransformerBlock on [B, T, P, D] with FuxViT's axis names: the hidden
    MLP activation, the heads and the output carry (BATCH, FRAMES, ...) → (data, sequence, ...)."""
    from jax.sharding import Mesh

    from jaxpapers.core.sharding import mesh_context

    mesh = Mesh(np.asarray(jax.devices()[:8]).reshape(2, 2, 2), ("data", "sequence", "tensor"))
    x = jax.random.normal(jax.random.key(5), (2, 4, 3, 16))
    mlp = jpnn.MlpBlock(mlp_dim=32, act_axes=FRAME_ACT)
    mha = jpnn.MultiHeadAttention(num_heads=2, head_dim=8, impl=_frame_attention, act_axes=FRAME_ACT)
    block = jpnn.TransformerBlock(num_heads=2, head_dim=8, mlp_dim=32, attn_impl=_frame_attention, act_axes=FRAME_ACT)
    act, hidden, heads = ("data", "sequence", None, None), ("data", "sequence", None, "tensor"), (
        "data", "sequence", None, "tensor", None)  # fmt: skip
    for layer, want in ((mlp, {act, hidden}), (mha, {act, heads}), (block, {act, hidden, heads})):
        variables = layer.init(jax.random.key(0), x)
        with mesh_context(mesh, RULES):  # traced only: the constraints resolve against the mesh
            specs = _activation_specs(lambda v, x: layer.apply(v, x), variables, x)  # noqa: B023
        assert set(specs) == want, (type(layer).__name__, specs)
    # numbers are those of the 3-D layer on the flattened tokens (same params)
    flat = x.reshape(2, 12, 16)
    v = mlp.init(jax.random.key(0), x)
    np.testing.assert_allclose(mlp.apply(v, x).reshape(2, 12, 16), jpnn.MlpBlock(32).apply(v, flat), atol=1e-6)
    v = mha.init(jax.random.key(0), x)
    np.testing.assert_allclose(
        mha.apply(v, x).reshape(2, 12, 16), jpnn.MultiHeadAttention(2, 8).apply(v, flat), atol=1e-5
    )
    with pytest.raises(ValueError, match="cannot take the 3 logical axes"):
        jpnn.MlpBlock(mlp_dim=32).init(jax.random.key(0), x)  # default [B, S, D] names on a 4-D input


def test_causal_block_ignores_the_future():
    x = jax.random.normal(jax.random.key(1), (1, 6, 16))
    block = jpnn.TransformerBlock(num_heads=2, head_dim=8, mlp_dim=32, is_causal=True)
    p = block.init(jax.random.key(0), x)
    y = block.apply(p, x)
    y2 = block.apply(p, x.at[:, 4:].set(9.0))
    np.testing.assert_array_equal(y[:, :4], y2[:, :4])
    assert not np.allclose(y[:, 4:], y2[:, 4:])


def test_mlp_and_patch_embed_shapes_and_errors():
    x = jnp.ones((2, 5, 16))
    mlp = jpnn.MlpBlock(mlp_dim=32)
    chex.assert_shape(mlp.apply(mlp.init(jax.random.key(0), x), x), (2, 5, 16))
    img = jnp.ones((2, 16, 24, 3))
    pe = jpnn.PatchEmbed(patch=8, dim=32)
    out = pe.apply(pe.init(jax.random.key(0), img), img)
    chex.assert_shape(out, (2, 6, 32))
    with pytest.raises(ValueError, match="image size 16x20 is not divisible by patch=8"):
        pe.init(jax.random.key(0), jnp.ones((1, 16, 20, 3)))


def test_token_embed_attend_is_tied():
    emb = jpnn.TokenEmbed(vocab_size=11, dim=8)
    tokens = jnp.array([[1, 2, 3]])
    p = emb.init(jax.random.key(0), tokens)
    x = emb.apply(p, tokens)
    logits = emb.apply(p, x, method=emb.attend)
    table = p["params"]["embedding"].value if hasattr(p["params"]["embedding"], "value") else p["params"]["embedding"]
    np.testing.assert_allclose(logits, np.einsum("bsd,vd->bsv", x, table) / np.sqrt(8), rtol=1e-6)


@pytest.mark.parametrize("kv_heads", [1, 2, 4])
def test_grouped_query_attention_matches_a_float64_reference(kv_heads):
    """GQA: query head n uses key/value head n // (N/G); G = N is plain multi-head attention."""
    b, s, d, n, h = 2, 5, 12, 4, 3
    x = jax.random.normal(jax.random.key(0), (b, s, d))
    mha = jpnn.MultiHeadAttention(num_heads=n, head_dim=h, num_kv_heads=kv_heads)
    params = mha.init(jax.random.key(1), x)
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), nn.meta.unbox(params))["params"]
    assert p["key"]["kernel"].shape == (d, kv_heads, h) and p["query"]["kernel"].shape == (d, n, h)
    xf = np.asarray(x, np.float64)
    q = np.einsum("bsd,dnh->bsnh", xf, p["query"]["kernel"])
    group = np.arange(n) // (n // kv_heads)  # the key/value head of every query head
    k = np.einsum("bsd,dgh->bsgh", xf, p["key"]["kernel"])[:, :, group]
    v = np.einsum("bsd,dgh->bsgh", xf, p["value"]["kernel"])[:, :, group]
    causal = np.tril(np.ones((s, s), bool))[None, None]
    want = np.einsum("bsnh,nhd->bsd", numpy_attention(q, k, v, causal), p["out"]["kernel"])
    got = jax.jit(lambda prm, x: mha.apply(prm, x, is_causal=True))(params, x)
    np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=1e-5)


def test_grouped_query_attention_rejects_groups_that_do_not_divide_the_heads():
    x = jnp.zeros((1, 2, 8))
    with pytest.raises(Exception, match="num_kv_heads=3 must be at least 1 and divide num_heads=4"):
        jpnn.MultiHeadAttention(num_heads=4, head_dim=2, num_kv_heads=3).init(jax.random.key(0), x)


def test_swiglu_matches_numpy():
    x = jax.random.normal(jax.random.key(2), (2, 3, 6))
    mlp = jpnn.SwiGLU(mlp_dim=10)
    params = mlp.init(jax.random.key(3), x)
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), nn.meta.unbox(params))["params"]
    assert set(p) == {"gate", "up", "down"} and all(set(p[k]) == {"kernel"} for k in p)  # no biases
    xf = np.asarray(x, np.float64)
    gate, up = xf @ p["gate"]["kernel"], xf @ p["up"]["kernel"]
    want = (gate / (1 + np.exp(-gate)) * up) @ p["down"]["kernel"]
    np.testing.assert_allclose(np.asarray(mlp.apply(params, x)), want, atol=1e-5, rtol=1e-5)


def _numpy_rms_norm(x, scale, eps=1e-6):
    return x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) * scale


def _numpy_rope(x, pos, base=10_000.0):
    """float64 RoPE on [B, S, N, H]: channel pairs (2i, 2i+1) rotated by pos · base^(-2i/H)."""
    h = x.shape[-1]
    ang = pos[..., None] * base ** (-np.arange(0, h, 2) / h)  # [B, S, H/2]
    c, s = np.cos(ang)[:, :, None], np.sin(ang)[:, :, None]
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out


def test_decoder_block_matches_a_float64_llama_reference():
    """x + Attn(RMSNorm x) with GQA, RoPE and a causal ∧ user mask, then x + SwiGLU(RMSNorm x), in NumPy."""
    b, s, d, n, g, h, f = 2, 6, 12, 4, 2, 4, 20
    x = jax.random.normal(jax.random.key(0), (b, s, d))
    pos = jnp.array([[0, 1, 2, 3, 4, 5], [3, 4, 5, 9, 10, 11]])
    user = jax.random.bernoulli(jax.random.key(5), 0.7, (b, 1, s, s)) | jnp.eye(s, dtype=bool)
    block = jpnn.DecoderBlock(num_heads=n, head_dim=h, mlp_dim=f, num_kv_heads=g)
    params = block.init(jax.random.key(1), x, user, jpnn.rope_angles(pos, h))
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), nn.meta.unbox(params))["params"]
    p["attn_norm"]["scale"] = np.linspace(0.5, 1.5, d)  # non-trivial norm scales
    p["mlp_norm"]["scale"] = np.linspace(1.5, 0.5, d)
    xf, posf = np.asarray(x, np.float64), np.asarray(pos, np.float64)
    a = _numpy_rms_norm(xf, p["attn_norm"]["scale"])
    group = np.arange(n) // (n // g)
    q = _numpy_rope(np.einsum("bsd,dnh->bsnh", a, p["attn"]["query"]["kernel"]), posf)
    k = _numpy_rope(np.einsum("bsd,dgh->bsgh", a, p["attn"]["key"]["kernel"])[:, :, group], posf)
    v = np.einsum("bsd,dgh->bsgh", a, p["attn"]["value"]["kernel"])[:, :, group]
    mask = np.tril(np.ones((s, s), bool))[None, None] & np.asarray(user)
    y = xf + np.einsum("bsnh,nhd->bsd", numpy_attention(q, k, v, mask), p["attn"]["out"]["kernel"])
    m = _numpy_rms_norm(y, p["mlp_norm"]["scale"])
    gate, up = m @ p["mlp"]["gate"]["kernel"], m @ p["mlp"]["up"]["kernel"]
    want = y + (gate / (1 + np.exp(-gate)) * up) @ p["mlp"]["down"]["kernel"]
    prm = jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), p)
    got = jax.jit(block.apply)({"params": prm}, x, user, jpnn.rope_angles(pos, h))
    np.testing.assert_allclose(np.asarray(got), want, atol=2e-5, rtol=2e-5)


def test_zero_init_decoder_block_is_the_identity_and_still_trains():
    x = jax.random.normal(jax.random.key(0), (2, 5, 8))
    block = jpnn.DecoderBlock(num_heads=2, head_dim=4, mlp_dim=16, zero_init_residual=True)
    params = block.init(jax.random.key(1), x)
    np.testing.assert_array_equal(np.asarray(block.apply(params, x)), np.asarray(x))
    grads = jax.grad(lambda prm: jnp.sum(block.apply(prm, x) ** 2))(params)
    out_grad = nn.meta.unbox(grads)["params"]["attn"]["out"]["kernel"]
    assert float(jnp.abs(out_grad).max()) > 0  # the zeroed projections receive gradient: the block can learn
