"""Benchmark: the jitted, vmapped compute-bound sweep vs a plain NumPy loop of the same optimisation.

The main simulation of ``llm_economics`` is E2's sweep: the profit-optimal (N*, D*) for 21 log-spaced hardware
efficiencies E ∈ [1e17, 1e19] (quick size). Both sides run the same algorithm in float64: the best frontier
start over 161 log-C points, then 60 damped-Newton iterations with backtracking. The baseline
(``jaxpapers.llm_economics.reference``) uses hand-derived gradient and Hessian and loops over firms in Python;
a second baseline uses SciPy's ``trust-exact`` (which stops at convergence). A dense sweep (E × γ × ρ, 1008
firms) shows how the gap grows with the batch.

    python benchmarks/llm_economics.py            # goal: ≥ 20x at the quick size
"""

from __future__ import annotations

import numpy as np


def main() -> None:
    import jax
    from threadpoolctl import threadpool_limits

    from jaxpapers.core.bench import report_ratio, time_interleaved
    from jaxpapers.llm_economics import FirmParams, param_grid, reference, sweep_compute_bound

    with jax.enable_x64(True), threadpool_limits(limits=1, user_api="blas"):
        sizes = {
            "quick (21 E points)": {"E": np.logspace(17, 19, 21)},
            "dense (E × γ × ρ = 1008 firms)": {
                "gamma": [2.0, 2.5, 2.7],
                "rho": [0.0, 5e4, 2e5, 1e6],
                "E": np.logspace(15, 21, 84),
            },
        }
        for name, axes in sizes.items():
            batch, _ = param_grid(FirmParams(), axes)
            n = int(batch.E.shape[0])
            firms = [reference.NpFirm.from_params(jax.tree.map(lambda x, i=i: x[i], batch)) for i in range(n)]
            sol = sweep_compute_bound(batch)  # compile (not timed)
            ref = reference.sweep_compute_bound(firms)
            err = float(np.max(np.abs(np.asarray(sol.N) / ref["N"] - 1)))
            print(f"{name}: max |N*_jax / N*_numpy - 1| = {err:.2e}")
            # Interleaved medians (JAX calls are ~1 ms, a NumPy loop ~20 ms): both sides see the same machine state.
            fns = {
                "numpy": lambda fs=firms: reference.sweep_compute_bound(fs),
                "jax": lambda b=batch: sweep_compute_bound(b),
            }
            if n < 100:
                fns["scipy"] = lambda fs=firms: [reference.solve_compute_bound_scipy(f) for f in fs]
            times = time_interleaved(fns, rounds=7 if n < 100 else 3, min_time_s=0.2 if n < 100 else 0.0)
            report_ratio(
                f"{name}: sweep", times["numpy"], times["jax"], baseline="numpy loop", candidate="jax vmap+jit", goal=20
            )
            if n < 100:
                report_ratio(f"{name}: sweep", times["scipy"], times["jax"], baseline="scipy trust-exact loop")


if __name__ == "__main__":
    main()
