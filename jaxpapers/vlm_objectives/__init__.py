"""Spectral theory of vision–language objectives: closed forms of linearised CLIP, SigLIP, VL-JEPA and
captioning in a planted latent model, their exact losses trained by gradient descent, the phase
staircase of nuisance failures, and retrieval.

    from jaxpapers.vlm_objectives import closed_form, latent_model, metrics
    p = latent_model.planted_params(3, 16, 16, kappa=[2.5, 2, 1.5], gxs=2.0, gys=0.25, gxn=25, gyn=0.25, nu=[0.9] * 3)
    cov = latent_model.planted_covariances(p, jax.random.key(0))
    sol = closed_form.cca(cov, k=3)
    d = metrics.subspace_distance(cov.Ux.T, sol.W_img)   # 1.0: CCA picks the spurious nuisance

Run closed forms inside ``with jax.enable_x64(True):`` on float64 inputs.
"""

from jaxpapers.vlm_objectives import (
    closed_form,
    data,
    latent_model,
    losses,
    metrics,
    models,
    presets,
    retrieval,
    spectra,
    train,
)
from jaxpapers.vlm_objectives.closed_form import (
    EncoderSolution,
    cca,
    clip_linear,
    generation_rrr,
    jepa_l2,
    siglip_linear,
)
from jaxpapers.vlm_objectives.latent_model import (
    Cov,
    PlantedParams,
    planted_covariances,
    planted_params,
    random_joint_cov,
    sample_pairs,
)
from jaxpapers.vlm_objectives.metrics import principal_angles, recall_at_k, subspace_distance
from jaxpapers.vlm_objectives.models import ModelConfig, ObjectiveModel
from jaxpapers.vlm_objectives.spectra import analytic_spectra, separation_ratios, staircase_thresholds

__all__ = [
    "Cov",
    "EncoderSolution",
    "ModelConfig",
    "ObjectiveModel",
    "PlantedParams",
    "analytic_spectra",
    "cca",
    "clip_linear",
    "closed_form",
    "data",
    "generation_rrr",
    "jepa_l2",
    "latent_model",
    "losses",
    "metrics",
    "models",
    "planted_covariances",
    "planted_params",
    "presets",
    "principal_angles",
    "random_joint_cov",
    "recall_at_k",
    "retrieval",
    "sample_pairs",
    "separation_ratios",
    "siglip_linear",
    "spectra",
    "staircase_thresholds",
    "subspace_distance",
    "train",
]
