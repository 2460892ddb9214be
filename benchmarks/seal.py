"""Benchmark: S6's path integration (ring N = 64, K = 6, Zhang transport under OU head-direction input,
τ = 10 ms, dt = 1 ms, 4 trials × 4 regimes = 16 runs of 10 s = 10,000 Euler steps, decoded phase every step)
at the quick size.

    .venv/bin/python benchmarks/seal.py
    .venv/bin/python benchmarks/seal.py --steps 2000 --trials 2

Implementations, timed interleaved (``core.bench.time_interleaved``, medians of wall time), all float64:

* JAX — ``seal.simulate`` (one ``lax.scan``, FFT circulants) vmapped over the 16 runs, one compiled program (warm);
* the plain loop a theorist would write (per run, per step: dense W r and W′ r with NumPy, population-vector
  decode) — timed on one run and scaled by the number of runs (goal: JAX ≥ 20×);
* the best vectorised NumPy version (per step, all runs at once: one [B, N] × [N, 2N] matrix product for W and
  W′ together) (goal: JAX faster). Each step depends on the last, so the time scan is sequential in every
  version; the NumPy per-step floor (a bare ``U @ M`` per step, no nonlinearity or decoding) is printed too,
  against the FFT program and against the same JAX scan with the dense [N, 2N] matrix (at N = 64 a dense
  product beats FFTs; the FFT form is the one that scales, O(N log N) per step).

All three integrate the same inputs from the same state; their final decoded phases agree to round-off (printed).
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from threadpoolctl import threadpool_limits

import jaxpapers.seal as seal
from jaxpapers.core.bench import report_ratio, time_interleaved


def dense_kernels(c_half, n):
    """W_ij = N⁻¹ w(θ_i − θ_j) and W′_ij = N⁻¹ w′(θ_i − θ_j), w(Δ) = c_0 + 2 Σ_k c_k cos kΔ (NumPy, independent)."""
    th = 2 * np.pi * np.arange(n) / n
    d = th[:, None] - th[None, :]
    k = np.arange(len(c_half))
    mult = np.where(k == 0, 1.0, 2.0) * c_half
    W = np.cos(d[..., None] * k) @ mult / n
    Wp = -(np.sin(d[..., None] * k) * k) @ mult / n
    return W, Wp


def plain_loop(u0, W, Wp, b, omega, dt):
    """One run, per step: du = −u + b + W r − ω W′ r, r = sigmoid(u); decoded phase arg Σ r e^{iθ}."""
    n = len(u0)
    e = np.exp(2j * np.pi * np.arange(n) / n)
    u, out = u0.copy(), np.empty(len(omega))
    for t, om in enumerate(omega):
        r = 1.0 / (1.0 + np.exp(-u))
        u = u + dt * (-u + b + W @ r - om * (Wp @ r))
        out[t] = np.angle(np.sum(e / (1.0 + np.exp(-u))))
    return out


def numpy_vectorised(u0, W, Wp, b, omega, dt):
    """All runs per step: [B, N] @ [N, 2N] gives W r and W′ r at once; phases [B, T]."""
    B, n = omega.shape[0], len(u0)
    M = np.concatenate([W.T, Wp.T], axis=1)
    e = np.exp(2j * np.pi * np.arange(n) / n)
    U = np.broadcast_to(u0, (B, n)).copy()
    out = np.empty(omega.shape)
    for t in range(omega.shape[1]):
        R = 1.0 / (1.0 + np.exp(-U))
        P = R @ M
        U += dt * (-U + b + P[:, :n] - omega[:, t : t + 1] * P[:, n:])
        out[:, t] = np.angle((1.0 / (1.0 + np.exp(-U))) @ e)
    return out


def numpy_floor(u0, M, runs, steps):
    """The bare sequential matmul chain of the same shape: the floor of any per-step NumPy version."""
    U = np.broadcast_to(u0, (runs, len(u0))).copy()
    for _ in range(steps):
        U = U @ M
    return U


def jax_dense(u0, W, Wp, b, dt):
    """The same step in JAX with the dense [N, 2N] matrix instead of FFTs (one scan, all runs per step)."""
    n = len(u0)
    M = jnp.asarray(np.concatenate([W.T, Wp.T], axis=1))
    e = jnp.asarray(np.exp(2j * np.pi * np.arange(n) / n))

    @jax.jit
    def run(omega):
        def body(U, om):
            P = jax.nn.sigmoid(U) @ M
            U = U + dt * (-U + b + P[:, :n] - om[:, None] * P[:, n:])
            return U, jnp.angle(jax.nn.sigmoid(U) @ e)

        U0 = jnp.broadcast_to(jnp.asarray(u0), (omega.shape[0], n))
        return jax.lax.scan(body, U0, omega.T)[1].T

    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--band", type=int, default=6)
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--trials", type=int, default=4)
    args = ap.parse_args()
    with jax.enable_x64(True), threadpool_limits(1):
        model = seal.FourierHopfieldEnergy("ring", args.n, args.band)
        u_star = seal.target_bump(model, 2.0)
        params = seal.fourier_construction(model, u_star)
        keys = jax.random.split(jax.random.key(0), args.trials)
        scales = (0.0, 0.5, 1.0, 2.0)
        omega = jnp.concatenate([seal.heading_velocity(k, args.steps, 0.001, scales=scales) for k in keys])
        dt = 0.1  # dt / τ = 1 ms / 10 ms
        run = jax.jit(
            jax.vmap(
                lambda om: seal.simulate(model, params, u_star, om, dt, observe=lambda u: seal.decode_phase(model, u))[
                    1
                ][:, 0]
            )
        )
        W, Wp = dense_kernels(np.asarray(params["c"][: args.band + 1]), args.n)
        b, u0, om_np = float(params["b"]), np.asarray(u_star), np.asarray(omega)
        M = np.concatenate([W.T, Wp.T], axis=1)[:, : args.n]
        M = M / np.linalg.norm(M, 2)  # bounded iterates

        dense = jax_dense(u0, W, Wp, b, dt)

        def jax_run():
            return run(omega)

        def jax_dense_run():
            return dense(omega)

        def numpy_run():
            return numpy_vectorised(u0, W, Wp, b, om_np, dt)

        def loop_one_run():
            return plain_loop(u0, W, Wp, b, om_np[-1], dt)

        def floor_run():
            return numpy_floor(u0, M, om_np.shape[0], args.steps)

        ph_j, ph_n, ph_l = np.asarray(jax_run()), numpy_run(), loop_one_run()
        ph_d = np.asarray(jax_dense_run())
        gap = max(np.abs(ph_j[:, -1] - ph_n[:, -1]).max(), np.abs(ph_d[:, -1] - ph_n[:, -1]).max())
        print(
            f"final phase, max |jax (FFT and dense) − numpy| over {om_np.shape[0]} runs: {gap:.1e}; "
            f"|jax − loop| (one run): {abs(ph_j[-1, -1] - ph_l[-1]):.1e} rad"
        )
        fns = {"jax": jax_run, "jax_dense": jax_dense_run, "numpy": numpy_run, "loop": loop_one_run, "floor": floor_run}
        t = time_interleaved(fns, rounds=3)
        runs = om_np.shape[0]
        report_ratio("S6 path integration vs plain loop", t["loop"] * runs, t["jax"], baseline="python loop", goal=20)
        report_ratio("S6 path integration vs vectorised numpy", t["numpy"], t["jax"], baseline="numpy", goal=1)
        report_ratio("S6 path integration vs numpy matmul floor", t["floor"], t["jax"], baseline="numpy floor", goal=1)
        report_ratio("S6, JAX dense W vs numpy floor", t["floor"], t["jax_dense"], baseline="numpy floor", goal=1)


if __name__ == "__main__":
    main()
