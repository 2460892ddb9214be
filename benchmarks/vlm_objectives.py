"""Benchmark: the vmapped, jitted closed-form sweeps of vlm_objectives vs plain NumPy loops.

Two sweeps at their quick-preset sizes, each timed against a float64 NumPy loop doing the same linear
algebra point by point (BLAS pinned to one thread, as the claims run):

* V3 population staircase: 100 nuisance correlations × (planted covariances, CCA, image→text and
  text→image RRR, subspace distances by principal angles);
* V4 one-sided condition: 500 random planted draws (k = 3) × (covariances, three whitened SVDs,
  block spectra, separation ratios).

    .venv/bin/python benchmarks/vlm_objectives.py          # prints one ratio per sweep (goal: >= 20x)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from threadpoolctl import threadpool_limits

from jaxpapers.core import bench, config
from jaxpapers.vlm_objectives import experiments, spectra


# ---------------------------------------------------------------------------------------------- NumPy
def np_haar(rng, d):
    q, r = np.linalg.qr(rng.normal(size=(d, d)))
    return q * np.sign(np.diag(r))


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
    qa = truth_cols
    qb = np.linalg.svd(w, full_matrices=False)[2].T
    cos = np.linalg.svd(qa.T @ qb, compute_uv=False)
    return 1.0 - np.mean(cos**2)


def np_staircase(kappa, gxs, gys, gxn, gyn, active, nus, qx, qy):
    k = len(kappa)
    out = np.empty((len(nus), 3))
    for i, v in enumerate(nus):
        sxx, syy, sxy = np_planted(kappa, gxs, gys, gxn, gyn, np.where(active, v, 0.0), qx, qy)
        xm, ym = np_pow(sxx, -0.5), np_pow(syy, -0.5)
        p, _, _ = np.linalg.svd(xm @ sxy @ ym)
        _, _, vt = np.linalg.svd(sxy.T @ xm)
        _, _, vt2 = np.linalg.svd(sxy @ ym)
        out[i] = (
            np_distance(qx[:, :k], p[:, :k].T @ xm),
            np_distance(qx[:, :k], vt[:k] @ xm),
            np_distance(qy[:, :k], vt2[:k] @ ym),
        )
    return out


def np_one_sided(rng, draws, k, m_x, m_y):
    out = np.empty((draws, 2))
    for i in range(draws):
        kappa = np.sqrt(np.exp(rng.uniform(np.log(0.5), np.log(10.0), k)))
        gxs, gys = np.exp(rng.uniform(np.log(0.05), np.log(4.0), (2, k)))
        gxn, gyn = (
            np.exp(rng.uniform(np.log(0.02), np.log(10.0), m_x)),
            np.exp(rng.uniform(np.log(0.02), np.log(10.0), m_y)),
        )
        nu = rng.uniform(0, 1, min(m_x, m_y))
        qx, qy = np_haar(rng, k + m_x), np_haar(rng, k + m_y)
        sxx, syy, sxy = np_planted(kappa, gxs, gys, gxn, gyn, nu, qx, qy)
        xm, ym = np_pow(sxx, -0.5), np_pow(syy, -0.5)
        c, a, a_rev = xm @ sxy @ ym, sxy.T @ xm, sxy @ ym
        for mat in (c, a, a_rev):
            np.linalg.svd(mat, compute_uv=False)
        m = min(m_x, m_y)
        nx, ny = qx[:, k : k + m], qy[:, k : k + m]
        rho = np.linalg.svd(qx[:, :k].T @ c @ qy[:, :k], compute_uv=False)
        nu_n = np.linalg.svd(nx.T @ c @ ny, compute_uv=False)
        tau = np.linalg.svd(qy[:, :k].T @ a @ qx[:, :k], compute_uv=False)
        xi = np.linalg.svd(ny.T @ a @ nx, compute_uv=False)
        out[i] = rho.min() / nu_n.max(), tau.min() / xi.max()
    return out


# ---------------------------------------------------------------------------------------------- main
def main() -> None:
    with jax.enable_x64(True), threadpool_limits(limits=1, user_api="blas"):
        cfg = config.load("vlm_objectives/staircase", "preset=quick")
        p = experiments.planted_from_config(cfg.planted.contaminated)
        nus = np.linspace(0.0, 0.99, cfg.staircase.num_nu)
        key = jax.random.key(0)

        cov = experiments.lm.planted_covariances(p, key)

        @jax.jit
        def jax_staircase(nus):
            def one(v):
                c = experiments.lm.rotated_covariances(spectra.with_common_nu(p, v), cov.Qx, cov.Qy)
                return experiments.staircase_distances(c, p.k)

            return jax.vmap(one)(nus)

        qx, qy = np.asarray(cov.Qx), np.asarray(cov.Qy)
        args = [np.asarray(a) for a in (p.kappa, p.gxs, p.gys, p.gxn, p.gyn)] + [np.asarray(p.nu) > 0]
        got = jax_staircase(jnp.asarray(nus))
        want = np_staircase(*args, nus, qx, qy)
        np.testing.assert_allclose(np.stack([got["cca"], got["captioning"], got["gen_t2i"]], 1), want, atol=1e-8)
        t_np = bench.time_fn(lambda: np_staircase(*args, nus, qx, qy), repeats=3)
        t_jax = bench.time_fn(jax_staircase, jnp.asarray(nus), repeats=5)
        bench.report_ratio(
            "V3 staircase, 100 nu (float64)", t_np, t_jax, baseline="numpy loop", candidate="jax vmap", goal=20
        )

        draws, k, m_x, m_y = 500, 3, 7, 5
        ranges = (("kappa2_range", (0.5, 10.0)), ("gs_range", (0.05, 4.0)), ("gn_range", (0.02, 10.0)))
        runner = experiments._one_sided_runner(k, m_x, m_y, ranges, None, fast_compile=False)
        kp, kr = jax.random.split(jax.random.key(1), draws), jax.random.split(jax.random.key(2), draws)
        uniform = jnp.zeros(draws, bool)
        rng = np.random.default_rng(0)
        t_np = bench.time_fn(lambda: np_one_sided(rng, draws, k, m_x, m_y), repeats=3)
        t_jax = bench.time_fn(runner, kp, kr, uniform, repeats=5)
        bench.report_ratio(
            f"V4 one-sided, {draws} draws (float64)", t_np, t_jax, baseline="numpy loop", candidate="jax vmap", goal=20
        )


if __name__ == "__main__":
    main()
