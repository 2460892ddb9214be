"""FM2, FM3, FM5: generalisation of the CFM objective and the W2 guarantee, from fixed-triple GD runs.

* FM2 (:func:`measure_sample_size`): m fixed, n swept; the slope of log(test − train) on log n and the floor
  check test ≥ L* − 3·SE (L* from the same test triples, SE of the paired difference over test batches).
* FM3 (:func:`measure_w2`): the same runs, flowed from N fresh N(0, I) draws by RK4; W2 to N target draws by exact
  assignment beside the sampling floor; the guarantee W2 ≤ floor + ε_v·exp(Λ̂) (Benton et al. stability bound,
  ε_v² = 2(test − L*), Λ̂ from the closed-form Jacobian along the trajectories); W2 and ε_v decreasing in n.
* FM5 (:func:`measure_width`): n fixed, m swept; max/min of the excess test loss test − L* over m.

All runs are :func:`~jaxpapers.flow_matching.studies.generalisation_run` (memoised: the claims share them).
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import fit_loglog
from jaxpapers.flow_matching import figures, studies
from jaxpapers.flow_matching.config import GeneralisationConfig, GMMConfig


def _groups(cfg):
    return to_dataclass(GMMConfig, cfg.target), to_dataclass(GeneralisationConfig, cfg.gen)


def sample_size_runs(cfg: ml_collections.ConfigDict) -> list[list[dict]]:
    """FM2/FM3's runs ``[seed][n]`` (with samples, so FM3 reuses them)."""
    target, gen = _groups(cfg)
    return [
        [studies.generalisation_run(target, gen, n, gen.width, int(cfg.seed) + s, sample=True) for n in gen.ns]
        for s in range(gen.seeds)
    ]


def _min_drop(values: np.ndarray) -> float:
    """Smallest decrease between consecutive entries over all seeds (``values [S, K]``; > 0: strictly decreasing)."""
    return float(np.min(-np.diff(values, axis=1)))


def measure_sample_size(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM2: slope of log(test − train) on log n per seed, and the floor margin in SE units (min over runs)."""
    del key
    _, gen = _groups(cfg)
    runs = sample_size_runs(cfg)
    gap = np.array([[r["test"] - r["train"] for r in row] for row in runs])
    slopes = [fit_loglog(gen.ns, g).slope if np.all(g > 0) else float("nan") for g in gap]
    z = np.array([[r["excess"] / r["excess_se"] for r in row] for row in runs])
    return Measurement(
        measured={"gap_slope": np.asarray(slopes), "floor_margin_se": float(z.min())},
        n=gen.seeds,
        details={
            "ns": list(gen.ns),
            "width": gen.width,
            "gap": gap.tolist(),
            "train": [[r["train"] for r in row] for row in runs],
            "test": [[r["test"] for r in row] for row in runs],
            "floor_L*": [[r["floor"] for r in row] for row in runs],
            "excess_se": [[r["excess_se"] for r in row] for row in runs],
            "eta": [[r["eta"] for r in row] for row in runs],
        },
        figures={"generalisation": figures.generalisation(runs[0])},
        captions={"generalisation": figures.GENERALISATION_CAPTION},
    )


def measure_w2(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM3: the bound margin min(floor + ε_v e^{Λ̂} − W2) over runs, and the smallest decreases of W2 and ε_v in n."""
    del key
    _, gen = _groups(cfg)
    runs = sample_size_runs(cfg)
    get = lambda k: np.array([[r[k] for r in row] for row in runs])  # noqa: E731
    w2, bound, eps = get("w2"), get("w2_bound"), get("eps_v")
    return Measurement(
        measured={
            "bound_margin_min": float(np.min(bound - w2)),
            "w2_drop_min": _min_drop(w2),
            "eps_v_drop_min": _min_drop(eps),
        },
        n=gen.seeds,
        details={
            "ns": list(gen.ns),
            "w2": w2.tolist(),
            "w2_floor": get("w2_floor").tolist(),
            "eps_v": eps.tolist(),
            "lipschitz_estimate": get("lipschitz").tolist(),
            "bound": bound.tolist(),
            "slack_bound_over_w2": (bound / w2).tolist(),
            "samples": gen.samples,
            "note": "Λ̂ is the max over generated points of ‖∂_x v‖₂ (an estimate of the Lipschitz constant)",
        },
        figures={"w2": figures.generalisation(runs[0])},
        captions={"w2": figures.GENERALISATION_CAPTION},
    )


def measure_width(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """FM5: max/min over widths of the excess test loss test − L* at n = ``gen.n_fixed`` (per seed)."""
    del key
    target, gen = _groups(cfg)
    runs = [
        [
            studies.generalisation_run(
                target, gen, gen.n_fixed, m, int(cfg.seed) + s, sample=(m == gen.width and gen.n_fixed in gen.ns)
            )
            for m in gen.widths
        ]
        for s in range(gen.seeds)
    ]
    excess = np.array([[r["excess"] for r in row] for row in runs])
    ratio = excess.max(1) / excess.min(1) if np.all(excess > 0) else np.full(len(runs), np.inf)
    return Measurement(
        measured={"excess_ratio": ratio},
        n=gen.seeds,
        details={
            "n": gen.n_fixed,
            "widths": list(gen.widths),
            "excess": excess.tolist(),
            "excess_se": [[r["excess_se"] for r in row] for row in runs],
            "train": [[r["train"] for r in row] for row in runs],
            "test": [[r["test"] for r in row] for row in runs],
        },
        figures={"widths": figures.widths(runs[0])},
        captions={"widths": figures.WIDTHS_CAPTION},
    )
