"""Figures the notebook shows (built from the memoised studies)."""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.unialm.experiments import analysis, reconstruction


def key_figure(cfg: ml_collections.ConfigDict, key: jax.Array):
    """The paper's key point at toy scale: A transfers across voices, R does not (U3's figure)."""
    return analysis.measure_text_aligned(cfg, key).figures["u3_probes"]


def reconstruction_figure(cfg: ml_collections.ConfigDict, key: jax.Array):
    """U1's figure: held-out MSMD at init, with swapped codes and with own codes, plus the training curve."""
    return reconstruction.measure_codec_trains(cfg, key).figures["u1_msmd"]
