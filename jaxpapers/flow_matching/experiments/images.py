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
from jaxpapers.flow_matching.model import ImageField
from jaxpapers.flow_matching.sampler import integrate
from jaxpapers.flow_matching.train import make_cfm_loss_fn

RATIO = 0.6  # the spec's criterion gap(n_last) ≤ 0.6·gap(n_first); the same number is the claim's threshold


def eval_draws(key: jax.Array, draws: int, d: int):
    """The common (x₀,k [K, d], t_k [K]) of a seed: x₀ ~ N(0, I), t stratified, t_k = (k + U_k)/K."""
    k0, kt = jax.random.split(key)
    x0 = jax.random.normal(k0, (draws, d), jnp.result_type(float))
    t = (jnp.arange(draws) + jax.random.uniform(kt, (draws,), x0.dtype)) / draws
    return x0, t


def per_image_losses(field, params, x1, x0, t):
    """ℓ = ½‖v(x_t, t) − (x₁ − x₀)‖² for every draw and image: ``[K, N]`` (one ``lax.map`` over the draws)."""

    def one(args):
        x0k, tk = args
        x = (1 - tk) * x0k + tk * x1
        return 0.5 * jnp.sum((field(params, x, jnp.full(x1.shape[:1], tk)) - (x1 - x0k)) ** 2, -1)

    return jax.lax.map(one, (x0, t))


@functools.partial(jax.jit, static_argnames=("field", "draws"))
def _evaluate(params, train, test, key, *, field, draws):
    """Per run (vmapped over runs): per-draw, per-image losses ``[K, n_max]`` and ``[K, N_test]`` on the training
    and held-out images, with the seed's common draws from ``key``."""

    def one(p, x1, te, k):
        x0, t = eval_draws(k, draws, x1.shape[1])
        return per_image_losses(field, p, x1, x0, t), per_image_losses(field, p, te, x0, t)

    return jax.vmap(one)(params, train, test, key)


@functools.partial(jax.jit, static_argnames=("field", "solver_steps", "sinkhorn_iters", "eps"))
def _generate(params, test, key, *, field, solver_steps, sinkhorn_iters, eps):
    """Per run of the first seed (vmapped over n; the W2 is report-only): RK4 samples of the learned flow from
    N(0, I) and their Sinkhorn cost to the held-out images."""

    def one(p, te):
        x0 = jax.random.normal(key, te.shape, te.dtype)
        gen = integrate(lambda x, s: field(p, x, s), x0, solver_steps, "rk4")
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
    """Trains every (seed, n) run and evaluates it; raw arrays (``[S, len(ns), ...]``) for :func:`measure` and tests.

    The paper's two-layer field is the study; with ``images.baseline_depth`` > 0 the deeper :class:`MLPVelocity`
    baseline is trained on the same splits with the same step keys, evaluated on the same draws, under
    ``"baseline"``."""
    im, opt = to_dataclass(ImageConfig, cfg.images), to_dataclass(OptimConfig, cfg.optim)
    data, shape = load_images(im.dataset, im.data_dir)
    if im.held_out + max(im.ns) > len(data):
        raise ValueError(f"images.held_out={im.held_out} + max(images.ns)={max(im.ns)} exceeds the {len(data)} images")
    n_max, d, k = max(im.ns), data.shape[1], len(im.ns)
    z_scale = 1.0 / math.sqrt(d + 2)
    splits = [np.random.default_rng([int(cfg.seed), s]).permutation(len(data)) for s in range(im.seeds)]
    test = np.stack([data[p[: im.held_out]] for p in splits for _ in im.ns])  # [S·k, N_test, d]
    train = np.stack([data[p[im.held_out : im.held_out + n_max]] for p in splits for _ in im.ns])  # [S·k, n_max, d]
    keys = _keys(int(cfg.seed), im.seeds, k)
    runs = {"two_layer": ImageField("two_layer", im.width, z_scale=z_scale)}
    if im.baseline_depth:
        runs["baseline"] = ImageField("mlp", im.baseline_width, im.baseline_depth)
    out = {name: _train_and_evaluate(field, im, opt, train, test, keys) for name, field in runs.items()}
    main = out.pop("two_layer")
    return {
        **main,
        "baseline": out.get("baseline"),
        "train": train.reshape((im.seeds, k) + train.shape[1:]),
        "test": test.reshape((im.seeds, k) + test.shape[1:]),
        "eval_keys": keys[1][::k],
        "z_scale": z_scale,
        "image_shape": shape,
        "config": im,
    }


def _train_and_evaluate(field: ImageField, im: ImageConfig, opt: OptimConfig, train, test, keys) -> dict:
    """One field trained on every (seed, n) run in one program, then its paired losses and (first seed) samples."""
    train_keys, eval_keys, gen_key = keys
    k = len(im.ns)
    trainer = make_seed_trainer(
        lambda key, _: field.init(key, train.shape[-1]),
        make_cfm_loss_fn(field),
        make_optimizer(opt, im.steps),
        uniform_batch(im.batch_size, n="n_valid"),
        steps=im.steps,
    )
    # same init and step keys for every n of a seed: within a seed the runs differ only in n
    n_valid = jnp.asarray(np.tile(im.ns, im.seeds), jnp.int32)
    result = trainer(train_keys, {"x1": jnp.asarray(train), "n_valid": n_valid})
    tr_l, te_l = _evaluate(result.params, jnp.asarray(train), jnp.asarray(test), eval_keys, field=field,
                           draws=im.eval_draws)
    first = jax.tree.map(lambda a: a[:k], result.params)
    gen, cost = _generate(first, jnp.asarray(test[:k]), gen_key, field=field, solver_steps=im.solver_steps,
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


def gap_table(run: dict, seeds: int, k: int) -> dict[str, np.ndarray]:
    """Per seed and n of one field's runs: the paired gap and its SE, the mean train and test losses, the ratio
    gap(n_last)/gap(n_first) and the criterion's paired statistic D = gap(n_last) − 0.6·gap(n_first) with its SE."""
    gap, se, ratio, d_stat, d_se = np.zeros((seeds, k)), np.zeros((seeds, k)), [], [], []
    train_mean, test_mean = np.zeros((seeds, k)), np.zeros((seeds, k))
    for s in range(seeds):
        parts = [paired_gap(run["train_losses"][s][j], run["test_losses"][s, j]) for j in range(k)]
        for j, (g, e, _, _) in enumerate(parts):
            gap[s, j], se[s, j] = g, e
            train_mean[s, j] = float(np.mean(run["train_losses"][s][j], dtype=np.float64))
            test_mean[s, j] = float(np.mean(run["test_losses"][s, j], dtype=np.float64))
        (g0, _, gk0, img0), (g1, _, gk1, img1) = parts[0], parts[-1]
        # gap(n_first) ≤ 0 leaves the ratio undefined: it counts as infinite (the criterion cannot hold)
        ratio.append(g1 / g0 if g0 > 0 else math.inf)
        dk, di = gk1 - RATIO * gk0, img1 - RATIO * img0  # paired over the common draws and held-out images
        d_stat.append(float(dk.mean()))
        d_se.append(math.sqrt(dk.var(ddof=1) / dk.size + di.var(ddof=1) / di.size))
    w2 = np.sqrt(np.maximum(run["sinkhorn_cost"], 0.0))
    return {"gap": gap, "se": se, "ratio": np.asarray(ratio), "D": np.asarray(d_stat), "D_se": np.asarray(d_se),
            "train": train_mean, "test": test_mean, "w2": w2}


def summarise(st: dict) -> Measurement:
    """The FM6 measurement from the raw arrays of :func:`study`; the MLP baseline (if run) is report-only."""
    im = st["config"]
    seeds, k = im.seeds, len(im.ns)
    t = gap_table(st, seeds, k)
    gap, se, w2 = t["gap"], t["se"], t["w2"]
    base = gap_table(st["baseline"], seeds, k) if st.get("baseline") else None
    fig = figures.images(np.asarray(im.ns), t["train"][0], t["test"][0], st["generated"][-1], st["image_shape"],
                         baseline_test=None if base is None else base["test"][0])
    baseline = None
    if base is not None:
        baseline = {
            "field": f"MLPVelocity, {im.baseline_depth} hidden ReLU layers of {im.baseline_width}",
            "gap_ratio_per_seed": base["ratio"].tolist(),
            "gap_per_seed": base["gap"].tolist(),
            "gap_se_per_seed": base["se"].tolist(),
            "train_loss": base["train"].tolist(),
            "test_loss": base["test"].tolist(),
            "sinkhorn_w2": base["w2"].tolist(),
            "final_minibatch_loss": st["baseline"]["final_minibatch_loss"].tolist(),
        }
    return Measurement(
        measured={
            "gap_ratio": t["ratio"],
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
            "criterion_D_per_seed": t["D"].tolist(),  # gap(n_last) − 0.6·gap(n_first): < 0 ⇔ ratio ≤ 0.6
            "criterion_D_se_per_seed": t["D_se"].tolist(),
            "train_loss": t["train"].tolist(),
            "test_loss": t["test"].tolist(),
            "sinkhorn_w2_note": "first seed only (report-only at quick size)",
            "final_minibatch_loss": st["final_minibatch_loss"].tolist(),
            "baseline_mlp": baseline,  # report-only: the deeper field on the same splits, keys and draws
            "algorithm": "minibatch CFM (fresh x0, t each step), Adam; z scaled by 1/sqrt(d+2); paired gap estimate "
            "with common (x0, t) draws",
        },
        figures={"images": fig},
        captions={"images": figures.IMAGES_CAPTION},
    )
