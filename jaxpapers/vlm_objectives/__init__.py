"""Spectral theory of vision–language objectives: closed forms of linearised CLIP, SigLIP, VL-JEPA and
captioning in a planted latent model, their exact losses trained by gradient descent, the phase
staircase of nuisance failures, and retrieval.

    import jax
    from jaxpapers.vlm_objectives import cca, generation_rrr, planted_covariances, planted_params, subspace_distance

    with jax.enable_x64(True):  # closed forms in float64, scoped
        p = planted_params(3, 16, 16, kappa=[2.5, 2, 1.5], gxs=2.0, gys=0.25, gxn=25, gyn=0.25, nu=[0.9] * 3)
        cov = planted_covariances(p, jax.random.key(0))
        subspace_distance(cov.Ux.T, cca(cov, k=3).W_img)             # 1.0: CCA picks the spurious nuisance
        subspace_distance(cov.Ux.T, generation_rrr(cov, 3).W_img)    # ~0: captioning does not

Public API: the planted model, its spectra, the closed forms, the metrics and the objective models
(below), plus the submodules ``experiments`` (one module per claim group) and ``figures``. The loaders
of real data are in ``jaxpapers.vlm_objectives.data``, training in ``jaxpapers.vlm_objectives.train``
and the typed settings in ``jaxpapers.vlm_objectives.config``.
"""

from jaxpapers.vlm_objectives import experiments, figures
from jaxpapers.vlm_objectives.closed_form import (
    EncoderSolution,
    cca,
    clip_linear,
    generation_rrr,
    jepa_l2,
    siglip_linear,
)
from jaxpapers.vlm_objectives.config import LossConfig, ModelConfig
from jaxpapers.vlm_objectives.latent_model import (
    Cov,
    PlantedParams,
    planted_covariances,
    planted_from_config,
    planted_params,
    random_joint_cov,
    sample_pairs,
)
from jaxpapers.vlm_objectives.metrics import principal_angles, recall_at_k, subspace_distance
from jaxpapers.vlm_objectives.models import ObjectiveModel
from jaxpapers.vlm_objectives.spectra import analytic_spectra, separation_ratios, staircase_thresholds

__all__ = [
    "Cov",
    "EncoderSolution",
    "LossConfig",
    "ModelConfig",
    "ObjectiveModel",
    "PlantedParams",
    "analytic_spectra",
    "cca",
    "clip_linear",
    "experiments",
    "figures",
    "generation_rrr",
    "jepa_l2",
    "planted_covariances",
    "planted_from_config",
    "planted_params",
    "principal_angles",
    "random_joint_cov",
    "recall_at_k",
    "sample_pairs",
    "separation_ratios",
    "siglip_linear",
    "staircase_thresholds",
    "subspace_distance",
]
