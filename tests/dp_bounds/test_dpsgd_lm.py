"""DP-SGD pieces (Poisson batches, clipping, sum-calibrated noise, keys) and the prefix-cached LM scoring."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree

from jaxpapers.dp_bounds import dpsgd
from jaxpapers.dp_bounds.lm import CharTransformer, LMSpec, full_logprob, suffix_logprob, token_nll

SPEC = LMSpec(layers=1, d_model=16, heads=2, context=24)


@pytest.fixture(scope="module")
def model_params():
    model = CharTransformer(SPEC)
    params = jax.jit(lambda k: model.init(k, jnp.zeros((1, SPEC.context), jnp.int32))["params"])(jax.random.key(0))
    return model, params


def test_poisson_batches_vary_and_respect_capacity():
    sizes, seen = [], set()
    for t in range(200):
        idx, mask = dpsgd.poisson_batch(jax.random.key(t), 64, 0.25, 32)
        idx, mask = np.asarray(idx), np.asarray(mask)
        assert len(set(idx.tolist())) == 32  # distinct rows
        sizes.append(int(mask.sum()))
        seen |= set(idx[mask].tolist())
    assert np.std(sizes) > 1.0 and min(sizes) < 16 < max(sizes)  # Poisson, not fixed-size shuffling
    assert abs(np.mean(sizes) - 16) < 1.0 and len(seen) == 64
    _, mask = dpsgd.poisson_batch(jax.random.key(0), 64, 0.9, 32)  # truncation keeps exactly capacity
    assert int(mask.sum()) == 32


def test_clipping_and_sum_calibrated_noise():
    g = jax.random.normal(jax.random.key(1), (8, 5000)) * 3.0
    mask = jnp.array([1, 1, 1, 0, 1, 0, 1, 1], bool)
    noisy_sum = jax.jit(dpsgd.noisy_clipped_sum)
    clean = np.asarray(noisy_sum(g, mask, jax.random.key(2), 1.0, 0.0))
    ref = sum(np.asarray(g[i]) * min(1.0, 1.0 / np.linalg.norm(g[i])) for i in range(8) if mask[i])
    np.testing.assert_allclose(clean, ref, rtol=1e-5, atol=1e-6)
    # noise: std σC on the clipped sum, then divided by the expected batch size q·n (jax_privacy issue #383)
    sigma, clip, qn = 3.0, 0.5, 16.0
    zero = jnp.zeros((8, 20000))
    out = np.asarray(jax.jit(dpsgd.private_gradient)(zero, mask, jax.random.key(3), clip, sigma * clip, qn))
    assert np.std(out) == pytest.approx(sigma * clip / qn, rel=0.03)
    nonpriv = np.asarray(noisy_sum(g, mask, jax.random.key(2), jnp.inf, 0.0))
    np.testing.assert_allclose(nonpriv, np.asarray((g * mask[:, None]).sum(0)), rtol=1e-5, atol=1e-5)


def test_step_keys_are_fresh():
    keys = [dpsgd.step_keys(jax.random.key(0), t) for t in range(3)]
    data = {np.asarray(jax.random.key_data(k)).tobytes() for pair in keys for k in pair}
    assert len(data) == 6  # never reused across steps or between sampling and noise
    n0 = jax.random.normal(keys[0][1], (4,))
    n1 = jax.random.normal(keys[1][1], (4,))
    assert not np.allclose(n0, n1)


def test_per_example_grads_match_a_loop(model_params):
    model, params = model_params
    x = jax.random.randint(jax.random.key(4), (3, SPEC.context), 32, 120)
    batch = {"x": x, "y": jnp.roll(x, -1, 1), "mask": jnp.ones_like(x, bool)}
    loss_one = dpsgd.lm_loss_one(model)
    g = np.asarray(jax.jit(lambda p, b: dpsgd.per_example_grads(loss_one, p, b))(params, batch))
    grad_one = jax.jit(jax.grad(loss_one))  # one compile; eager Flax would compile every op
    for i in range(3):
        gi = grad_one(params, {k: v[i] for k, v in batch.items()})
        np.testing.assert_allclose(g[i], np.asarray(ravel_pytree(gi)[0]), rtol=1e-4, atol=1e-6)


def test_suffix_scoring_matches_full_forward(model_params):
    model, params = model_params
    rng = np.random.default_rng(0)
    plen = np.array([5, 9, 7], np.int32)
    prefix = np.zeros((3, 12), np.int32)
    for i, n in enumerate(plen):
        prefix[i, :n] = rng.integers(32, 120, n)
    cands = rng.integers(32, 120, (4, 6)).astype(np.int32)
    clen = np.array([6, 3, 5, 1], np.int32)
    score = jax.jit(lambda *a: suffix_logprob(model, params, *a, chunk=2))
    got = np.asarray(score(jnp.asarray(prefix), jnp.asarray(plen), jnp.asarray(cands), jnp.asarray(clen)))
    seqs, starts, ends = [], [], []
    for b in range(3):
        for c in range(4):
            seq = np.zeros(SPEC.context, np.int32)
            seq[: plen[b]] = prefix[b, : plen[b]]
            seq[plen[b] : plen[b] + clen[c]] = cands[c, : clen[c]]
            seqs.append(seq)
            starts.append(plen[b])
            ends.append(plen[b] + clen[c])
    full = jax.jit(lambda *a: full_logprob(model, params, *a))
    ref = full(jnp.asarray(np.stack(seqs)), jnp.array(starts), jnp.array(ends))
    np.testing.assert_allclose(got.ravel(), np.asarray(ref), atol=2e-4)


def test_param_paths_are_pinned(model_params):
    _, params = model_params
    assert sorted(params) == ["block_0", "embed", "head", "ln_f", "pos"]
    assert sorted(params["block_0"]) == ["attn_out", "ln_attn", "ln_mlp", "mlp_in", "mlp_out", "qkv"]


@pytest.mark.slow
def test_dp_finetune_runs_and_nonprivate_learns(model_params):
    model, params = model_params
    x = np.full((8, SPEC.context), 65, np.int32)
    data = {"x": jnp.asarray(x), "y": jnp.asarray(np.roll(x, -1, 1)), "mask": jnp.ones(x.shape, bool)}
    before = float(jnp.mean(token_nll(model.apply({"params": params}, data["x"]), data["y"], data["mask"])))
    p2, sizes = dpsgd.dp_finetune(
        model, params, data, jax.random.key(0), steps=10, q=0.5, capacity=8, clip=jnp.inf, noise_std=0.0, lr=1e-2
    )
    after = float(jnp.mean(token_nll(model.apply({"params": p2}, data["x"]), data["y"], data["mask"])))
    assert after < before and sizes.shape == (10,)
