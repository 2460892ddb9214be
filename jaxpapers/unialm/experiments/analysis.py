"""U3 (analysis-text-aligned) and U4 (discrete≈continuous) on the analysis study (spec "Claims", U3/U4 rows).

The jitted computation is :func:`jaxpapers.unialm.probes.probe_accuracies` (all single-voice probes in one
vmapped scan); the text-head accuracy is greedy decoding of the first target token on held-out voices.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core import plots
from jaxpapers.core.claims import Measurement
from jaxpapers.unialm import studies


def measure_text_aligned(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U3: head accuracy on held-out voices; single-voice probe accuracy from A and from R (5-voice means)."""
    s = studies.analysis_study(cfg, key)
    pa, pr = s["probes"]["A"], s["probes"]["R"]
    fig, ax = plots.figure()
    v = np.arange(len(pa))
    ax.bar(v - 0.2, pa, 0.4, label="analysis tokens A")
    ax.bar(v + 0.2, pr, 0.4, label="reconstruction tokens R")
    ax.axhline(0.1, ls=":", c="k", label="chance (0.1)")
    ax.axhline(s["head_acc"], ls="--", c="C2", label=f"text head, held-out voices ({s['head_acc']:.2f})")
    ax.set_xlabel("training voice of the probe")
    ax.set_ylabel("digit accuracy on 12 held-out voices")
    ax.set_ylim(0, 1.05)
    ax.set_title("U3: A carries the digit across voices")
    ax.legend(fontsize=7)
    usage = s["usage"]
    return Measurement(
        measured={
            "head_acc": s["head_acc"],
            "probe_A": float(pa.mean()),
            "probe_R": float(pr.mean()),
            "gap_A_minus_R": float(pa.mean() - pr.mean()),
        },
        details={
            "probe_A_per_voice": np.round(pa, 3).tolist(),
            "probe_R_per_voice": np.round(pr, 3).tolist(),
            "a_distinct_codes": usage["distinct"].tolist(),
            "a_perplexity": np.round(usage["perplexity"], 1).tolist(),
            **studies.timing_details(s),
        },
        n=len(pa),
        figures={"u3_probes": fig},
        captions={
            "u3_probes": "Each pair of bars is a linear probe trained on ONE training voice and tested on all "
            "held-out voices: A transfers across voices, R (trained only to resynthesise) does not."
        },
    )


def measure_discrete_vs_continuous(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U4: the U3 single-voice probe on dequantized A vs on the pre-quantization z_a."""
    s = studies.analysis_study(cfg, key)
    pa, pz = s["probes"]["A"], s["probes"]["z_a"]
    fig, ax = plots.figure()
    ax.plot(pz, pa, "o", label="one training voice")
    ax.plot([0, 1], [0, 1], "k:", label="equal")
    ax.plot([0.05, 1], [0, 0.95], "--", c="gray", label="z_a − 0.05")
    ax.set_xlabel("probe accuracy from continuous z_a")
    ax.set_ylabel("probe accuracy from discrete A")
    ax.set_title("U4: discrete ≈ continuous")
    ax.legend()
    return Measurement(
        measured={"probe_A": float(pa.mean()), "probe_z": float(pz.mean()), "A_minus_z": float(pa.mean() - pz.mean())},
        details={"probe_z_per_voice": np.round(pz, 3).tolist()},
        n=len(pa),
        figures={"u4_discrete": fig},
        captions={
            "u4_discrete": "Each point is one single-voice probe: points on or above the dashed line mean "
            "quantization kept the digit information."
        },
    )
