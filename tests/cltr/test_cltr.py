"""The generic weighted loss, the vmapped stage program and the true Fisher against NumPy / plain loops."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.cltr import empirical_fisher, make_loss_fn, mlp_apply, mlp_init, train_stage, true_fisher
from jaxpapers.cltr.cltr import gather_selected, init_opt_state, make_spec, stack
from jaxpapers.core.errors import ConfigError

D, H, C = 4, 5, 3


def _data(n=24, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    x = rng.normal(size=(n, D)) + 2 * np.eye(C, D)[y]
    return jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.int32)


def _np_mlp(theta, x):
    w1 = theta[: D * H].reshape(D, H)
    b1 = theta[D * H : D * H + H]
    w2 = theta[D * H + H : D * H + H + H * C].reshape(H, C)
    b2 = theta[-C:]
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def test_generic_loss_equals_numpy():
    x, y = _data()
    n = len(y)
    p = D * H + H + H * C + C
    theta = np.asarray(mlp_init(jax.random.key(0), D, H, C), np.float64) + 0.1
    rng = np.random.default_rng(1)
    w = rng.random(n)
    w /= w.sum()
    spec = make_spec(
        n,
        C,
        p,
        w,
        offset=rng.normal(size=C),
        alpha=2.0,
        q=rng.normal(size=(n, C)),
        anchor=rng.normal(size=p),
        fisher=rng.random(p),
        lam=0.7,
    )
    got = make_loss_fn(H, C, mu=0.01, temperature=2.0)(jnp.asarray(theta, jnp.float32), spec.tree(), x, y)
    xn, yn = np.asarray(x, np.float64), np.asarray(y)
    z = _np_mlp(theta, xn)
    ce = -_log_softmax(z + spec.offset)[np.arange(n), yn]
    pq = np.exp(_log_softmax(spec.q / 2))
    kl = (pq * (_log_softmax(spec.q / 2) - _log_softmax(z / 2))).sum(1)
    ref = (w * (ce + 2.0 * 4 * kl)).sum() + 0.35 * (spec.fisher * (theta - spec.anchor) ** 2).sum()
    ref += 0.005 * (theta**2).sum()
    assert float(got) == pytest.approx(ref, rel=1e-5)


def test_vmapped_stage_equals_plain_loop_of_adam():
    x, y = _data()
    n, p = len(y), D * H + H + H * C + C
    specs = [
        make_spec(n, C, p, np.full(n, 1 / n)),
        make_spec(n, C, p, (np.asarray(y) == 0) / (np.asarray(y) == 0).sum()),
    ]
    theta0 = jnp.stack([mlp_init(jax.random.key(k), D, H, C) for k in (0, 1)])
    kw = dict(hidden=H, c=C, steps=15, mu=0.01, temperature=2.0, lr=0.05, weight_decay=0.0)
    th, _ = train_stage(theta0, init_opt_state(theta0, 0.05, 0.0), stack(specs), x, y, **kw)
    grad = jax.jit(jax.grad(make_loss_fn(H, C, 0.01, 2.0)))
    for i, sp in enumerate(specs):
        t = np.asarray(theta0[i], np.float64)
        m = np.zeros(p)
        v = np.zeros(p)
        tree = {k: jnp.asarray(val, jnp.float32) for k, val in sp.tree().items()}
        for s in range(1, 16):  # Adam written out (b1 .9, b2 .999, eps 1e-8)
            g = np.asarray(grad(jnp.asarray(t, jnp.float32), tree, x, y), np.float64)
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            t = t - 0.05 * (m / (1 - 0.9**s)) / (np.sqrt(v / (1 - 0.999**s)) + 1e-8)
        np.testing.assert_allclose(np.asarray(th[i]), t, atol=2e-4)
    # continuing a stage with its optimizer state equals one longer stage
    th_a, st_a = train_stage(theta0, init_opt_state(theta0, 0.05, 0.0), stack(specs), x, y, **{**kw, "steps": 7})
    th_b, _ = train_stage(th_a, st_a, stack(specs), x, y, **{**kw, "steps": 8})
    np.testing.assert_allclose(np.asarray(th_b), np.asarray(th), atol=1e-5)


def test_true_fisher_is_the_exact_expectation_over_classes():
    x, y = _data(n=6)
    theta = mlp_init(jax.random.key(3), D, H, C)
    got = np.asarray(true_fisher(theta, x, hidden=H, c=C))
    ref = np.zeros(theta.size)
    for i in range(len(y)):
        for k in range(C):

            def logp(th, i=i, k=k):
                return jax.nn.log_softmax(mlp_apply(th, x[i : i + 1], H, C)[0])[k]

            pk = float(jnp.exp(logp(theta)))
            ref += pk * np.asarray(jax.grad(logp)(theta)) ** 2 / len(y)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-9)


def test_true_fisher_exceeds_empirical_tenfold_at_a_converged_model():
    """Pitfall: the empirical Fisher vanishes at a converged Head model (EWC becomes fine-tuning)."""
    rng = np.random.default_rng(4)
    y = jnp.asarray(rng.integers(0, C, 30), jnp.int32)
    x = jnp.asarray(rng.normal(size=(30, D)) + 5 * np.eye(C, D)[np.asarray(y)], jnp.float32)
    n, p = len(y), D * H + H + H * C + C
    theta0 = mlp_init(jax.random.key(0), D, H, C)[None]
    th, _ = train_stage(
        theta0,
        init_opt_state(theta0, 0.05, 0.0),
        stack([make_spec(n, C, p, np.full(n, 1 / n))]),
        x,
        y,
        hidden=H,
        c=C,
        steps=1500,
        mu=0.0,
        temperature=1.0,
        lr=0.05,
        weight_decay=0.0,
    )
    tf = float(true_fisher(th[0], x, hidden=H, c=C).sum())
    ef = float(empirical_fisher(th[0], x, y, hidden=H, c=C).sum())
    assert (np.asarray(jnp.argmax(mlp_apply(th[0], x, H, C), 1)) == np.asarray(y)).all()
    assert tf > 10 * ef


def test_training_on_the_selected_samples_equals_masked_training():
    """Gathering each row's selected samples (padded with weight-0 copies) gives the masked full-set loss, its
    gradient and the same Adam trajectory, at a fraction of the rows."""
    x, y = _data(n=30, seed=5)
    n, p = len(y), D * H + H + H * C + C
    rng = np.random.default_rng(6)
    masks = [rng.random(n) < f for f in (0.3, 0.6, 0.9)]
    specs = [
        make_spec(n, C, p, m / m.sum(), q=rng.normal(size=(n, C)), alpha=1.5, offset=rng.normal(size=C))
        for m in masks
    ]
    full = stack(specs)
    sp, xs, ys = gather_selected(full, x, y)
    assert xs.shape == (3, max(int(m.sum()) for m in masks), D) and ys.shape == xs.shape[:2]
    np.testing.assert_allclose(np.asarray(sp["w"]).sum(1), 1.0, rtol=1e-6)
    theta0 = jnp.stack([mlp_init(jax.random.key(k), D, H, C) for k in range(3)])
    vg = jax.jit(jax.vmap(jax.value_and_grad(make_loss_fn(H, C, mu=0.01, temperature=2.0))))
    lf, gf = vg(theta0, full, jnp.broadcast_to(x, (3, *x.shape)), jnp.broadcast_to(y, (3, n)))
    ls, gs = vg(theta0, sp, xs, ys)
    np.testing.assert_allclose(np.asarray(ls), np.asarray(lf), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gs), np.asarray(gf), rtol=1e-5, atol=1e-7)
    kw = dict(hidden=H, c=C, steps=10, mu=0.01, temperature=2.0, lr=0.05, weight_decay=0.0)
    th_f, _ = train_stage(theta0, init_opt_state(theta0, 0.05, 0.0), full, x, y, **kw)
    th_s, _ = train_stage(theta0, init_opt_state(theta0, 0.05, 0.0), sp, xs, ys, **kw)
    np.testing.assert_allclose(np.asarray(th_s), np.asarray(th_f), atol=1e-4)
    with pytest.raises(ConfigError, match="size=2"):
        gather_selected(full, x, y, size=2)
