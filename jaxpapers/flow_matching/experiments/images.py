"""FM6: image-benchmark trends of the two-layer ReLU velocity field (z scaled by 1/√(d+2), spec Pitfall).

Minibatch CFM (fresh x₀ and t every step: the standard practice, a different algorithm from the fixed-triple
GD of FM1/FM2) with Adam (the shared optimiser builder and seed trainer). One run per (seed, n), all vmapped in one
program: each seed draws its own held-out split, initial weights and step keys; within a seed the runs differ only
in n (training images padded to the largest n, rows drawn from the first n).

The test − train gap is a **paired** estimate with common random numbers: K = ``eval_draws`` draws (x₀,k, t_k),
t stratified (t_k = (k + U_k)/K), each applied to every training and held-out image of a seed, for every n. Per draw
g_k = mean_test ℓ − mean_train ℓ, so the large variation of the CFM loss with t and x₀ cancels in the gap; the
standard error adds the draw part sd(g_k)/√K and the held-out-image part sd_i(ℓ̄_i)/√N_test (conservative for the
stratified t). The criterion's own paired statistic D = gap(n_last) − 0.6·gap(n_first) gets its SE the same way.
The Sinkhorn W2 (pixel space) of generated samples to the held-out images (first seed) is report-only at quick
size.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.train import OptimConfig, make_optimizer, make_seed_trainer, uniform_batch
from jaxpapers.flow_matching import figures
from jaxpapers.flow_matching.config import ImageConfig
from jaxpapers.flow_matching.data import load_images
from jaxpapers.flow_matching.metrics import sinkhorn_cost
from jaxpapers.flow_matching.model import features, init_params, velocity, velocity_z
from jaxpapers.flow_matching.sampler import integrate
from jaxpapers.flow_matching.train import make_cfm_loss_fn

RATIO = 0.6  # the spec's criterion gap(n_last) ≤ 0.6·gap(n_first); the same number is the claim's threshold


def eval_draws(key: jax.Array, draws: int, d: int):
    """The common (x₀,k [K, d], t_k [K]) of a seed: x₀ ~ N(0, I), t stratified, t_k = (k + U_k)/K."""
    k0, kt = jax.random.split(key)
    x0 = jax.random.normal(k0, (draws, d), jnp.result_type(float))
    t = (jnp.arange(draws) + jax.random.uniform(kt, (draws,), x0.dtype)) / draws
    return x0, t


def per_image_losses(params, x1, x0, t, z_scale: float):
    """ℓ = ½‖v(x_t, t) − (x₁ − x₀)‖² for every draw and image: ``[K, N]`` (one ``lax.map`` over the draws)."""

    def one(args):
        x0k, tk = args
        x = (1 - tk) * x0k + tk * x1
        v = velocity_z(params["W"], params["a"], features(x, jnp.full(x1.shape[:1], tk), z_scale))
        return 0.5 * jnp.sum((v - (x1 - x0k)) ** 2, -1)

    return jax.lax.map(one, (x0, t))


@functools.partial(jax.jit, static_argnames=("draws", "z_scale"))
def _evaluate(params, train, test, key, *, draws, z_scale):
    """Per run (vmapped over runs): per-draw, per-image losses ``[K, n_max]`` and ``[K, N_test]`` on the training
    and held-out images, with the seed's common draws from ``key``."""

    def one(p, x1, te, k):
        x0, t = eval_draws(k, draws, x1.shape[1])
        return per_image_losses(p, x1, x0, t, z_scale), per_image_losses(p, te, x0, t, z_scale)

    return jax.vmap(one)(params, train, test, key)


@functools.partial(jax.jit, static_argnames=("z_scale", "solver_steps", "sinkhorn_iters", "eps"))
def _generate(params, test, key, *, z_scale, solver_steps, sinkhorn_iters, eps):
    """Per run of the first seed (vmapped over n; the W2 is report-only): RK4 samples of the learned flow from
    N(0, I) and their Sinkhorn cost to the held-out images."""

    def one(p, te):
        x0 = jax.random.normal(key, te.shape, te.dtype)
        gen = integrate(lambda x, s: velocity(p, x, s, z_scale=z_scale), x0, solver_steps, "rk4")
        return gen, sinkhorn_cost(gen, te, eps=eps, iters=sinkhorn_iters)

    return jax.vmap(one)(params, test)


def paired_gap(train_l: np.ndarray, test_l: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Gap test − train from per-draw, per-image losses ``[K, n]`` and ``[K, N_test]`` with common draws.

    Returns (gap, SE, g_k [K], ℓ̄_i [N_test]); SE² = var(g_k)/K + var_i(ℓ̄_i)/N_test."""
    train_l, test_l = np.asarray(train_l, np.float64), np.asarray(test_l, np.float64)
    g = test_l.mean(1) - train_l.mean(1)
    img = test_l.mean(0)
    se = math.sqrt(g.var(ddof=1) / g.size + img.var(ddof=1) / img.size)
    return float(g.mean()), se, g, img


def study(cfg: ml_collections.ConfigDict) -> dict:
    """Trains every (seed, n) run and evaluates it; raw arrays (``[S, len(ns), ...]``) for :func:`measure` and tests."""
    im, opt = to_dataclass(ImageConfig, cfg.images), to_dataclass(OptimConfig, cfg.optim)
    data, side = load_images(im.dataset, im.data_dir)
    if im.held_out + max(im.ns) > len(data):
        raise ValueError(f"images.held_out={im.held_out} + max(images.ns)={max(im.ns)} exceeds the {len(data)} images")
    n_max, d, k = max(im.ns), data.shape[1], len(im.ns)
    z_scale = 1.0 / math.sqrt(d + 2)
    splits = [np.random.default_rng([int(cfg.seed), s]).permutation(len(data)) for s in range(im.seeds)]
    test = np.stack([data[p[: im.held_out]] for p in splits for _ in im.ns])  # [S·k, N_test, d]
    train = np.stack([data[p[im.held_out : im.held_out + n_max]] for p in splits for _ in im.ns])  # [S·k, n_max, d]
    n_valid = jnp.asarray(np.tile(im.ns, im.seeds), jnp.int32)
    train_keys, eval_keys, gen_key = _keys(int(cfg.seed), im.seeds, k)
    trainer = make_seed_trainer(
        lambda key, _: init_params(key, im.width, d),
        make_cfm_loss_fn(z_scale),
        make_optimizer(opt, im.steps),
        uniform_batch(im.batch_size, n="n_valid"),
        steps=im.steps,
    )
    # same init and step keys for every n of a seed: within a seed the runs differ only in n
    result = trainer(train_keys, {"x1": jnp.asarray(train), "n_valid": n_valid})
    tr_l, te_l = _evaluate(result.params, jnp.asarray(train), jnp.asarray(test), eval_keys, draws=im.eval_draws,
                           z_scale=z_scale)
    first = jax.tree.map(lambda a: a[:k], result.params)
    gen, cost = _generate(first, jnp.asarray(test[:k]), gen_key, z_scale=z_scale, solver_steps=im.solver_steps,
                          sinkhorn_iters=im.sinkhorn_iters, eps=im.sinkhorn_eps)
    shape = (im.seeds, k)
    tr_l, te_l = np.asarray(tr_l), np.asarray(te_l)
    return {
        "params": jax.tree.map(lambda a: np.asarray(a).reshape(shape + a.shape[1:]), result.params),
        "train_losses": [[tr_l[s * k + j, :, : im.ns[j]] for j in range(k)] for s in range(im.seeds)],
        "test_losses": te_l.reshape(shape + te_l.shape[1:]),
        "generated": np.asarray(gen),
        "sinkhorn_cost": np.asarray(cost, np.float64),
        "final_minibatch_loss": np.asarray(result.losses)[:, -1].reshape(shape),
        "train": train.reshape(shape + train.shape[1:]),
        "test": test.reshape(shape + test.shape[1:]),
        "eval_keys": eval_keys[::k],
        "z_scale": z_scale,
        "side": side,
        "config": im,
    }


@functools.partial(jax.jit, static_argnames=("seeds", "per_seed"))
def _keys_program(base, *, seeds: int, per_seed: int):
    def per(tag):
        return jnp.repeat(jax.random.split(jax.random.fold_in(base, tag), seeds), per_seed)

    return per(0), per(1), jax.random.fold_in(base, 2)


def _keys(seed: int, seeds: int, per_seed: int):
    """Training keys and evaluation keys per run (one per seed, repeated over its n), and the sampler key (one
    small program instead of several eagerly compiled key operations)."""
    return _keys_program(jax.random.key(seed), seeds=seeds, per_seed=per_seed)


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM6: per seed the paired CFM test − train gap per n (with SE), gap(n_last)/gap(n_first), the criterion's
    paired statistic D = gap(n_last) − 0.6·gap(n_first) with its SE, and (report) Sinkhorn W2 per n."""
    del key
    return summarise(study(cfg))


def summarise(st: dict) -> Measurement:
    """The FM6 measurement from the raw arrays of :func:`study`."""
    im = st["config"]
    seeds, k = im.seeds, len(im.ns)
    gap, se, ratio, d_stat, d_se = np.zeros((seeds, k)), np.zeros((seeds, k)), [], [], []
    train_mean, test_mean = np.zeros((seeds, k)), np.zeros((seeds, k))
    for s in range(seeds):
        parts = [paired_gap(st["train_losses"][s][j], st["test_losses"][s, j]) for j in range(k)]
        for j, (g, e, _, _) in enumerate(parts):
            gap[s, j], se[s, j] = g, e
            train_mean[s, j] = float(np.mean(st["train_losses"][s][j], dtype=np.float64))
            test_mean[s, j] = float(np.mean(st["test_losses"][s, j], dtype=np.float64))
        (g0, _, gk0, img0), (g1, _, gk1, img1) = parts[0], parts[-1]
        # gap(n_first) ≤ 0 leaves the ratio undefined: it counts as infinite (the criterion cannot hold)
        ratio.append(g1 / g0 if g0 > 0 else math.inf)
        dk, di = gk1 - RATIO * gk0, img1 - RATIO * img0  # paired over the common draws and held-out images
        d_stat.append(float(dk.mean()))
        d_se.append(math.sqrt(dk.var(ddof=1) / dk.size + di.var(ddof=1) / di.size))
    w2 = np.sqrt(np.maximum(st["sinkhorn_cost"], 0.0))
    fig = figures.images(np.asarray(im.ns), train_mean[0], test_mean[0], st["generated"][-1], st["side"])
    return Measurement(
        measured={
            "gap_ratio": np.asarray(ratio),
            "gap_first_z": gap[:, 0] / se[:, 0],
            "gap": gap.mean(0),
            "sinkhorn_w2": w2,
        },
        n=seeds,
        details={
            "dataset": im.dataset,
            "ns": list(im.ns),
            "seeds": seeds,
            "eval_draws": im.eval_draws,
            "held_out": im.held_out,
            "gap_per_seed": gap.tolist(),
            "gap_se_per_seed": se.tolist(),
            "criterion_D_per_seed": d_stat,  # gap(n_last) − 0.6·gap(n_first): < 0 ⇔ ratio ≤ 0.6 (gap(n_first) > 0)
            "criterion_D_se_per_seed": d_se,
            "train_loss": train_mean.tolist(),
            "test_loss": test_mean.tolist(),
            "sinkhorn_w2_note": "first seed only (report-only at quick size)",
            "final_minibatch_loss": st["final_minibatch_loss"].tolist(),
            "algorithm": "minibatch CFM (fresh x0, t each step), Adam; z scaled by 1/sqrt(d+2); paired gap estimate "
            "with common (x0, t) draws",
        },
        figures={"images": fig},
        captions={"images": figures.IMAGES_CAPTION},
    )
