"""FM6: image-benchmark trends of the two-layer ReLU velocity field (z scaled by 1/√(d+2), spec Pitfall).

Minibatch CFM (fresh x₀ and t every step: the standard practice, a different algorithm from the fixed-triple
GD of FM1/FM2) with Adam (the shared optimiser builder and seed trainer), one run per n vmapped in one program
(training images padded to the largest n, rows drawn from the first n). Measured: the CFM train loss on the
training images and the test loss on held-out images, each with ``eval_draws`` fixed (x₀, t) draws per image,
their gap per n and gap(n_last)/gap(n_first); the Sinkhorn W2 (pixel space) of generated samples to the
held-out images (report-only at quick size).
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


def _eval_loss(params, x1, weight, key, draws: int, z_scale: float):
    """Weighted mean over rows (weight 0 for padding) of ½‖v − u‖² with ``draws`` fixed (x₀, t) per image."""

    def one(k):
        k0, kt = jax.random.split(k)
        x0 = jax.random.normal(k0, x1.shape, x1.dtype)
        t = jax.random.uniform(kt, x1.shape[:1], x1.dtype)
        x = (1 - t[:, None]) * x0 + t[:, None] * x1
        v = velocity_z(params["W"], params["a"], features(x, t, z_scale))
        return 0.5 * jnp.sum((v - (x1 - x0)) ** 2, -1)

    per = jnp.mean(jax.vmap(one)(jax.random.split(key, draws)), 0)
    return jnp.sum(per * weight) / jnp.sum(weight)


@functools.partial(jax.jit, static_argnames=("draws", "z_scale", "solver_steps", "sinkhorn_iters"))
def _evaluate(params, train, weight, test, key, *, draws, z_scale, solver_steps, sinkhorn_iters, eps):
    """Per run (vmapped): train loss, test loss, generated samples and their Sinkhorn cost to the test images."""
    k_train, k_test, k_gen = jax.random.split(key, 3)

    def one(p, x1, w):
        tr = _eval_loss(p, x1, w, k_train, draws, z_scale)
        te = _eval_loss(p, test, jnp.ones(test.shape[0], test.dtype), k_test, draws, z_scale)
        x0 = jax.random.normal(k_gen, test.shape, test.dtype)
        gen = integrate(lambda x, t: velocity(p, x, t, z_scale=z_scale), x0, solver_steps, "rk4")
        return tr, te, gen, sinkhorn_cost(gen, test, eps=eps, iters=sinkhorn_iters)

    return jax.vmap(one)(params, train, weight)


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM6: CFM test − train gap per n, their ratio, and (report) Sinkhorn W2 per n."""
    del key
    im, opt = to_dataclass(ImageConfig, cfg.images), to_dataclass(OptimConfig, cfg.optim)
    data, side = load_images(im.dataset, im.data_dir)
    if im.held_out + max(im.ns) > len(data):
        raise ValueError(f"images.held_out={im.held_out} + max(images.ns)={max(im.ns)} exceeds the {len(data)} images")
    perm = np.random.default_rng(int(cfg.seed)).permutation(len(data))
    test, rest = data[perm[: im.held_out]], data[perm[im.held_out :]]
    n_max, d = max(im.ns), data.shape[1]
    z_scale = 1.0 / math.sqrt(d + 2)
    runs = len(im.ns)
    train = jnp.asarray(np.broadcast_to(rest[:n_max], (runs, n_max, d)))
    n_valid = jnp.asarray(im.ns, jnp.int32)
    trainer = make_seed_trainer(
        lambda k, _: init_params(k, im.width, d),
        make_cfm_loss_fn(z_scale),
        make_optimizer(opt, im.steps),
        uniform_batch(im.batch_size, n="n_valid"),
        steps=im.steps,
    )
    keys = jnp.stack([jax.random.key(int(cfg.seed))] * runs)  # same init and step keys: runs differ only in n
    result = trainer(keys, {"x1": train, "n_valid": n_valid})
    weight = (jnp.arange(n_max)[None] < n_valid[:, None]).astype(train.dtype)
    tr, te, gen, cost = _evaluate(
        result.params, train, weight, jnp.asarray(test), jax.random.key(int(cfg.seed) + 1), draws=im.eval_draws,
        z_scale=z_scale, solver_steps=im.solver_steps, sinkhorn_iters=im.sinkhorn_iters, eps=im.sinkhorn_eps,
    )
    tr, te = np.asarray(tr, np.float64), np.asarray(te, np.float64)
    gap = te - tr
    w2 = np.sqrt(np.maximum(np.asarray(cost, np.float64), 0.0))
    fig = figures.images(np.asarray(im.ns), tr, te, np.asarray(gen[-1]), side)
    return Measurement(
        # gap(n_first) ≤ 0 leaves the ratio undefined: it counts as infinite (the criterion cannot hold)
        measured={"gap_ratio": float(gap[-1] / gap[0]) if gap[0] > 0 else float("inf"), "gap": gap, "sinkhorn_w2": w2},
        n=im.held_out,
        details={
            "dataset": im.dataset,
            "ns": list(im.ns),
            "train_loss": tr.tolist(),
            "test_loss": te.tolist(),
            "final_minibatch_loss": np.asarray(result.losses[:, -1]).tolist(),
            "algorithm": "minibatch CFM (fresh x0, t each step), Adam; z scaled by 1/sqrt(d+2)",
        },
        figures={"images": fig},
        captions={"images": figures.IMAGES_CAPTION},
    )
