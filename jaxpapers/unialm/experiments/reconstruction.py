"""U1 (codec-trains) and U2 (rvq-coarse-to-fine) on the reconstruction study (spec "Claims", U1/U2 rows).

The jitted computation is :func:`jaxpapers.unialm.studies.make_msmd_eval` (per-clip MSMD for own codes at
every level count and for swapped codes); :func:`msmd_ratios` turns its tables into the claim's numbers.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np
from jaxtyping import ArrayLike, Float, Int

from jaxpapers.core import plots
from jaxpapers.core.claims import Measurement
from jaxpapers.unialm import studies
from jaxpapers.unialm.data.worlds import DOMAINS


def msmd_ratios(
    msmd0: Float[ArrayLike, " n"],
    msmd_t: Float[ArrayLike, " n"],
    msmd_swap: Float[ArrayLike, " n"],
    domain: Int[ArrayLike, " n"],
) -> dict[str, float]:
    """``MSMD_T/MSMD_0`` overall and per domain, and ``MSMD_T/MSMD_swap`` (means over held-out clips)."""
    msmd0, msmd_t, msmd_swap, domain = (np.asarray(a) for a in (msmd0, msmd_t, msmd_swap, domain))
    out = {
        "ratio_trained_init": float(msmd_t.mean() / msmd0.mean()),
        "ratio_own_swap": float(msmd_t.mean() / msmd_swap.mean()),
        "ratio_swap_init": float(msmd_swap.mean() / msmd0.mean()),
    }
    for d, name in enumerate(DOMAINS):
        m = domain == d
        out[f"ratio_{name}"] = float(msmd_t[m].mean() / msmd0[m].mean())
    out["ratio_worst_domain"] = max(out[f"ratio_{n}"] for n in DOMAINS)
    return out


def measure_codec_trains(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U1: held-out MSMD at init, after training, and with another clip's codes (cyclic within domain)."""
    s = studies.recon_study(cfg, key)
    msmd_t = s["msmd_q"][-1]
    measured = msmd_ratios(s["msmd0"], msmd_t, s["msmd_swap"], s["domain"])
    fig, ax = plots.figure(ncols=2, width=8.4)
    x = np.arange(len(DOMAINS) + 1)
    vals = {
        "init (MSMD_0)": [s["msmd0"][s["domain"] == d].mean() for d in range(3)] + [s["msmd0"].mean()],
        "swapped codes": [s["msmd_swap"][s["domain"] == d].mean() for d in range(3)] + [s["msmd_swap"].mean()],
        "own codes (MSMD_T)": [msmd_t[s["domain"] == d].mean() for d in range(3)] + [msmd_t.mean()],
    }
    for i, (label, v) in enumerate(vals.items()):
        ax[0].bar(x + (i - 1) * 0.27, v, 0.27, label=label)
    ax[0].set_xticks(x, [*DOMAINS, "all"])
    ax[0].set_ylabel("held-out MSMD (lower is better)")
    ax[0].set_title("U1: decoding needs the clip's own tokens")
    ax[0].legend(fontsize=7)
    plots.training_curves(ax[1], s["history"], keys=("msmd",))
    ax[1].set_title("training multi-scale mel distance")
    ax[1].set_xlabel("step")
    ax[1].set_ylabel("MSMD (train batch)")
    usage = s["usage"]
    return Measurement(
        measured=measured,
        details={
            "msmd0": float(s["msmd0"].mean()),
            "msmd_T": float(msmd_t.mean()),
            "msmd_swap": float(s["msmd_swap"].mean()),
            "distinct_codes": usage["distinct"].tolist(),
            "perplexity": np.round(usage["perplexity"], 1).tolist(),
            **studies.timing_details(s),
        },
        n=len(msmd_t),
        figures={"u1_msmd": fig},
        captions={
            "u1_msmd": "Held-out MSMD per domain at init, with another clip's codes, and with the clip's own "
            "codes. The tokens matter only if the own-code bar sits clearly below the swapped-code bar."
        },
    )


def measure_coarse_to_fine(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U2: MSMD decoding from the first q recon levels, q = 1..Q_r (the U1 codec)."""
    s = studies.recon_study(cfg, key)
    curve = s["msmd_q"].mean(axis=1)
    steps = curve[1:] / curve[:-1]
    fig, ax = plots.figure()
    q = np.arange(1, len(curve) + 1)
    ax.plot(q, curve, "o-", label="MSMD(q), held-out mean")
    ax.axhline(0.97 * curve[0], ls="--", c="gray", label="0.97 × MSMD(1)")
    ax.set_xlabel("recon levels used q")
    ax.set_ylabel("held-out MSMD")
    ax.set_title("U2: coarse-to-fine RVQ")
    ax.legend()
    return Measurement(
        measured={"max_step_ratio": float(steps.max()), "last_over_first": float(curve[-1] / curve[0])},
        details={"msmd_q": np.round(curve, 4).tolist()},
        n=s["msmd_q"].shape[1],
        figures={"u2_levels": fig},
        captions={
            "u2_levels": "Held-out MSMD when decoding from the first q levels: each extra level should never "
            "hurt (by more than 2%) and all levels should beat one."
        },
    )
