"""T0: the oracle G0 against A_inc and A_rand on 𝒞_AP with f(n) = n: d_f ≡ 1 and h ≡ 0."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.timely_generation import metrics
from jaxpapers.timely_generation.adversaries import a_inc, a_rand, elements
from jaxpapers.timely_generation.config import SanityConfig
from jaxpapers.timely_generation.deadlines import deadline_table
from jaxpapers.timely_generation.game import play
from jaxpapers.timely_generation.languages import ap_collection


def oracle_runs(sc: SanityConfig, key: jax.Array) -> dict:
    """Density curves and h(t) of G0 against A_inc and ``seeds`` A_rand enumerations (same shapes: one compile)."""
    coll = ap_collection(sc.A, sc.B)
    K = coll.index((sc.k_a, sc.k_b, 0))
    u = sc.k_a + sc.k_b * sc.T
    k_el = elements(1, coll.params[K], sc.T)
    ft = deadline_table(sc.deadline, sc.T)
    seeds = np.asarray(jax.random.randint(key, (sc.seeds,), 0, 2**31 - 1))
    xs = [("inc", a_inc(1, coll.params[K], sc.T))] + [
        (f"rand{i}", a_rand(1, coll.params[K], sc.T, int(s))) for i, s in enumerate(seeds)
    ]
    out = {}
    for name, x in xs:
        log = play(coll, K, x, "oracle", u_track=u)
        out[name] = {
            "curve": np.asarray(metrics.timely_density_curve(log["credit_time"], k_el, ft, sc.T)),
            "h": np.asarray(metrics.hallucination_curve(log["halluc"])),
        }
    return out


def measure_oracle(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """T0: min_n d_f(n) over valid scales (A_inc, A_rand) and max_t h(t)."""
    sc = to_dataclass(SanityConfig, cfg.sanity)
    runs = oracle_runs(sc, key)
    rand = [r for k, r in runs.items() if k != "inc"]
    return Measurement(
        measured={
            "min_density_inc": float(np.nanmin(runs["inc"]["curve"])),
            "min_density_rand": float(min(np.nanmin(r["curve"]) for r in rand)),
            "max_halluc": float(max(r["h"].max() for r in runs.values())),
        },
        predicted={"min_density_inc": 1.0, "min_density_rand": 1.0, "max_halluc": 0.0},
        n=len(runs) * sc.T,
        details={"K": f"AP({sc.k_a}, {sc.k_b})", "T": sc.T, "runs": list(runs)},
        figures={"oracle_density": _figure(runs)},
        captions={"oracle_density": _caption()},
    )


def _figure(runs):
    from jaxpapers.timely_generation.figures import density_figure

    return density_figure(
        {k: r["curve"] for k, r in runs.items()}, title="G0 oracle on C_AP, f(n) = n", hlines={"predicted 1": 1.0}
    )


def _caption() -> str:
    from jaxpapers.timely_generation.figures import CAPTIONS

    return CAPTIONS["oracle_density"]
