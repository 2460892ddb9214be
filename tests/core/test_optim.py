"""The one optimizer recipe (core.train.optim): every schedule against its closed form, AdamW against
a NumPy Adam, the decay mask and clipping by construction, and one clear error per bad field."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import OptimConfig, make_optimizer
from jaxpapers.core.train.optim import learning_rate

STEPS = 100


def closed_form(cfg: OptimConfig, t: int) -> float:
    """The schedule at step ``t`` written out from the module's docstring."""
    lr, end = cfg.lr, cfg.final_lr_frac
    cos = lambda frac: end + (1 - end) * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0)))
    if cfg.schedule == "constant":
        return lr
    if cfg.schedule == "exponential":
        return lr * cfg.decay_rate**t
    if cfg.schedule == "cosine":
        return lr * cos(t / STEPS)
    if cfg.schedule == "warmup_cosine":
        w = max(1, int(cfg.warmup_frac * STEPS))
        if t < w:
            return lr / w + (lr - lr / w) * t / w
        return lr * cos((t - w) / (STEPS - w))
    decay = max(round(cfg.decay_frac * STEPS), 1)
    return lr if t < STEPS - decay else lr * cos((t - (STEPS - decay)) / decay)


@pytest.mark.parametrize(
    "cfg",
    [
        OptimConfig(lr=0.1),
        OptimConfig(lr=0.1, schedule="cosine", final_lr_frac=0.1),
        OptimConfig(lr=0.1, schedule="warmup_cosine", warmup_frac=0.1),
        OptimConfig(lr=0.1, schedule="stable_decay", decay_frac=0.3),
        OptimConfig(lr=2e-4, schedule="exponential", decay_rate=0.999996),
        OptimConfig(lr=0.1, schedule="exponential", decay_rate=0.9),
    ],
    ids=lambda c: f"{c.schedule}",
)
def test_schedules_match_their_closed_forms(cfg):
    sched = learning_rate(cfg, STEPS)
    for t in (0, 1, 5, 9, 10, 11, 50, 69, 70, 71, 99, 100):
        got = float(sched(t)) if callable(sched) else sched
        assert got == pytest.approx(closed_form(cfg, t), rel=1e-5, abs=1e-9), t


def test_adamw_matches_a_numpy_adam_with_decoupled_decay_on_kernels_only():
    cfg = OptimConfig(lr=0.05, b1=0.8, b2=0.99, eps=1e-6, weight_decay=0.1, decay_mask="kernels")
    opt = make_optimizer(cfg, STEPS)
    params = {"dense": {"kernel": jnp.array([1.0, -2.0]), "bias": jnp.array([0.5])}}
    state = opt.init(params)
    rng = np.random.default_rng(0)
    ref = {k: np.asarray(v, np.float64) for k, v in params["dense"].items()}
    m = {k: np.zeros_like(v) for k, v in ref.items()}
    v = {k: np.zeros_like(v) for k, v in ref.items()}
    for t in range(1, 6):
        grads = {"dense": {k: jnp.asarray(rng.normal(size=a.shape), jnp.float32) for k, a in ref.items()}}
        updates, state = opt.update(grads, state, params)
        params = jax.tree.map(lambda p, u: p + u, params, updates)
        for k in ref:
            g = np.asarray(grads["dense"][k], np.float64)
            m[k] = cfg.b1 * m[k] + (1 - cfg.b1) * g
            v[k] = cfg.b2 * v[k] + (1 - cfg.b2) * g**2
            step = (m[k] / (1 - cfg.b1**t)) / (np.sqrt(v[k] / (1 - cfg.b2**t)) + cfg.eps)
            decay = cfg.weight_decay * ref[k] if k == "kernel" else 0.0
            ref[k] = ref[k] - cfg.lr * (step + decay)
    for k in ref:
        np.testing.assert_allclose(np.asarray(params["dense"][k]), ref[k], rtol=1e-5, atol=1e-6)


def test_clipping_scales_the_gradient_adam_sees_to_the_global_norm():
    # Adam's first step is +-lr whatever the scale, so read the moments: after one step
    # mu = (1 - b1) g_clipped with g_clipped = g * clip / |g| (|g| = 500 here, over the limit 1).
    cfg = OptimConfig(lr=0.1, clip=1.0)
    opt = make_optimizer(cfg, STEPS)
    params = {"w": jnp.zeros(3)}
    g = np.array([300.0, -400.0, 0.0])
    updates, state = opt.update({"w": jnp.asarray(g, jnp.float32)}, opt.init(params), params)
    mu = optax.tree_utils.tree_get(state, "mu")["w"]
    np.testing.assert_allclose(np.asarray(mu), (1 - cfg.b1) * g / 500.0, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(updates["w"]), [-0.1, 0.1, 0.0], rtol=1e-4, atol=1e-6)
    # under the limit the gradient passes unchanged
    _, state = opt.update({"w": jnp.asarray(g / 1000, jnp.float32)}, opt.init(params), params)
    np.testing.assert_allclose(
        np.asarray(optax.tree_utils.tree_get(state, "mu")["w"]), (1 - cfg.b1) * g / 1000, rtol=1e-5
    )


@pytest.mark.parametrize(
    "field, value, allowed",
    [
        ("schedule", "linear", "exponential"),
        ("decay_rate", 1.5, "decay_rate"),
        ("decay_rate", 0.0, "decay_rate"),
        ("lr", 0.0, "lr"),
        ("decay_mask", "biases", "kernels"),
    ],
)
def test_bad_fields_name_the_field_and_the_allowed_values(field, value, allowed):
    with pytest.raises(ConfigError, match=allowed):
        OptimConfig(**{field: value})
