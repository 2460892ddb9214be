"""Visual prompts (ES/OD/KM) + Yes/No-score selection for training-free video moment retrieval.

Public API: the records, the model interface and the scripted oracle, SynthVMR, the prompt tools and renderers,
the parser, the verifier, selection, the pipeline and the metrics, plus the ``experiments`` and ``figures`` modules.
"""

from jaxpapers.vmr_prompts import experiments, figures
from jaxpapers.vmr_prompts.adapters.oracle import NoisyOracleVLM
from jaxpapers.vmr_prompts.config import OracleConfig, StudyConfig, SynthConfig, ToolConfig
from jaxpapers.vmr_prompts.data_real import (
    load_activitynet,
    load_charades_sta,
    load_frame_folder,
    load_qvhighlights,
    load_video,
)
from jaxpapers.vmr_prompts.keys import stable_key
from jaxpapers.vmr_prompts.metrics import evaluate, iou, miou, r1_at
from jaxpapers.vmr_prompts.model_api import VideoLanguageModel, grounding_prompt
from jaxpapers.vmr_prompts.parse import parse_segment
from jaxpapers.vmr_prompts.pipeline import VMRPromptPipeline
from jaxpapers.vmr_prompts.prompts.es import detect_events, render_es
from jaxpapers.vmr_prompts.prompts.fuse import render_all
from jaxpapers.vmr_prompts.prompts.km import SyntheticRelevance, keyframes, render_km
from jaxpapers.vmr_prompts.prompts.od import SyntheticDetector, noun_phrases, render_od
from jaxpapers.vmr_prompts.select import select
from jaxpapers.vmr_prompts.synth.generator import generate_video, make_split
from jaxpapers.vmr_prompts.types import Candidate, PipelineResult, Query, Video
from jaxpapers.vmr_prompts.verify import YesNoVerifier

__all__ = [
    "Candidate", "NoisyOracleVLM", "OracleConfig", "PipelineResult", "Query", "StudyConfig", "SynthConfig",
    "SyntheticDetector", "SyntheticRelevance", "ToolConfig", "VMRPromptPipeline", "Video", "VideoLanguageModel",
    "YesNoVerifier", "detect_events", "evaluate", "experiments", "figures", "generate_video", "grounding_prompt",
    "iou", "keyframes", "load_activitynet", "load_charades_sta", "load_frame_folder", "load_qvhighlights", "load_video",
    "make_split", "miou", "noun_phrases", "parse_segment", "r1_at", "render_all", "render_es", "render_km",
    "render_od", "select", "stable_key",
]
