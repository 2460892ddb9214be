"""ResNet-32 and the DualPrompt ViT at tiny size: shapes, parameter counts against closed forms, prefix
attention against NumPy, key matching, and one optimiser step that lowers the loss."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.cltr.models import (
    PrefixAttention,
    PromptedViT,
    ResNet32,
    prompt_optimizer,
    pull_loss,
    resnet_param_count,
)
from jaxpapers.core.errors import ConfigError


def _count(tree) -> int:
    return sum(int(np.prod(x.shape)) for x in jax.tree.leaves(tree))


def test_resnet32_has_the_published_parameter_count_and_shapes():
    shapes = jax.eval_shape(lambda: ResNet32(10).init(jax.random.key(0), jnp.zeros((2, 32, 32, 3))))
    assert _count(shapes["params"]) == resnet_param_count(10) == 464_154  # He et al.: 0.46M for ResNet-32
    shapes100 = jax.eval_shape(lambda: ResNet32(100).init(jax.random.key(0), jnp.zeros((1, 32, 32, 3))))
    assert _count(shapes100["params"]) == resnet_param_count(100) == 464_154 - 650 + 6_500
    out = jax.eval_shape(lambda v, x: ResNet32(10).apply(v, x), shapes, jnp.zeros((3, 32, 32, 3)))
    assert out.shape == (3, 10)


def test_one_sgd_step_lowers_the_resnet_loss():
    model = ResNet32(4, blocks=1, widths=(4, 8, 8))  # the same module at ResNet-8 width 4
    rng = np.random.default_rng(0)
    y = jnp.asarray(rng.integers(0, 4, 16))
    x = jnp.asarray(rng.normal(size=(16, 8, 8, 3)) + np.asarray(y)[:, None, None, None], jnp.float32)
    v = model.init(jax.random.key(0), x)

    def loss(p, stats):
        logits, new = model.apply({"params": p, "batch_stats": stats}, x, train=True, mutable=["batch_stats"])
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), new

    @jax.jit
    def before_after(p, stats):
        (l0, _), g = jax.value_and_grad(loss, has_aux=True)(p, stats)
        return l0, loss(jax.tree.map(lambda a, b: a - 0.05 * b, p, g), stats)[0]

    l0, l1 = before_after(v["params"], v["batch_stats"])
    assert float(l1) < float(l0)


def _vit(**kw):
    base = dict(num_classes=5, patch=4, width=16, depth=5, heads=2, mlp_dim=24, pool_size=3)
    return PromptedViT(**{**base, **kw})


def test_vit_parameter_count_equals_the_closed_form():
    k, p, w, depth, m, pool, lg, le = 5, 4, 16, 5, 24, 3, 5, 5
    tokens = (16 // p) ** 2 + 1
    block = 2 * 2 * w + 4 * (w * w + w) + (w * m + m) + (m * w + w)
    closed = (p * p * 3 * w + w) + w + tokens * w + depth * block + 2 * w  # backbone
    closed += 2 * 2 * lg * w + 3 * pool * 2 * le * w + pool * w + (w * k + k)  # G/E prompts, keys, head
    shapes = jax.eval_shape(lambda: _vit().init(jax.random.key(0), jnp.zeros((1, 16, 16, 3)), jnp.zeros(1, int)))
    assert _count(shapes["params"]) == closed


def test_prefix_attention_equals_numpy_attention_over_prepended_keys():
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(2, 3, 8)), jnp.float32)
    pk = jnp.asarray(rng.normal(size=(2, 4, 2, 4)), jnp.float32)
    pv = jnp.asarray(rng.normal(size=(2, 4, 2, 4)), jnp.float32)
    att = PrefixAttention(heads=2)
    v = att.init(jax.random.key(0), x)
    got = np.asarray(att.apply(v, x, pk, pv))
    prm = jax.tree.map(np.asarray, v["params"])
    xn = np.asarray(x, np.float64)

    def proj(name):
        return np.einsum("bsd,dhk->bshk", xn, prm[name]["kernel"]) + prm[name]["bias"]

    q, k, val = proj("query"), np.concatenate([pk, proj("key")], 1), np.concatenate([pv, proj("value")], 1)
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / 2.0
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    o = np.einsum("bhqk,bkhd->bqhd", a, val)
    ref = np.einsum("bqhd,hdo->bqo", o, prm["out"]["kernel"]) + prm["out"]["bias"]
    np.testing.assert_allclose(got, ref, rtol=2e-4, atol=2e-5)


@pytest.mark.slow
def test_vit_key_matching_picks_the_closest_key_and_prompts_change_the_output():
    model = _vit(depth=2, g_layers=(0,), e_layers=(1,))
    rng = np.random.default_rng(2)
    x = jnp.asarray(rng.normal(size=(4, 16, 16, 3)), jnp.float32)
    v = jax.jit(model.init)(jax.random.key(0), x, jnp.zeros(4, int))

    @jax.jit
    def run(v, x):
        q = model.apply(v, x, method=PromptedViT.query)
        sel = model.apply(v, q, method=PromptedViT.select)
        outs = [model.apply(v, x, t)[0] for t in (None, sel, (sel + 1) % 3)]
        return q, sel, outs

    q, sel, (auto, chosen, other) = run(v, x)
    keys = np.asarray(v["params"]["e_key"])
    cos = (np.asarray(q) / np.linalg.norm(q, axis=1, keepdims=True)) @ (keys / np.linalg.norm(keys, axis=1)[:, None]).T
    np.testing.assert_array_equal(np.asarray(sel), cos.argmax(1))
    np.testing.assert_allclose(np.asarray(auto), np.asarray(chosen), atol=1e-6)
    assert np.abs(np.asarray(other) - np.asarray(chosen)).max() > 1e-4
    with pytest.raises(ConfigError, match="e_layers"):
        _vit(e_layers=(2, 9)).init(jax.random.key(0), x, jnp.zeros(4, int))
    with pytest.raises(ConfigError, match="overlap"):
        _vit(g_layers=(0, 2)).init(jax.random.key(0), x, jnp.zeros(4, int))


@pytest.mark.slow
def test_one_adam_step_on_prompts_and_head_lowers_the_loss_and_keeps_the_backbone():
    model = _vit(depth=2, g_layers=(0,), e_layers=(1,))
    rng = np.random.default_rng(3)
    y = jnp.asarray(rng.integers(0, 5, 8))
    x = jnp.asarray(rng.normal(size=(8, 16, 16, 3)) + 0.5 * np.asarray(y)[:, None, None, None], jnp.float32)
    task = jnp.asarray(np.asarray(y) % 3)
    params = jax.jit(model.init)(jax.random.key(0), x, task)["params"]
    tx = prompt_optimizer(optax.adam(1e-3), params)

    def loss(p):
        logits, q = model.apply({"params": p}, x, task)
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        return ce + pull_loss(q, p["e_key"], task)

    @jax.jit
    def step(p):
        l0, g = jax.value_and_grad(loss)(p)
        upd, _ = tx.update(g, tx.init(p), p)
        p1 = optax.apply_updates(p, upd)
        return l0, loss(p1), p1

    l0, l1, p1 = step(params)
    assert float(l1) < float(l0)
    for a, b in zip(jax.tree.leaves(params["backbone"]), jax.tree.leaves(p1["backbone"]), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert np.abs(np.asarray(p1["e_prompt"]) - np.asarray(params["e_prompt"])).max() > 0
