"""UniALM / FactorCodec (UniAudio 2.0, arXiv 2602.04683) in JAX: the factorised audio codec.

Public API: the audio front-end (:mod:`.audio`), quantizers (:mod:`.quantize`, gradient or EMA
codebooks), the codec (:class:`FactorCodec`, :func:`PlainCodec`, losses), GAN discriminators
(:mod:`.discriminators`) and the GAN training step (:mod:`.gan`, :class:`GanConfig`), the flow-matching
decoder (:mod:`.flow`, :mod:`.flow_decoder`), its training phases (:mod:`.train`), the offline data worlds
(digit and attribute), loaders and grain pipelines (:mod:`.data`), probes, and the ``experiments`` and
``figures`` submodules.
The language model: :class:`UniALM` (:mod:`.lm`; experts, backbone and depth decoder), its config and the
closed-form :func:`parameter_count`; its sequence layer (:mod:`.sequence`: id layout, task formats, loss
masks, CFG drop, packing and collation), its loss (:func:`lm_loss`), the four-stage recipe's optimizer masks and
toy training run (:mod:`.stages`), and cached inference (:mod:`.generate`: understanding, audio generation with
temperature, top-k and classifier-free guidance).
"""

from jaxpapers.unialm import (
    audio,
    discriminators,
    experiments,
    figures,
    flow,
    flow_decoder,
    gan,
    generate,
    lm,
    probes,
    quantize,
    sequence,
    stages,
    studies,
)
from jaxpapers.unialm.codec import (
    AnalysisBranch,
    AnalysisEncoder,
    ConvDecoder,
    FactorCodec,
    FiLM,
    PlainCodec,
    ReconBranch,
    ReconEncoder,
    TextAlignHead,
    VocosDecoder,
    codec_phase1_loss,
    codec_phase2_loss,
    index_map,
)
from jaxpapers.unialm.config import (
    AttributeWorldConfig,
    CodecConfig,
    DigitWorldConfig,
    GanConfig,
    LossConfig,
    MixConfig,
    ProbeConfig,
)
from jaxpapers.unialm.lm import UniALM, UniALMConfig, lm_loss, parameter_count
from jaxpapers.unialm.quantize import ResidualVQ, VectorQuantizer, code_usage_stats, codes_to_embeddings
from jaxpapers.unialm.train import recon_init, train_analysis, train_recon

__all__ = [
    "UniALM",
    "UniALMConfig",
    "generate",
    "lm",
    "lm_loss",
    "parameter_count",
    "sequence",
    "stages",
    "AnalysisBranch",
    "AnalysisEncoder",
    "AttributeWorldConfig",
    "CodecConfig",
    "ConvDecoder",
    "DigitWorldConfig",
    "FactorCodec",
    "FiLM",
    "GanConfig",
    "LossConfig",
    "MixConfig",
    "PlainCodec",
    "ProbeConfig",
    "ReconBranch",
    "ReconEncoder",
    "ResidualVQ",
    "TextAlignHead",
    "VectorQuantizer",
    "VocosDecoder",
    "audio",
    "code_usage_stats",
    "codec_phase1_loss",
    "codec_phase2_loss",
    "codes_to_embeddings",
    "discriminators",
    "experiments",
    "figures",
    "flow",
    "flow_decoder",
    "gan",
    "index_map",
    "probes",
    "quantize",
    "recon_init",
    "studies",
    "train_analysis",
    "train_recon",
]
