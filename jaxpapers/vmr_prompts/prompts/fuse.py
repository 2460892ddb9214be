"""The fusion ablation "ALL": ES, then OD, then KM drawn on the same frames, with the three legends concatenated."""

from __future__ import annotations

import numpy as np

from jaxpapers.vmr_prompts.prompts import es, km, od


def render_all(frames: np.ndarray, starts, detections, flags) -> np.ndarray:
    """``render_km(render_od(render_es(frames, starts), detections), flags)``: tool outputs come from clean frames."""
    return km.render_km(od.render_od(es.render_es(frames, starts), detections), flags)


LEGEND = " ".join([es.LEGEND, od.LEGEND, km.LEGEND])
