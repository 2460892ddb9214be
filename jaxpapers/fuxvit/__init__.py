"""FuxViT: one ViT for images and long videos with Frame Selective Attention (FSA).

Public API::

    from jaxpapers.fuxvit import FuxViT, FuxViTConfig, fsa_attention, select_frames

``FuxViT`` (Linen encoder), ``FuxViTMAE`` (joint image/video MAE pretraining), ``FuxViTClassifier``;
``fsa_attention`` (routing + fine branch, plain mode), ``select_frames`` / ``routing_logits`` /
``inverse_selection`` (routing), ``fsa_fine_reference`` / ``dense_block_causal`` (the reference and
its oracle), ``encode_streaming`` (per-layer frame cache), ``patchify`` / ``unpatchify`` / ``rope3d``.

Submodules: ``experiments`` (one module per claim group), ``figures`` (what the notebook shows),
``studies`` (trained models shared by claims), ``train`` (the ``jaxpapers train`` entry point).
"""

from jaxpapers.fuxvit import experiments, figures, studies, train
from jaxpapers.fuxvit.attention import coarse_branch, fsa_attention
from jaxpapers.fuxvit.config import FuxViTConfig, MAEConfig
from jaxpapers.fuxvit.kernels.fsa.reference import dense_block_causal, fsa_fine_reference
from jaxpapers.fuxvit.mae import FuxViTMAE, tube_mask
from jaxpapers.fuxvit.model import FuxViT, FuxViTClassifier
from jaxpapers.fuxvit.routing import frame_summaries, inverse_selection, routing_logits, select_frames
from jaxpapers.fuxvit.streaming import encode_streaming
from jaxpapers.fuxvit.tokenizer import patchify, rope3d, unpatchify

__all__ = [
    "FuxViT",
    "FuxViTClassifier",
    "FuxViTConfig",
    "FuxViTMAE",
    "MAEConfig",
    "coarse_branch",
    "dense_block_causal",
    "encode_streaming",
    "experiments",
    "figures",
    "frame_summaries",
    "fsa_attention",
    "fsa_fine_reference",
    "inverse_selection",
    "patchify",
    "rope3d",
    "routing_logits",
    "select_frames",
    "studies",
    "train",
    "tube_mask",
    "unpatchify",
]
