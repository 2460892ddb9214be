"""Benchmark: the vmapped, jitted closed-form sweeps of vlm_objectives vs plain NumPy loops.

Two sweeps at their quick-preset sizes, each timed against a float64 NumPy loop doing the same linear
algebra point by point (BLAS pinned to one thread, as the claims run):

* V3 population staircase: 100 nuisance correlations × (planted covariances, CCA, image→text and
  text→image RRR, subspace distances from the projection residual);
* V4 one-sided condition: 500 random planted draws (k = 3) × (covariances, three whitened SVDs,
  block spectra, separation ratios).

The three timings (NumPy loop, JAX, and the LAPACK floor: the loop's decompositions batched through
NumPy's C loops) are taken in alternation; the floor bounds what any per-matrix-LAPACK sweep can reach.

A third pair times V2's training arithmetic: the value and gradient of InfoNCE and SigLIP for 5 seeds
of 512 x 512 pairwise logits at k = 3 (float32), ``losses.infonce`` / ``losses.sigmoid_pairwise``
(hand-written VJPs: ``pairwise_dots``, ``pairwise_softplus_sum``) against the same losses written plainly and
differentiated by JAX (the implementation before; values and gradients agree to float32 rounding).

    .venv/bin/python benchmarks/vlm_objectives.py          # per sweep: ratio (goal: >= 20x) and the floor
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from threadpoolctl import threadpool_limits

from jaxpapers.core import bench, config
from jaxpapers.vlm_objectives import latent_model, losses, planted_from_config, spectra
from jaxpapers.vlm_objectives.experiments import v3_staircase, v4_one_sided


# ---------------------------------------------------------------------------------------------- NumPy
def np_pow(s, power):
    w, u = np.linalg.eigh(s)
    return (u * w**power) @ u.T


def np_planted(kappa, gxs, gys, gxn, gyn, nu, qx, qy):
    k, m = len(kappa), len(nu)
    dxx, dyy = np.r_[kappa**2 + gxs, gxn], np.r_[kappa**2 + gys, gyn]
    d = np.zeros((len(dxx), len(dyy)))
    d[np.arange(k), np.arange(k)] = kappa**2
    d[k + np.arange(m), k + np.arange(m)] = nu * np.sqrt(gxn[:m] * gyn[:m])
    return (qx * dxx) @ qx.T, (qy * dyy) @ qy.T, qx @ d @ qy.T


def np_distance(truth_cols, w):
    """Mean sin^2 of the principal angles as ||(I - Qa Qa^T) Qb||_F^2 / k (as ``metrics.subspace_distance``)."""
    qa = truth_cols
    qb = np.linalg.svd(w, full_matrices=False)[2].T
    return np.sum((qb - qa @ (qa.T @ qb)) ** 2) / qb.shape[1]


def np_staircase(kappa, gxs, gys, gxn, gyn, active, nus, qx, qy, collect=None):
    """The V3 sweep point by point; ``collect`` (a dict of lists), if given, receives every matrix that
    the loop decomposes, for the LAPACK-floor timing."""
    k = len(kappa)
    out = np.empty((len(nus), 3))
    for i, v in enumerate(nus):
        sxx, syy, sxy = np_planted(kappa, gxs, gys, gxn, gyn, np.where(active, v, 0.0), qx, qy)
        xm, ym = np_pow(sxx, -0.5), np_pow(syy, -0.5)
        p, _, _ = np.linalg.svd(xm @ sxy @ ym)
        _, _, vt = np.linalg.svd(sxy.T @ xm)
        _, _, vt2 = np.linalg.svd(sxy @ ym)
        encoders = (p[:, :k].T @ xm, vt[:k] @ xm, vt2[:k] @ ym)
        out[i] = (
            np_distance(qx[:, :k], encoders[0]),
            np_distance(qx[:, :k], encoders[1]),
            np_distance(qy[:, :k], encoders[2]),
        )
        _collect(collect, "eigh", sxx, syy)
        _collect(collect, "svd", xm @ sxy @ ym, sxy.T @ xm, sxy @ ym, *encoders)
    return out


def _collect(collect, kind, *mats):
    """Appends each matrix to ``collect[(kind, shape)]`` (nothing when ``collect`` is None)."""
    if collect is not None:
        for m in mats:
            collect.setdefault((kind, m.shape), []).append(m)


def lapack_floor(stacks):
    """The decompositions of a NumPy loop, batched through NumPy's C loops (no Python per matrix): a time
    that no implementation calling LAPACK once per small matrix can go below. ``stacks``: (kind, shape) ->
    stacked matrices, kind in eigh | qr | svd | svd_values."""
    for (kind, _), mats in stacks.items():
        if kind == "eigh":
            np.linalg.eigh(mats)
        elif kind == "qr":
            np.linalg.qr(mats)
        else:
            np.linalg.svd(mats, full_matrices=False, compute_uv=kind == "svd")


def np_haar(rng, d, collect=None):
    x = rng.normal(size=(d, d))
    _collect(collect, "qr", x)
    q, r = np.linalg.qr(x)
    return q * np.sign(np.diag(r))


def np_one_sided(rng, draws, k, m_x, m_y, collect=None):
    out = np.empty((draws, 2))
    for i in range(draws):
        kappa = np.sqrt(np.exp(rng.uniform(np.log(0.5), np.log(10.0), k)))
        gxs, gys = np.exp(rng.uniform(np.log(0.05), np.log(4.0), (2, k)))
        gxn, gyn = (
            np.exp(rng.uniform(np.log(0.02), np.log(10.0), m_x)),
            np.exp(rng.uniform(np.log(0.02), np.log(10.0), m_y)),
        )
        nu = rng.uniform(0, 1, min(m_x, m_y))
        qx, qy = np_haar(rng, k + m_x, collect), np_haar(rng, k + m_y, collect)
        sxx, syy, sxy = np_planted(kappa, gxs, gys, gxn, gyn, nu, qx, qy)
        _collect(collect, "eigh", sxx, syy)
        xm, ym = np_pow(sxx, -0.5), np_pow(syy, -0.5)
        c, a, a_rev = xm @ sxy @ ym, sxy.T @ xm, sxy @ ym
        m = min(m_x, m_y)
        nx, ny = qx[:, k : k + m], qy[:, k : k + m]
        blocks = (qx[:, :k].T @ c @ qy[:, :k], nx.T @ c @ ny, qy[:, :k].T @ a @ qx[:, :k], ny.T @ a @ nx)
        _collect(collect, "svd_values", c, a, a_rev, *blocks)
        for mat in (c, a, a_rev):
            np.linalg.svd(mat, compute_uv=False)
        rho, nu_n, tau, xi = (np.linalg.svd(b, compute_uv=False) for b in blocks)
        out[i] = rho.min() / nu_n.max(), tau.min() / xi.max()
    return out


# ---------------------------------------------------------------------------------------------- V2 losses
def plain_infonce(zx, zy, scale):
    """InfoNCE written plainly (JAX differentiates the einsum, the diagonal and both log-sum-exps)."""
    logits = scale * jnp.einsum("bk,ck->bc", zx, zy)
    lse = 0.5 * (jnp.mean(jax.nn.logsumexp(logits, axis=1)) + jnp.mean(jax.nn.logsumexp(logits, axis=0)))
    return lse - jnp.mean(jnp.diagonal(logits))


def plain_sigmoid_pairwise(zx, zy, t, b):
    """SigLIP written plainly (softplus with its sigmoid derivative, trace of the logits)."""
    logits = t * jnp.einsum("bk,ck->bc", zx, zy) + b
    return (jnp.sum(losses.softplus(logits)) - jnp.trace(logits)) / zx.shape[0]


def v2_loss_steps(seeds=5, batch=512, k=3):
    """Times value-and-gradient of V2's pairwise losses, plain autodiff vs ``losses`` (checked equal first)."""
    r = np.random.default_rng(0)
    zx, zy = (jnp.asarray(r.normal(size=(seeds, batch, k)), jnp.float32) for _ in range(2))
    for name, plain, fast, args in (
        ("InfoNCE", plain_infonce, losses.infonce, (0.2,)),
        ("SigLIP", plain_sigmoid_pairwise, losses.sigmoid_pairwise, (10.0, -10.0)),
    ):
        runs = {
            label: jax.jit(jax.vmap(jax.value_and_grad(lambda a, b, f=f, args=args: f(a, b, *args), argnums=(0, 1))))
            for label, f in (("plain", plain), ("fast", fast))
        }
        for a, b in zip(jax.tree.leaves(runs["plain"](zx, zy)), jax.tree.leaves(runs["fast"](zx, zy)), strict=True):
            np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
        t = bench.time_interleaved({n: (lambda f=f: f(zx, zy)) for n, f in runs.items()}, rounds=7, min_time_s=0.2)
        bench.report_ratio(
            f"V2 {name} value+grad, {seeds} seeds x {batch}x{batch} logits (float32)",
            t["plain"],
            t["fast"],
            baseline="plain autodiff",
            candidate="losses (custom VJPs)",
        )


# ---------------------------------------------------------------------------------------------- main
def report(name, numpy_loop, jax_sweep, floor):
    """Times the three in alternation and prints JAX vs the NumPy loop (the goal) and vs the LAPACK floor."""
    t = bench.time_interleaved({"numpy": numpy_loop, "jax": jax_sweep, "floor": floor}, rounds=5, min_time_s=0.2)
    bench.report_ratio(name, t["numpy"], t["jax"], baseline="numpy loop", candidate="jax vmap", goal=20)
    print(
        f"{name}: LAPACK floor (the loop's decompositions batched in NumPy, no Python) {t['floor'] * 1e3:.2f} ms: "
        f"a LAPACK-per-matrix sweep can reach at most {t['numpy'] / t['floor']:.1f}x; "
        f"jax runs at {t['jax'] / t['floor']:.2f}x the floor"
    )


def main() -> None:
    with jax.enable_x64(True), threadpool_limits(limits=1, user_api="blas"):
        cfg = config.load("vlm_objectives/staircase", "preset=quick")
        p = planted_from_config(cfg.planted.contaminated)
        nus = np.linspace(0.0, 0.99, cfg.staircase.num_nu)
        key = jax.random.key(0)

        cov = latent_model.planted_covariances(p, key)

        @jax.jit
        def jax_staircase(nus):
            def one(v):
                c = latent_model.rotated_covariances(spectra.with_common_nu(p, v), cov.Qx, cov.Qy)
                return v3_staircase.staircase_distances(c, p.k)

            return jax.vmap(one)(nus)

        qx, qy = np.asarray(cov.Qx), np.asarray(cov.Qy)
        args = [np.asarray(a) for a in (p.kappa, p.gxs, p.gys, p.gxn, p.gyn)] + [np.asarray(p.nu) > 0]
        got = jax_staircase(jnp.asarray(nus))
        want = np_staircase(*args, nus, qx, qy)
        np.testing.assert_allclose(np.stack([got["cca"], got["captioning"], got["gen_t2i"]], 1), want, atol=1e-8)
        collected = {}
        np_staircase(*args, nus, qx, qy, collect=collected)
        stacks = {key: np.stack(mats) for key, mats in collected.items()}
        report(
            "V3 staircase, 100 nu (float64)",
            lambda: np_staircase(*args, nus, qx, qy),
            lambda: jax_staircase(jnp.asarray(nus)),
            lambda: lapack_floor(stacks),
        )

        draws, k, m_x, m_y = 500, 3, 7, 5
        ranges = (("kappa2_range", (0.5, 10.0)), ("gs_range", (0.05, 4.0)), ("gn_range", (0.02, 10.0)))
        runner = v4_one_sided.one_sided_sweep(k, m_x, m_y, ranges, None, fast_compile=False)
        kp, kr = jax.random.split(jax.random.key(1), draws), jax.random.split(jax.random.key(2), draws)
        uniform = jnp.zeros(draws, bool)
        rng = np.random.default_rng(0)
        collected = {}
        np_one_sided(rng, draws, k, m_x, m_y, collect=collected)
        stacks = {key: np.stack(mats) for key, mats in collected.items()}
        report(
            f"V4 one-sided, {draws} draws (float64)",
            lambda: np_one_sided(rng, draws, k, m_x, m_y),
            lambda: runner(kp, kr, uniform),
            lambda: lapack_floor(stacks),
        )
    v2_loss_steps()


if __name__ == "__main__":
    main()
